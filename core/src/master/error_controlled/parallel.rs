//! [`step_selected`] and [`step_module`]: one integration of the error-controlled masters
//! (the actual run, a comparative run, a corrector run, a round of finite-difference
//! perturbations) over the chosen modules, one after the other or through the driver's
//! [`Executor`] (threads, or processes with `cosim run --mpi`; docs/methods.md §16.3, §16.6).
//!
//! One module's step is [`step_slot`] and what its report asks of the master afterwards
//! (a discard, a terminate request, an event) is [`after_step`], whoever stepped it: the
//! sequential loop calls both per module; with an executor the modules step at the same time
//! and the reports are then handled in module order, as the sequential loop meets them. A
//! module's arithmetic does not depend on the others, so the numbers are those of the
//! sequential loop for every executor. One difference in what is left behind: after a
//! discard or a terminate request the modules after it have stepped too (the driver restores
//! every changed module on a rejection).

use crate::error::{MasterError, RejectReason};
use crate::master::{CoupledSystem, Executor, MacroStepOutcome, ModuleSlot, Rejection, Sweep};
use crate::module::{Status, StepReport};
use alloc::vec;
use alloc::vec::Vec;

/// How an integration over the step ended, when it did not end normally.
pub(crate) type Interrupted = Option<MacroStepOutcome>;

/// Steps every module `m` with `selected[m]` over `[t, t + h]` on the inputs set and reads
/// its outputs: one after the other without an executor, through `executor` otherwise.
pub(crate) fn step_selected(
    sys: &mut CoupledSystem,
    selected: &[bool],
    executor: Option<&mut (dyn Executor + 'static)>,
    t: f64,
    h: f64,
) -> Result<Interrupted, MasterError> {
    let Some(executor) = executor else {
        for m in (0..sys.n_modules()).filter(|&m| selected[m]) {
            if let Some(out) = step_module(sys, m, t, h)? {
                return Ok(Some(out));
            }
        }
        return Ok(None);
    };
    let event_mode: Vec<bool> = (0..sys.n_modules())
        .map(|m| sys.instantiate_options(m).event_mode_used)
        .collect();
    let mut reports: Vec<Option<StepReport>> = vec![None; sys.n_modules()];
    let task = |slot: &mut ModuleSlot<'_>| step_slot(slot, event_mode[slot.index], t, h);
    executor.sweep(Sweep {
        sys,
        selected,
        task: &task,
        reports: &mut reports,
    })?;
    for m in (0..sys.n_modules()).filter(|&m| selected[m]) {
        if let Some(out) = after_step(sys, m, reports[m], event_mode[m], t, h)? {
            return Ok(Some(out));
        }
    }
    Ok(None)
}

/// Steps module `m` over `[t, t + h]` and reads its outputs (handling an event it reports);
/// `Some` when the module discarded the step or asked to terminate. Shared by the explicit
/// and implicit error-controlled schemes.
pub(crate) fn step_module(
    sys: &mut CoupledSystem,
    m: usize,
    t: f64,
    h: f64,
) -> Result<Interrupted, MasterError> {
    let event_mode = sys.instantiate_options(m).event_mode_used;
    let report = step_slot(&mut sys.slot(m), event_mode, t, h)?;
    after_step(sys, m, report, event_mode, t, h)
}

/// One module's step: its report, and its outputs read unless it discarded (`None`), asks
/// to terminate or has an event to handle first.
fn step_slot(
    slot: &mut ModuleSlot<'_>,
    event_mode_used: bool,
    t: f64,
    h: f64,
) -> Result<Option<StepReport>, MasterError> {
    // Every run of an attempt may be followed by a restore to `t`: not "no set state prior".
    let report = slot.do_step(t, h, false)?;
    if report.status == Status::Discard {
        return Ok(None);
    }
    let event = report.event_handling_needed && event_mode_used;
    if !report.terminate_simulation && !event {
        slot.read_outputs(t + h)?;
    }
    Ok(Some(report))
}

/// What module `m`'s report on its step over `[t, t + h]` (`None`: discarded) asks of the
/// master: a rejection, the end of the run, or its event handled (which reads its outputs).
fn after_step(
    sys: &mut CoupledSystem,
    m: usize,
    report: Option<StepReport>,
    event_mode_used: bool,
    t: f64,
    h: f64,
) -> Result<Interrupted, MasterError> {
    let Some(report) = report else {
        return Ok(Some(MacroStepOutcome::Rejected(Rejection {
            reason: RejectReason::Discarded {
                module: sys.name(m).into(),
            },
            h_retry: None,
        })));
    };
    if report.terminate_simulation {
        return Ok(Some(MacroStepOutcome::Terminated {
            h_taken: h,
            module: m,
        }));
    }
    if report.event_handling_needed && event_mode_used {
        sys.handle_event(m, t + h)?;
    }
    Ok(None)
}
