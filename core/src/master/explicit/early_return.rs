//! One explicit macro-step with early return, Event Mode and termination (docs/methods.md,
//! events and early return).
//!
//! Modules are instantiated with `earlyReturnAllowed = mightReturnEarlyFromDoStep` and
//! `eventModeUsed = hasEventMode` ([`crate::master::CoupledSystem::new`]). One attempt from
//! `t` over `h`:
//! 1. Modules step in the planned order ([`super::sequence`]). If module `m` returns early
//!    at `t_e < t + h`:
//!    - if no other module has stepped yet, the macro-step is simply shortened: the rest
//!      step from `t` to `t_e` (`h_e = t_e − t`; their input polynomials are the same);
//!    - otherwise the attempt is rejected with the retry step `h_e`: the driver restores
//!      every module that stepped from its checkpoint and repeats the attempt (modules that
//!      return early again at an even earlier time repeat this, so it ends).
//! 2. Every module that reported `eventHandlingNeeded` goes through Event Mode
//!    (`fmi3EnterEventMode`, `fmi3UpdateDiscreteStates` until done, `fmi3EnterStepMode`)
//!    once all modules are at the event time, and its outputs are read again.
//! 3. A module reporting `terminateSimulation` (from the step or the event update) ends the
//!    run after this step: [`MacroStepOutcome::Terminated`].
//!
//! A module that discards the step rejects the attempt. A module that returns early
//! without advancing (`t_e = t`) is an error.

use super::work::{step_slot, ExplicitWork};
use crate::error::{MasterError, RejectReason};
use crate::master::{CoupledSystem, Executor, MacroStepOutcome, ModuleSlot, Rejection, Sweep};

/// A step counts as complete if it ends within this fraction of `h` of `t + h`.
const TIME_TOLERANCE: f64 = 1e-9;

/// One attempted macro-step from `t` over `h`, as described in the module docs.
pub(super) fn macro_step(
    work: &mut ExplicitWork,
    executor: Option<&mut dyn Executor>,
    sys: &mut CoupledSystem,
    t: f64,
    h: f64,
) -> Result<MacroStepOutcome, MasterError> {
    let n = sys.n_modules();
    let mut h_try = h;
    work.begin(t, h_try)?;
    work.reports.iter_mut().for_each(|r| *r = None);
    let mut advanced = false;
    for k in 0..work.order.sequential().len() {
        let m = work.order.sequential()[k];
        let Some(report) = work.advance_module(sys, m, t, h_try)? else {
            return Ok(MacroStepOutcome::Rejected(Rejection {
                reason: RejectReason::Discarded {
                    module: sys.name(m).into(),
                },
                h_retry: None,
            }));
        };
        let t_e = report.last_successful_time;
        if report.early_return && t_e < t + h_try - TIME_TOLERANCE * h_try {
            if t_e <= t || t_e.is_nan() {
                return Err(MasterError::EarlyReturnWithoutProgress {
                    module: sys.name(m).into(),
                    t,
                    t_event: t_e,
                });
            }
            if !advanced {
                // Nobody else has moved: the others simply stop at t_e too.
                h_try = t_e - t;
                work.begin(t, h_try)?;
                work.mark_stepped(m);
            } else {
                return Ok(MacroStepOutcome::Rejected(Rejection {
                    reason: RejectReason::EarlyReturn {
                        module: sys.name(m).into(),
                        t_event: t_e,
                    },
                    h_retry: Some(t_e - t),
                }));
            }
        }
        advanced = true;
        work.reports[m] = Some(report);
    }
    if !work.order.in_sweep().is_empty() {
        if let Some(discarded) = sweep(work, executor, sys, t, h_try)? {
            return Ok(discarded);
        }
    }
    work.predictor().record(sys);
    let t_end = t + h_try;
    let mut terminated = None;
    for m in 0..n {
        let Some(report) = work.reports[m] else {
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
    Ok(match terminated {
        Some(module) => MacroStepOutcome::Terminated {
            h_taken: h_try,
            module,
        },
        None => MacroStepOutcome::accepted(h_try),
    })
}

/// Steps the modules that cannot return early in one sweep through the executor (their
/// inputs are predicted first, from the history only: Jacobi), or one after the other
/// without an executor ([`crate::master::Sequential`] without the indirection). Returns
/// the rejection if one of them discarded the step.
fn sweep(
    work: &mut ExplicitWork,
    executor: Option<&mut dyn Executor>,
    sys: &mut CoupledSystem,
    t: f64,
    h: f64,
) -> Result<Option<MacroStepOutcome>, MasterError> {
    for k in 0..work.order.in_sweep().len() {
        let m = work.order.in_sweep()[k];
        work.predict(sys, m);
    }
    let Some(executor) = executor else {
        // The first module of the sweep that discarded, noted as they step (no search).
        let mut first_discarded = None;
        for k in 0..work.order.in_sweep().len() {
            let m = work.order.in_sweep()[k];
            let report = step_slot(work.predictor(), &mut sys.slot(m), t, h, false)?;
            if report.is_none() && first_discarded.is_none() {
                first_discarded = Some(m);
            }
            work.reports[m] = report;
        }
        return Ok(first_discarded.map(|m| discarded_by(sys, m)));
    };
    let mut reports = core::mem::take(&mut work.reports);
    let predictor = work.predictor();
    let task = |slot: &mut ModuleSlot<'_>| step_slot(predictor, slot, t, h, false);
    let swept = executor.sweep(Sweep {
        sys,
        selected: &work.order.swept,
        task: &task,
        reports: &mut reports,
    });
    work.reports = reports;
    swept?;
    Ok(discarded(work, sys))
}

/// The rejection for the first module of the sweep that discarded the step, if any.
fn discarded(work: &ExplicitWork, sys: &CoupledSystem) -> Option<MacroStepOutcome> {
    let in_sweep = work.order.in_sweep();
    let m = *in_sweep.iter().find(|&&m| work.reports[m].is_none())?;
    Some(discarded_by(sys, m))
}

/// The rejection for module `m`, which discarded the step.
fn discarded_by(sys: &CoupledSystem, m: usize) -> MacroStepOutcome {
    MacroStepOutcome::Rejected(Rejection {
        reason: RejectReason::Discarded {
            module: sys.name(m).into(),
        },
        h_retry: None,
    })
}
