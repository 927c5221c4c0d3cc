//! Event-aware macro-step of the explicit masters (seed-004 digest §2.3–2.4, §4.5 item 7).
//!
//! Modules are instantiated with `earlyReturnAllowed = mightReturnEarlyFromDoStep` and
//! `eventModeUsed = hasEventMode` ([`super::CoupledSystem::new`]). One macro-step from `t`
//! over `h`:
//! 1. Modules step in order (Jacobi: those that may return early first; Gauss-Seidel: the
//!    given sequence). If module `m` returns early at `t_e < t + h`:
//!    - if no other module has stepped yet, the macro-step is simply shortened: the rest
//!      step from `t` to `t_e` (`h_e = t_e − t`; their input polynomials are the same);
//!    - otherwise the modules that already reached `t + h` are rolled back to `t`
//!      (`fmi3SetFMUState` with the state saved at the step start) together with `m`, and
//!      the whole macro-step is repeated with `h_e` (modules that return early again at
//!      an even earlier time repeat this, so it ends).
//! 2. Every module that reported `eventHandlingNeeded` goes through Event Mode
//!    (`fmi3EnterEventMode`, `fmi3UpdateDiscreteStates` until done, `fmi3EnterStepMode`)
//!    once all modules are at the event time, and its outputs are read again.
//! 3. A module reporting `terminateSimulation` (from the step or the event update) ends the
//!    run after this step: [`MacroStepOutcome::Terminated`].
//!
//! Time then advances from `lastSuccessfulTime` = `t_e`: the next macro-step runs from `t_e`
//! to the next grid point ([`super::Run`]).
//!
//! Fallbacks, stated: a module that may return early forces shortened steps on everyone,
//! so every module must declare `canHandleVariableCommunicationStepSize` (refused in
//! `prepare` otherwise). A rollback needs `canGetAndSetFMUState` from each module it
//! touches; without it the step fails with [`MasterError::MissingCapability`] naming the
//! module. Jacobi with a single module that may return early never needs a rollback (that
//! module steps first); Gauss-Seidel avoids it when that module comes first in the
//! sequence. A module that returns early without advancing (`t_e = t`) is an error.

use super::explicit::ExplicitWork;
use super::{CoupledSystem, MacroStepOutcome};
use crate::error::MasterError;
use crate::module::{ModuleState, StepReport};
use alloc::format;
use alloc::vec;
use alloc::vec::Vec;

/// A step counts as complete if it ends within this fraction of `h` of `t + h`.
const TIME_TOLERANCE: f64 = 1e-9;

/// Per-run bookkeeping for early return, rollback and events (allocated in `prepare`).
#[derive(Debug)]
pub(super) struct EventWork {
    /// Jacobi stepping order: modules instantiated with `earlyReturnAllowed` first.
    jacobi_order: Vec<usize>,
    /// Whether states are saved at each step start (a rollback is possible).
    snapshots: bool,
    saved: Vec<Option<ModuleState>>,
    outputs_at_t: Vec<f64>,
    /// Modules stepped in the current attempt, in order.
    advanced: Vec<usize>,
    reports: Vec<Option<StepReport>>,
}

/// A clone starts without saved states: they are scratch for the step in progress.
impl Clone for EventWork {
    fn clone(&self) -> Self {
        EventWork {
            jacobi_order: self.jacobi_order.clone(),
            snapshots: self.snapshots,
            saved: self.saved.iter().map(|_| None).collect(),
            outputs_at_t: self.outputs_at_t.clone(),
            advanced: self.advanced.clone(),
            reports: self.reports.clone(),
        }
    }
}

impl EventWork {
    /// Checks what early return needs and plans the stepping order. `sequence` is the
    /// Gauss-Seidel order (`None` for Jacobi).
    pub(super) fn new(
        sys: &CoupledSystem,
        sequence: Option<&[usize]>,
    ) -> Result<Self, MasterError> {
        let n = sys.n_modules();
        let early: Vec<bool> = (0..n)
            .map(|m| sys.instantiate_options(m).early_return_allowed)
            .collect();
        if let Some(first) = early.iter().position(|&e| e) {
            for m in 0..n {
                if !sys.subsystems[m]
                    .description()
                    .capabilities
                    .can_handle_variable_communication_step_size
                {
                    return Err(MasterError::MissingCapability {
                        module: sys.names[m].clone(),
                        capability: "canHandleVariableCommunicationStepSize",
                        needed_by: format!(
                            "early return of module `{}` (every module must stop at its event times)",
                            sys.names[first]
                        ),
                    });
                }
            }
        }
        let count = early.iter().filter(|&&e| e).count();
        let mut jacobi_order: Vec<usize> = (0..n).filter(|&m| early[m]).collect();
        jacobi_order.extend((0..n).filter(|&m| !early[m]));
        let snapshots = match sequence {
            None => count >= 2,
            Some(seq) => {
                count >= 2
                    || seq
                        .iter()
                        .skip(1)
                        .any(|&m| early.get(m).copied().unwrap_or(false))
            }
        };
        Ok(EventWork {
            jacobi_order,
            snapshots,
            saved: (0..n).map(|_| None).collect(),
            outputs_at_t: vec![0.0; sys.graph.n_outputs()],
            advanced: Vec::with_capacity(n),
            reports: vec![None; n],
        })
    }

