//! Step controllers: who decides the size of the next macro-step and whether an attempt
//! stands. The [`super::Run`] driver asks [`StepController::propose`] for a step, clips it at
//! the stop time, lets the algorithm attempt it, and hands the attempt to
//! [`StepController::judge`], which accepts it (naming the next communication point) or
//! rejects it (naming the retry step). On a rejection the driver restores every module
//! from its checkpoint, so a controller never touches a module.
//!
//! [`FixedStep`] is the fixed grid `t_n = t_start + n·h` of seed 000; error-, PI- and
//! defect-based controllers plug into the same seam.

use super::StepDiagnostics;
use crate::error::{MasterError, RejectReason};
use crate::time::FixedGrid;

/// The step the controller wants next.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StepProposal {
    /// Step size in s.
    pub h: f64,
    /// The communication point the full step lands on, exactly (a grid point is computed
    /// from its index, not as `t + h`).
    pub t_end: f64,
}

/// The controller's verdict on an attempt the algorithm completed.
#[derive(Clone, Debug, PartialEq)]
pub enum StepDecision {
    /// Keep the attempt; the run continues from `t_next`.
    Accept {
        /// The new communication point in s.
        t_next: f64,
    },
    /// Restore the modules and retry from the same start with `h_retry` (s).
    Reject {
        /// Retry step in s.
        h_retry: f64,
        /// Why.
        reason: RejectReason,
    },
}

/// Decides macro-step sizes. Implementations hold their own settings and counters.
pub trait StepController: Send {
    /// Short name for messages (e.g. `fixed`).
    fn name(&self) -> &'static str;

    /// Start time of the run in s.
    fn t_start(&self) -> f64;

    /// Stop time of the run in s: the last communication point.
    fn t_stop(&self) -> f64;

    /// The first (nominal) step in s, handed to the algorithm's `prepare`.
    fn nominal_step(&self) -> f64;

    /// Whether [`Self::judge`] may reject an attempt the algorithm completed (the driver
    /// then checkpoints every step and refuses modules that cannot save their state).
    fn may_reject(&self) -> bool;

    /// Whether step sizes may vary (other than steps shortened by events or to end on the
    /// stop time).
    fn variable_steps(&self) -> bool;

    /// The step to attempt from communication point `t`.
    fn propose(&mut self, t: f64) -> StepProposal;

    /// Judges an attempt from `t` that was proposed as `proposal`, tried with `h` (shorter
    /// after an early return) and completed with `h_taken`.
    fn judge(
        &mut self,
        t: f64,
        proposal: &StepProposal,
        h_taken: f64,
        diagnostics: &StepDiagnostics,
    ) -> Result<StepDecision, MasterError>;

    /// The algorithm itself rejected an attempt of `h` from `t` for `reason` without
    /// suggesting a step: the step to retry with, or `None` if this controller cannot retry.
    fn retry(&mut self, t: f64, h: f64, reason: &RejectReason) -> Option<f64>;

    /// Whether the run has reached its end at communication point `t`.
    fn finished(&self, t: f64) -> bool;
}

/// Steps within this fraction of `h` of the requested step count as full steps.
const FULL_STEP_TOLERANCE: f64 = 1e-12;

/// The fixed macro-step grid `t_n = t_start + n·h`, with a shorter last step when the stop
/// time is not a whole number of steps. A step shortened by an event (early return) lands
/// off the grid; the next step then runs to the next grid point, so the grid never drifts.
/// It never rejects and never retries a step.
#[derive(Clone, Debug)]
pub struct FixedStep {
    grid: FixedGrid,
    /// Grid steps completed: the next grid point is `grid.time(steps_done + 1)`.
    steps_done: u32,
}

impl FixedStep {
    /// The controller for `grid`.
    pub fn new(grid: FixedGrid) -> Self {
        FixedStep {
            grid,
            steps_done: 0,
        }
    }

    /// The grid.
    pub fn grid(&self) -> &FixedGrid {
        &self.grid
    }

    /// Grid steps completed.
    pub fn steps_done(&self) -> u32 {
        self.steps_done
    }
}

impl StepController for FixedStep {
    fn name(&self) -> &'static str {
        "fixed"
    }

    fn t_start(&self) -> f64 {
        self.grid.t_start
    }

    fn t_stop(&self) -> f64 {
        self.grid.t_stop
    }

    fn nominal_step(&self) -> f64 {
        self.grid.h
    }

    fn may_reject(&self) -> bool {
        false
    }

    fn variable_steps(&self) -> bool {
        false
    }

    fn propose(&mut self, t: f64) -> StepProposal {
        let t_end = self.grid.time(self.steps_done + 1);
        // On the grid the step is exactly h (or the shorter last one); after an event it is
        // the rest up to t_{n+1}.
        let h = if t == self.grid.time(self.steps_done) {
            self.grid.step(self.steps_done)
        } else {
            t_end - t
        };
        StepProposal { h, t_end }
    }

    fn judge(
        &mut self,
        t: f64,
        proposal: &StepProposal,
        h_taken: f64,
        _diagnostics: &StepDiagnostics,
    ) -> Result<StepDecision, MasterError> {
        let h = proposal.h;
        if (h_taken - h).abs() <= FULL_STEP_TOLERANCE * self.grid.h {
            self.steps_done += 1;
            Ok(StepDecision::Accept {
                t_next: proposal.t_end,
            })
        } else if h_taken >= 0.0 && h_taken < h {
            Ok(StepDecision::Accept {
                t_next: t + h_taken,
            })
        } else {
            Err(MasterError::StepOutOfRange {
                algorithm: "the algorithm",
                t,
                h_taken,
                h,
            })
        }
    }

    fn retry(&mut self, _t: f64, _h: f64, _reason: &RejectReason) -> Option<f64> {
        None
    }

    fn finished(&self, _t: f64) -> bool {
        self.steps_done >= self.grid.steps
    }
}
