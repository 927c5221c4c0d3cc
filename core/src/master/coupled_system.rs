//! [`CoupledSystem`]: the modules (as FMI-checked [`Subsystem`]s), their validated
//! coupling graph, and the stacked inputs applied and outputs read at the current
//! communication point. Algorithms drive it through the small helpers here, which map
//! module failures to [`MasterError`]s naming the module and the time. The fields are
//! private: module order, names, graph and the stacked vectors stay consistent, and the
//! system tracks which modules stepped since the last checkpoint
//! ([`super::Checkpoint`]), so a rollback restores exactly those.
//!
//! Typical use: `new` → `initialize` → (optionally read linear blocks or states from the
//! subsystems, which are then in Step Mode with nothing set) → [`super::Run::new`].

use super::ModuleSlot;
use crate::coupling::{CouplingGraph, Port};
use crate::error::{CosimError, MasterError};
use crate::module::{
    InstantiateOptions, Module, ModuleDescription, ModuleError, StepReport, Subsystem, ValueRef,
};
use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

/// Modules, connections, current inputs and outputs.
pub struct CoupledSystem {
    /// The modules, in stacking order.
    subsystems: Vec<Subsystem>,
    /// Instance names, parallel to `subsystems`.
    names: Vec<String>,
    graph: CouplingGraph,
    /// Stacked outputs; module `m` owns `graph.output_range(m)`.
    outputs: Vec<f64>,
    /// Stacked input values last applied; module `m` owns `graph.input_range(m)`.
    inputs: Vec<f64>,
    options: Vec<InstantiateOptions>,
    /// Modules stepped (or otherwise changed) since the last checkpoint.
    changed: Vec<bool>,
    /// Offsets added to every applied input value, set by a [`super::StepHook`] (empty
    /// when no hook is installed, so plain runs add nothing, not even `0.0`).
    input_offsets: Vec<f64>,
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
            // Named like any failure in a run, so a binary module's own refusal (a wrong
            // instantiationToken, a missing resource) says which module.
            let subsystem =
                Subsystem::instantiate(module, o).map_err(|error| MasterError::Module {
                    module: name.clone(),
                    t: f64::NAN,
                    error,
                })?;
            subsystems.push(subsystem);
            options.push(o);
            names.push(name);
        }
        let outputs = vec![0.0; graph.n_outputs()];
        let inputs = vec![0.0; graph.n_inputs()];
        let changed = vec![false; subsystems.len()];
        Ok(CoupledSystem {
            subsystems,
            names,
            graph,
            outputs,
            inputs,
            options,
            changed,
            input_offsets: Vec::new(),
            t_start: None,
        })
    }

    /// Module `m` (FMI-checked).
    pub fn subsystem(&self, m: usize) -> &Subsystem {
        &self.subsystems[m]
    }

    /// Module `m`, for direct FMI calls (reading Jacobians, states, parameters). A call
    /// that changes its state should be followed by [`Self::mark_changed`] when a rollback
    /// may follow.
    pub fn subsystem_mut(&mut self, m: usize) -> &mut Subsystem {
        &mut self.subsystems[m]
    }

    /// Instance name of module `m`.
    pub fn name(&self, m: usize) -> &str {
        &self.names[m]
    }

    /// Instance names, in stacking order.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The validated connections.
    pub fn graph(&self) -> &CouplingGraph {
        &self.graph
    }

    /// Every module with its name, for reading all of them (e.g. linear blocks).
    pub fn modules_mut(&mut self) -> impl Iterator<Item = (&str, &mut Subsystem)> {
        self.names
            .iter()
            .map(String::as_str)
            .zip(self.subsystems.iter_mut())
    }

    /// Stacked input values last applied (set in Initialization Mode or before a step).
    pub fn inputs(&self) -> &[f64] {
        &self.inputs
    }

    /// Records `applied` (all stacked inputs) as the inputs applied in this attempt.
    pub fn record_inputs(&mut self, applied: &[f64]) {
        self.inputs.copy_from_slice(applied);
    }

    /// Offsets to add to the applied input values, if a step hook is installed.
    pub fn input_offsets(&self) -> Option<&[f64]> {
        (!self.input_offsets.is_empty()).then_some(self.input_offsets.as_slice())
    }

    /// Turns the input offsets on (all 0) or off.
    pub(super) fn set_input_offsets(&mut self, on: bool) {
        self.input_offsets = if on {
            vec![0.0; self.inputs.len()]
        } else {
            Vec::new()
        };
    }

    /// The input offsets, writable by the driver.
    pub(super) fn input_offsets_mut(&mut self) -> &mut [f64] {
        &mut self.input_offsets
    }

    /// Marks module `m` as changed since the last checkpoint (a rollback restores it).
    pub fn mark_changed(&mut self, m: usize) {
        self.changed[m] = true;
    }

    /// Whether module `m` changed since the last checkpoint.
    pub fn changed(&self, m: usize) -> bool {
        self.changed[m]
    }

    /// Forgets which modules changed (a checkpoint was just saved or restored).
    pub(super) fn clear_changed(&mut self) {
        self.changed.iter_mut().for_each(|c| *c = false);
    }

    /// Stacked inputs and outputs, writable for restoring a checkpoint.
    pub(super) fn exchange_mut(&mut self) -> (&mut [f64], &mut [f64]) {
        (&mut self.inputs, &mut self.outputs)
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

    /// Replaces the exchanged outputs by corrected ones (a model-based corrector exchanges ȳ
    /// instead of the raw y, docs/methods.md §8.6). Only algorithms may do this.
    pub(super) fn exchange_outputs(&mut self, corrected: &[f64]) {
        self.outputs.copy_from_slice(corrected);
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
                    self.inputs[i] = value[0];
                    let r = self.subsystems[m].set_float64(&vr, &value);
                    r.map_err(|e| self.module_error(m, t_start, e))?;
                }
            }
        }
        for m in 0..self.subsystems.len() {
            let r = self.subsystems[m].exit_initialization_mode();
            r.map_err(|e| self.module_error(m, t_start, e))?;
            // With `eventModeUsed` the module starts in Event Mode (docs/methods.md §6.2).
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

    /// Module `m` with its own slices of the exchanged values.
    #[inline]
    pub fn slot(&mut self, m: usize) -> ModuleSlot<'_> {
        let (inputs, outputs) = (self.graph.input_range(m), self.graph.output_range(m));
        ModuleSlot {
            index: m,
            name: &self.names[m],
            subsystem: &mut self.subsystems[m],
            inputs: &mut self.inputs[inputs],
            outputs: &mut self.outputs[outputs],
            changed: &mut self.changed[m],
            graph: &self.graph,
        }
    }

    /// Every module with its own slices, borrowed apart (modules own contiguous ranges of
    /// the stacked vectors, in module order), so they can be stepped at the same time.
    pub fn slots(&mut self) -> impl Iterator<Item = ModuleSlot<'_>> {
        let graph = &self.graph;
        let (mut inputs, mut outputs) = (self.inputs.as_mut_slice(), self.outputs.as_mut_slice());
        self.names
            .iter()
            .zip(self.subsystems.iter_mut())
            .zip(self.changed.iter_mut())
            .enumerate()
            .map(move |(m, ((name, subsystem), changed))| {
                let (u, rest) =
                    core::mem::take(&mut inputs).split_at_mut(graph.input_range(m).len());
                inputs = rest;
                let (y, rest) =
                    core::mem::take(&mut outputs).split_at_mut(graph.output_range(m).len());
                outputs = rest;
                ModuleSlot {
                    index: m,
                    name,
                    subsystem,
                    inputs: u,
                    outputs: y,
                    changed,
                    graph,
                }
            })
    }

    /// Reads module `m`'s outputs into [`Self::outputs`]; a non-finite value is
    /// [`MasterError::Diverged`] naming the signal.
    pub fn read_outputs(&mut self, m: usize, t: f64) -> Result<(), MasterError> {
        self.slot(m).read_outputs(t)
    }

    /// Reads module `m`'s outputs into `out` without exchanging them (e.g. a perturbed step
    /// of a finite difference).
    pub fn get_outputs_into(
        &mut self,
        m: usize,
        t: f64,
        out: &mut [f64],
    ) -> Result<(), MasterError> {
        let r = self.subsystems[m].get_float64(self.graph.output_value_refs(m), out);
        r.map_err(|e| self.module_error(m, t, e))
    }

    /// Sets module `m`'s inputs (stacking order) to `values`.
    pub fn set_inputs(&mut self, m: usize, t: f64, values: &[f64]) -> Result<(), MasterError> {
        self.slot(m).set_inputs(t, values)
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
        self.slot(m).set_input_derivatives(t, vrs, orders, values)
    }

    /// `fmi3DoStep` of module `m`; the report is returned unchecked.
    pub fn do_step(
        &mut self,
        m: usize,
        t: f64,
        h: f64,
        no_set_state_prior: bool,
    ) -> Result<StepReport, MasterError> {
        self.slot(m).do_step(t, h, no_set_state_prior)
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
        Err(MasterError::EventIterationLimit {
            module: self.names[m].clone(),
            t,
            iterations: MAX_EVENT_ITERATIONS,
        })
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
