//! A binary module's macro-step in one engine call: the inputs the master set are sent
//! with `fmi3DoStep` ([`Runtime::step`]), and when the master said it will read outputs
//! right after the step ([`Module::will_read_after_step`]), their `fmi3GetFloat64` goes
//! with it and waits here for the master's `get_float64`. Only for modules whose ports
//! are all Float64 scalars without clocks or String/Binary outputs: there nothing else is
//! called between the step and the read, so the module sees the calls it saw before.
//!
//! [`Runtime::step`]: super::runtime::Runtime::step
//! [`Module::will_read_after_step`]: crate::module::Module::will_read_after_step

use super::binary_module::BinaryModule;
use super::runtime::StepCall;
use crate::module::{ModuleError, Status, StepReport, ValueRef};
use alloc::vec::Vec;

/// The outputs to read with the next step, and what that read got.
#[derive(Default)]
pub(super) struct StepReads {
    vrs: Vec<ValueRef>,
    values: Vec<f64>,
    /// `vrs` are to be read with the next step.
    armed: bool,
    /// The read made with the last step: the instance's call count after it, its outcome.
    made: Option<(u64, Result<(), ModuleError>)>,
}

impl BinaryModule {
    /// Float64 scalars only, no clocks, no String or Binary outputs.
    fn plain_ports(&self) -> bool {
        self.md.ports.is_empty() && self.clocks.is_empty() && self.texts.is_empty()
    }

    /// `fmi3SetFloat64` of the inputs, kept for the next call when that may be the step.
    pub(super) fn set_inputs(
        &mut self,
        vrs: &[ValueRef],
        values: &[f64],
    ) -> Result<(), ModuleError> {
        if !self.plain_ports() {
            return self.set_float64_direct(vrs, values);
        }
        let (f, inst) = (self.fmi.set_float64, self.instance()?);
        self.rt.defer_float64_set(f, inst, vrs, values)
    }

    /// Arms the read of `vrs` with the next step.
    pub(super) fn read_after_step(&mut self, vrs: &[ValueRef]) {
        if self.plain_ports() {
            self.reads.vrs.clear();
            self.reads.vrs.extend_from_slice(vrs);
            self.reads.armed = true;
        }
    }

    /// `fmi3GetFloat64` of `vrs`: what the last step's read got if it read these and nothing
    /// was called since, else a call now.
    pub(super) fn get_outputs(
        &mut self,
        vrs: &[ValueRef],
        values: &mut [f64],
    ) -> Result<(), ModuleError> {
        match self.reads.made.take() {
            Some((at, made))
                if at == self.rt.calls()
                    && self.reads.vrs == vrs
                    && values.len() == self.reads.values.len() =>
            {
                made?;
                values.copy_from_slice(&self.reads.values);
                Ok(())
            }
            _ => self.get_float64_direct(vrs, values),
        }
    }

    /// `fmi3DoStep` with the deferred inputs before it and the armed read after it.
    pub(super) fn step_with_io(
        &mut self,
        t: f64,
        h: f64,
        no_set_state_prior_to_current_point: bool,
    ) -> Result<StepReport, ModuleError> {
        self.reads.made = None;
        self.free_released()?;
        self.before_step(t, h)?;
        let inst = self.instance()?;
        let armed = core::mem::take(&mut self.reads.armed);
        let mut reads = core::mem::take(&mut self.reads);
        reads.values.resize(reads.vrs.len(), 0.0);
        let call = StepCall {
            do_step: self.fmi.do_step,
            instance: inst,
            t,
            h,
            no_set_state_prior_to_current_point,
            get: armed.then_some((self.fmi.get_float64, &reads.vrs[..])),
        };
        let stepped = self.rt.step(call, &mut reads.values);
        self.reads = reads;
        let o = stepped?;
        self.reads.made = o.got.map(|got| (self.rt.calls(), got));
        let status = self.status("fmi3DoStep", o.code)?;
        if let Some(at) = o.read_outside {
            return Err(super::runtime::outside(at));
        }
        let last = f64::from_le_bytes(o.out[..8].try_into().unwrap_or_default());
        self.read_text_outputs()?;
        Ok(StepReport {
            status,
            event_handling_needed: o.out[8] != 0,
            terminate_simulation: o.out[9] != 0,
            early_return: o.out[10] != 0,
            last_successful_time: if status == Status::Discard { t } else { last },
        })
    }
}
