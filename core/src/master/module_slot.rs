//! [`ModuleSlot`]: one module of a [`super::CoupledSystem`] with the parts of the exchanged
//! vectors it owns (its inputs and outputs), borrowed apart from every other module's. The
//! system hands out disjoint slots ([`super::CoupledSystem::slots`]), so an
//! [`super::Executor`] may step the modules of one Jacobi sweep at the same time.

use crate::coupling::CouplingGraph;
use crate::error::MasterError;
use crate::module::{ModuleError, StepIo, StepIoStage, StepReport, Subsystem, ValueRef};

/// One module and its own slices of the exchanged values.
pub struct ModuleSlot<'a> {
    /// Module index (stacking order).
    pub index: usize,
    pub(super) name: &'a str,
    pub(super) subsystem: &'a mut Subsystem,
    /// This module's inputs as last applied.
    pub(super) inputs: &'a mut [f64],
    /// This module's outputs as last read.
    pub(super) outputs: &'a mut [f64],
    pub(super) changed: &'a mut bool,
    pub(super) graph: &'a CouplingGraph,
}

impl ModuleSlot<'_> {
    /// Instance name.
    pub fn name(&self) -> &str {
        self.name
    }

    /// The module's outputs as last read.
    pub fn outputs(&self) -> &[f64] {
        self.outputs
    }

    /// The module's outputs, writable: for an executor whose module steps in another process
    /// (`cosim run --mpi`), which writes here the outputs that process read.
    pub fn outputs_mut(&mut self) -> &mut [f64] {
        self.outputs
    }

    /// The [`MasterError::Module`] for a failure of this module at time `t`.
    pub fn error(&self, t: f64, error: ModuleError) -> MasterError {
        MasterError::Module {
            module: self.name.into(),
            t,
            error,
        }
    }

    /// Sets the module's inputs (declaration order) to `values`, and records them as the
    /// inputs applied.
    #[inline]
    pub fn set_inputs(&mut self, t: f64, values: &[f64]) -> Result<(), MasterError> {
        self.inputs.copy_from_slice(values);
        self.set_inputs_unrecorded(t, values)
    }

    /// Sets the module's inputs without recording them: for a caller that records the
    /// inputs of all modules at once afterwards ([`super::CoupledSystem::record_inputs`]),
    /// which saves a small copy per module in the hot loop.
    #[inline]
    pub fn set_inputs_unrecorded(&mut self, t: f64, values: &[f64]) -> Result<(), MasterError> {
        let vrs = self.graph.input_value_refs(self.index);
        let r = self.subsystem.set_float64(vrs, values);
        r.map_err(|e| self.error(t, e))
    }

    /// Sets input derivatives (`x-maxInputDerivativeOrder`).
    #[inline]
    pub fn set_input_derivatives(
        &mut self,
        t: f64,
        vrs: &[ValueRef],
        orders: &[u32],
        values: &[f64],
    ) -> Result<(), MasterError> {
        let r = self.subsystem.set_input_derivatives(vrs, orders, values);
        r.map_err(|e| self.error(t, e))
    }

    /// `fmi3DoStep`; the report is returned unchecked.
    #[inline]
    pub fn do_step(
        &mut self,
        t: f64,
        h: f64,
        no_set_state_prior: bool,
    ) -> Result<StepReport, MasterError> {
        *self.changed = true;
        let r = self.subsystem.do_step(t, h, no_set_state_prior);
        r.map_err(|e| self.error(t, e))
    }

    /// Reads the module's outputs into its slice; a non-finite value is
    /// [`MasterError::Diverged`] naming the signal.
    #[inline]
    pub fn read_outputs(&mut self, t: f64) -> Result<(), MasterError> {
        let vrs = self.graph.output_value_refs(self.index);
        let r = self.subsystem.get_float64(vrs, self.outputs);
        r.map_err(|e| self.error(t, e))?;
        self.outputs_finite(t)
    }

    /// `set_inputs_unrecorded(t, inputs)` (none: no set), `do_step(t, h, true)` and, when
    /// the report allows ([`StepIo::reads_outputs`]), `read_outputs` at the time the step
    /// reached, as one request to the module ([`Subsystem::step_with_io`]). The report and
    /// whether the outputs were read; errors as those calls give them.
    #[inline]
    pub fn step_with_io(
        &mut self,
        t: f64,
        h: f64,
        inputs: Option<&[f64]>,
        early_return_allowed: bool,
    ) -> Result<(StepReport, bool), MasterError> {
        let mut io = StepIo {
            inputs: inputs.map(|u| (self.graph.input_value_refs(self.index), u)),
            t,
            h,
            no_set_state_prior: true,
            output_vrs: self.graph.output_value_refs(self.index),
            outputs: self.outputs,
            early_return_allowed,
        };
        let (report, read) = match self.subsystem.step_with_io(&mut io) {
            Ok(done) => done,
            Err(e) => {
                if e.stage > StepIoStage::SetInputs {
                    *self.changed = true;
                }
                let at = match &e.report {
                    Some(r) => r.last_successful_time.min(t + h),
                    None => t,
                };
                return Err(self.error(at, e.error));
            }
        };
        *self.changed = true;
        if read {
            self.outputs_finite(report.last_successful_time.min(t + h))?;
        }
        Ok((report, read))
    }

    /// [`MasterError::Diverged`] naming the first non-finite output at `t`.
    fn outputs_finite(&self, t: f64) -> Result<(), MasterError> {
        match self.outputs.iter().position(|y| !y.is_finite()) {
            Some(k) => Err(MasterError::Diverged {
                t,
                signal: self
                    .graph
                    .output_name(self.graph.output_range(self.index).start + k)
                    .into(),
            }),
            None => Ok(()),
        }
    }
}
