//! [`CoupledSystem`]: the modules (as FMI-checked [`Subsystem`]s), their validated
//! coupling graph and the stacked outputs at the current communication point.
//! Algorithms drive it through the small helpers here, which map module failures to
//! [`MasterError`]s naming the module and the time.
//!
//! Typical use: `new` → `initialize` → (optionally read linear blocks or states from the
//! subsystems, which are then in Step Mode with nothing set) → [`super::Run::new`].

use crate::coupling::{CouplingGraph, Port};
use crate::error::{CosimError, MasterError};
use crate::module::{
    InstantiateOptions, Module, ModuleDescription, ModuleError, StepReport, Subsystem, ValueRef,
};
use alloc::boxed::Box;
use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

/// Modules, connections and current outputs.
pub struct CoupledSystem {
    /// The modules, in stacking order.
    pub subsystems: Vec<Subsystem>,
    /// Instance names, parallel to `subsystems`.
    pub names: Vec<String>,
    /// Validated connections.
    pub graph: CouplingGraph,
    outputs: Vec<f64>,
    options: Vec<InstantiateOptions>,
    t_start: Option<f64>,
}

/// Event iterations (`fmi3UpdateDiscreteStates` calls) allowed per event before the
/// master gives up: an FMU that keeps asking for more is not converging.
pub const MAX_EVENT_ITERATIONS: u32 = 100;

impl CoupledSystem {
    /// Checks the connections ([`CouplingGraph::build`]) and instantiates every module
    /// (`fmi3InstantiateCoSimulation`) with `eventModeUsed = hasEventMode` and
    /// `earlyReturnAllowed = mightReturnEarlyFromDoStep`: the masters handle both
    /// (`master::explicit`, `master::events`).
    pub fn new(
        modules: Vec<(String, Box<dyn Module>)>,
        connections: &[(String, String)],
    ) -> Result<Self, CosimError> {
        let descriptions: Vec<(String, ModuleDescription)> = modules
            .iter()
            .map(|(n, m)| (n.clone(), m.description().clone()))
            .collect();
        let graph = CouplingGraph::build(&descriptions, connections)?;
        let mut subsystems = Vec::with_capacity(modules.len());
        let mut names = Vec::with_capacity(modules.len());
        let mut options = Vec::with_capacity(modules.len());
        for (name, module) in modules {
            let caps = &module.description().capabilities;
            let o = InstantiateOptions {
                event_mode_used: caps.has_event_mode,
                early_return_allowed: caps.might_return_early_from_do_step,
            };
            subsystems.push(Subsystem::instantiate(module, o)?);
            options.push(o);
            names.push(name);
        }
        let outputs = vec![0.0; graph.n_outputs()];
        Ok(CoupledSystem {
            subsystems,
            names,
            graph,
            outputs,
            options,
            t_start: None,
        })
    }

    /// The `fmi3InstantiateCoSimulation` options module `m` was instantiated with.
    pub fn instantiate_options(&self, m: usize) -> InstantiateOptions {
        self.options[m]
    }

    /// Number of modules.
    pub fn n_modules(&self) -> usize {
        self.subsystems.len()
    }

    /// Stacked outputs at the current communication point.
    pub fn outputs(&self) -> &[f64] {
        &self.outputs
    }

    /// Stacked outputs, writable for algorithms that correct the exchanged outputs (e.g. a
    /// model-based corrector exchanging ȳ instead of the raw y, seed-000 digest §8 item 1).
    pub fn outputs_mut(&mut self) -> &mut [f64] {
        &mut self.outputs
    }

    /// Start time given to [`Self::initialize`], once it succeeded.
    pub fn initialized_at(&self) -> Option<f64> {
        self.t_start
    }

    /// The [`MasterError::Module`] for a failure of module `m` at time `t`.
    pub fn module_error(&self, m: usize, t: f64, error: ModuleError) -> MasterError {
        MasterError::Module {
            module: self.names[m].clone(),
            t,
            error,
        }
    }

