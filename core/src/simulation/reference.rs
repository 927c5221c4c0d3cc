//! The reference of a [`super::Simulation`]: which one a scenario gets (exact for linear
//! scenarios, the coupled equations integrated as one system when every module exposes
//! them, otherwise none with the reason) and how it follows the recorded points.

use super::build_module;
use super::run::SimulationResult;
use crate::analysis::reference::{
    CoupledEquations, IntegratedReference, ReferenceIntegrator, SampledLinearReference, TightBdf,
    TightDopri45,
};
use crate::analysis::{LinearBlock, MonolithicReference, Reference};
use crate::error::{CosimError, MasterError};
use crate::master::error_control::HISTORY_CAPACITY;
use crate::master::CoupledSystem;
use crate::scenario::{StartUp, StepControlSpec, ValidatedScenario};
use alloc::boxed::Box;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

/// Exact start-up history `(t, y)`, oldest first.
type History = Vec<(f64, Vec<f64>)>;

/// The reference of a run and how far it follows the recorded points.
pub(super) struct ReferenceState {
    pub reference: Option<Reference>,
    /// Why there is none, or why it stopped.
    pub note: Option<String>,
    /// The reference stopped; later rows are NaN.
    pub failed: bool,
}

impl ReferenceState {
    /// Adds the reference at every communication point recorded since the last call. A
    /// failing reference does not stop the run: its note says why, later rows are NaN.
    pub fn follow(&mut self, result: &mut SimulationResult) {
        let Some(reference) = self.reference.as_mut() else {
            return;
        };
        let Some(done) = result.signals.first().and_then(|s| s.reference.as_ref()) else {
            return;
        };
        for i in done.len()..result.time.len() {
            let t = result.time[i];
            let row = match (self.failed, reference.advance_to(t)) {
                (false, Ok(y)) => Some(y),
                (false, Err(e)) => {
                    self.failed = true;
                    self.note = Some(format!("the reference stopped at t = {t} s: {e}"));
                    None
                }
                (true, _) => None,
            };
            for (j, s) in result.signals.iter_mut().enumerate() {
                if let Some(r) = s.reference.as_mut() {
                    r.push(row.map_or(f64::NAN, |y| y[j]));
                }
            }
        }
    }
}

/// The reference the scenario gets, the exact history for `exact_history`, and the
/// reason when there is no reference. The exact linear reference is used whenever the
/// scenario is linear (as before: also for `exact_history` without `reference`); the
/// integrated one when `reference` is on and every module exposes its equations.
pub(super) fn reference_for(
    v: &ValidatedScenario,
    system: &mut CoupledSystem,
) -> Result<(Option<Reference>, Option<History>, Option<String>), CosimError> {
    let s = &v.scenario;
    let grid = v.grid;
    let exact_history = s.master.start_up == StartUp::ExactHistory;
    if v.reference_available && (s.reference || exact_history) {
        let mut blocks = Vec::with_capacity(system.n_modules());
        for (name, sub) in system.modules_mut() {
            let block = LinearBlock::from_subsystem(sub).map_err(|error| MasterError::Module {
                module: name.into(),
                t: grid.t_start,
                error,
            })?;
            blocks.push(block);
        }
        let exact = MonolithicReference::new(&blocks, &system.graph().coupling_matrix())?;
        // Error control starts with the k_max + 2 past points its order control can use.
        let past = match s.master.step_control {
            Some(StepControlSpec::Error(_)) => (HISTORY_CAPACITY - 1) as u32,
            _ => s.master.extrapolation_order,
        };
        let history = match exact_history {
            true => Some(exact.history(grid.t_start, grid.h, past)?),
            false => None,
        };
        let sampled = SampledLinearReference::new(exact, grid.t_start, grid.h)
            .map_err(|e| MasterError::InvalidSettings(e.to_string()))?;
        return Ok((Some(Reference::Exact(sampled)), history, None));
    }
    if !s.reference {
        return Ok((None, None, None));
    }
    if let Some(chain) = &s.chain {
        return Ok(super::chain_reference::for_chain(chain, v));
    }
    match integrated(v, system) {
        Ok(r) => Ok((Some(Reference::Integrated(r)), None, None)),
        Err(why) => Ok((None, None, Some(why))),
    }
}

/// The coupled equations over a second set of module instances (the run's own are
/// stepped by the master), integrated at tight tolerance; `Err` is the reason there is
/// none. Modules are checked for `x-exposesEquations` before any is built again.
fn integrated(
    v: &ValidatedScenario,
    system: &mut CoupledSystem,
) -> Result<IntegratedReference, String> {
    let s = &v.scenario;
    for m in 0..system.n_modules() {
        if !system
            .subsystem(m)
            .description()
            .capabilities
            .x_exposes_equations
        {
            return Err(format!(
                "module `{}` does not expose its equations",
                system.name(m)
            ));
        }
    }
    let mut modules = Vec::with_capacity(s.modules.len());
    for spec in &s.modules {
        let m = build_module(spec).map_err(|e| format!("module `{}`: {e}", spec.name))?;
        modules.push((spec.name.clone(), m));
    }
    let connections: Vec<(String, String)> = s
        .connections
        .iter()
        .map(|c| (c.from.clone(), c.to.clone()))
        .collect();
    let grid = v.grid;
    let t_stop = grid.t_stop;
    let equations = CoupledEquations::build(modules, &connections, grid.t_start, t_stop)
        .map_err(|e| e.to_string())?;
    // Modules that integrate with a stiff method (BDF) are stiff: the reference takes BDF too.
    let mut stiff = false;
    for m in 0..system.n_modules() {
        stiff |= system.subsystem_mut(m).equations_stiff().unwrap_or(false);
    }
    let n = equations.n_states();
    let integrator: Box<dyn ReferenceIntegrator> = match stiff {
        true => Box::new(TightBdf::new(n)),
        false => Box::new(TightDopri45::new(n)),
    };
    IntegratedReference::new(equations, integrator).map_err(|e| e.to_string())
}