    /// `fmi3GetFMUState` of every module that can, at the step start.
    fn save(&mut self, sys: &mut CoupledSystem, t: f64) -> Result<(), MasterError> {
        self.outputs_at_t.copy_from_slice(sys.outputs());
        for m in 0..sys.n_modules() {
            self.saved[m] = if sys.subsystems[m]
                .description()
                .capabilities
                .can_get_and_set_fmu_state
            {
                let r = sys.subsystems[m].get_state();
                Some(r.map_err(|e| sys.module_error(m, t, e))?)
            } else {
                None
            };
        }
        Ok(())
    }

    /// Rolls the stepped modules and `early` back to `t` after `early` returned at `t_e`.
    fn roll_back(
        &mut self,
        sys: &mut CoupledSystem,
        early: usize,
        t: f64,
        t_e: f64,
    ) -> Result<(), MasterError> {
        self.advanced.push(early);
        for &m in &self.advanced {
            let Some(state) = self.saved[m].as_ref().filter(|_| self.snapshots) else {
                return Err(MasterError::MissingCapability {
                    module: sys.names[m].clone(),
                    capability: "canGetAndSetFMUState",
                    needed_by: format!(
                        "rolling back to t = {t} s because module `{}` returned early at t = {t_e} s \
                         (step the modules that may return early first)",
                        sys.names[early]
                    ),
                });
            };
            let r = sys.subsystems[m].set_state(state);
            r.map_err(|e| sys.module_error(m, t, e))?;
        }
        sys.outputs_mut().copy_from_slice(&self.outputs_at_t);
        Ok(())
    }
}

/// One macro-step from `t` over `h` (Jacobi if `sequence` is `None`), with early return,
/// rollback, Event Mode and termination as described in the module docs.
pub(super) fn macro_step(
    work: &mut ExplicitWork,
    sequence: Option<&[usize]>,
    sys: &mut CoupledSystem,
    t: f64,
    h: f64,
) -> Result<MacroStepOutcome, MasterError> {
    let n = sys.n_modules();
    let interpolate = sequence.is_some();
    if work.events.snapshots {
        work.events.save(sys, t)?;
    }
    let mut h_try = h;
    'attempt: loop {
        work.begin(t, h_try, interpolate)?;
        work.events.advanced.clear();
        work.events.reports.iter_mut().for_each(|r| *r = None);
        for k in 0..n {
            let m = sequence.map_or(work.events.jacobi_order[k], |s| s[k]);
            let report = work.advance_module(sys, m, t, h_try)?;
            let t_e = report.last_successful_time;
            if report.early_return && t_e < t + h_try - TIME_TOLERANCE * h_try {
                if t_e <= t || t_e.is_nan() {
                    return Err(MasterError::InvalidSettings(format!(
                        "module `{}` returned early at t = {t_e} s without advancing from t = {t} s; \
                         events at the communication point itself are not supported",
                        sys.names[m]
                    )));
                }
                if work.events.advanced.is_empty() {
                    // Nobody else has moved: the others simply stop at t_e too.
                    h_try = t_e - t;
                    work.begin(t, h_try, interpolate)?;
                    work.mark_stepped(m);
                } else {
                    work.events.roll_back(sys, m, t, t_e)?;
                    h_try = t_e - t;
                    continue 'attempt;
                }
            }
            work.events.advanced.push(m);
            work.events.reports[m] = Some(report);
        }
        break;
    }
    let t_end = t + h_try;
    let mut terminated = None;
    for m in 0..n {
        let Some(report) = work.events.reports[m] else {
            continue;
        };
        let mut terminate = report.terminate_simulation;
        if report.event_handling_needed && sys.instantiate_options(m).event_mode_used {
            terminate |= sys.handle_event(m, t_end)?;
        }
        if terminate && terminated.is_none() {
            terminated = Some(m);
        }
    }
    work.finish(sys, t_end);
    Ok(match terminated {
        Some(module) => MacroStepOutcome::Terminated {
            h_taken: h_try,
            module,
        },
        None => MacroStepOutcome::Accepted { h_taken: h_try },
    })
}