    /// Enters Initialization Mode in every module, propagates initial outputs to the
    /// connected inputs in feedthrough order ([`CouplingGraph::propagation_order`]; get
    /// and set are both allowed in Initialization Mode), exits Initialization Mode and
    /// reads the initial outputs `y0` (Step Mode, before any set).
    pub fn initialize(&mut self, t_start: f64, t_stop: f64) -> Result<(), MasterError> {
        if self.t_start.is_some() {
            return Err(MasterError::InvalidSettings(
                "the coupled system is already initialised".into(),
            ));
        }
        for m in 0..self.subsystems.len() {
            let r = self.subsystems[m].enter_initialization_mode(None, t_start, Some(t_stop));
            r.map_err(|e| self.module_error(m, t_start, e))?;
        }
        for k in 0..self.graph.propagation_order().len() {
            match self.graph.propagation_order()[k] {
                Port::Output(o) => {
                    let m = self.graph.output_module(o);
                    let vr = [self.graph.output_value_ref(o)];
                    let r = self.subsystems[m].get_float64(&vr, &mut self.outputs[o..=o]);
                    r.map_err(|e| self.module_error(m, t_start, e))?;
                }
                Port::Input(i) => {
                    let m = self.graph.input_module(i);
                    let vr = [self.graph.input_value_ref(i)];
                    let value = [self.outputs[self.graph.source_of_input(i)]];
                    let r = self.subsystems[m].set_float64(&vr, &value);
                    r.map_err(|e| self.module_error(m, t_start, e))?;
                }
            }
        }
        for m in 0..self.subsystems.len() {
            let r = self.subsystems[m].exit_initialization_mode();
            r.map_err(|e| self.module_error(m, t_start, e))?;
            // With `eventModeUsed` the module starts in Event Mode (seed-004 digest §2.1).
            if self.options[m].event_mode_used && self.update_discrete_states(m, t_start)? {
                return Err(MasterError::Terminated {
                    t: t_start,
                    module: self.names[m].clone(),
                });
            }
        }
        // Modules may finalise their outputs on exit; these are the y0 the run starts from.
        for m in 0..self.subsystems.len() {
            self.read_outputs(m, t_start)?;
        }
        self.t_start = Some(t_start);
        Ok(())
    }

    /// Reads module `m`'s outputs into [`Self::outputs`]; a non-finite value is
    /// [`MasterError::Diverged`] naming the signal.
    pub fn read_outputs(&mut self, m: usize, t: f64) -> Result<(), MasterError> {
        let range = self.graph.output_range(m);
        let r = self.subsystems[m].get_float64(
            self.graph.output_value_refs(m),
            &mut self.outputs[range.clone()],
        );
        r.map_err(|e| self.module_error(m, t, e))?;
        match range.into_iter().find(|&o| !self.outputs[o].is_finite()) {
            Some(o) => Err(MasterError::Diverged {
                t,
                signal: self.graph.output_name(o).into(),
            }),
            None => Ok(()),
        }
    }

    /// Sets module `m`'s inputs (stacking order) to `values`.
    pub fn set_inputs(&mut self, m: usize, t: f64, values: &[f64]) -> Result<(), MasterError> {
        let r = self.subsystems[m].set_float64(self.graph.input_value_refs(m), values);
        r.map_err(|e| self.module_error(m, t, e))
    }

    /// Sets input derivatives of module `m` (`x-maxInputDerivativeOrder`).
    pub fn set_input_derivatives(
        &mut self,
        m: usize,
        t: f64,
        vrs: &[ValueRef],
        orders: &[u32],
        values: &[f64],
    ) -> Result<(), MasterError> {
        let r = self.subsystems[m].set_input_derivatives(vrs, orders, values);
        r.map_err(|e| self.module_error(m, t, e))
    }

    /// `fmi3DoStep` of module `m`; the report is returned unchecked.
    pub fn do_step(
        &mut self,
        m: usize,
        t: f64,
        h: f64,
        no_set_state_prior: bool,
    ) -> Result<StepReport, MasterError> {
        let r = self.subsystems[m].do_step(t, h, no_set_state_prior);
        r.map_err(|e| self.module_error(m, t, e))
    }

    /// Handles an event of module `m` at `t` (it reported `eventHandlingNeeded`):
    /// `fmi3EnterEventMode`, then the event iteration (`fmi3UpdateDiscreteStates` until done,
    /// `fmi3EnterStepMode`), and reads its new outputs. Returns true if the module asked to
    /// terminate (it then stays in Event Mode).
    pub fn handle_event(&mut self, m: usize, t: f64) -> Result<bool, MasterError> {
        let r = self.subsystems[m].enter_event_mode();
        r.map_err(|e| self.module_error(m, t, e))?;
        let terminate = self.update_discrete_states(m, t)?;
        self.read_outputs(m, t)?;
        Ok(terminate)
    }

    /// Event iteration of module `m` (in Event Mode): `fmi3UpdateDiscreteStates` until no
    /// further update is needed, then `fmi3EnterStepMode` unless it asked to terminate.
    /// Returns true if it asked to terminate.
    fn update_discrete_states(&mut self, m: usize, t: f64) -> Result<bool, MasterError> {
        for _ in 0..MAX_EVENT_ITERATIONS {
            let r = self.subsystems[m].update_discrete_states();
            let update = r.map_err(|e| self.module_error(m, t, e))?;
            if update.terminate_simulation {
                return Ok(true);
            }
            if !update.discrete_states_need_update {
                let r = self.subsystems[m].enter_step_mode();
                r.map_err(|e| self.module_error(m, t, e))?;
                return Ok(false);
            }
        }
        Err(MasterError::InvalidSettings(format!(
            "module `{}` still needs discrete-state updates after {MAX_EVENT_ITERATIONS} event iterations at t = {t} s",
            self.names[m]
        )))
    }

    /// `fmi3Terminate` on every module (after a finished run).
    pub fn terminate(&mut self, t: f64) -> Result<(), MasterError> {
        for m in 0..self.subsystems.len() {
            let r = self.subsystems[m].terminate();
            r.map_err(|e| self.module_error(m, t, e))?;
        }
        Ok(())
    }
}
