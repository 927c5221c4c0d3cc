//! Step controllers that reject on purpose. A correct driver restores every module, the
//! exchanged values and the algorithm's history after a rejection, so a run under these
//! controllers must give exactly the numbers of the plain [`FixedStep`] run.
//!
//! Both are a [`FixedStep`] grid with a [`RejectionPolicy`] in front: the policy may enlarge
//! the proposal and may reject an attempt; whatever it lets through the grid judges.

use crate::error::{MasterError, RejectReason};
use crate::master::{FixedStep, StepController, StepDecision, StepDiagnostics, StepProposal};
use crate::time::FixedGrid;

/// What a test controller adds to the fixed grid.
pub trait RejectionPolicy: Send {
    /// Controller name for messages.
    const NAME: &'static str;
    /// Whether attempts of other sizes than the grid's are made.
    const VARIABLE_STEPS: bool;
    /// The step to attempt first, given the grid's proposal.
    fn propose(&mut self, grid: StepProposal) -> StepProposal {
        grid
    }
    /// `Some(retry step)` to reject an attempt asked as `asked` (`grid`: the grid's own
    /// proposal for this step).
    fn reject(&mut self, asked: &StepProposal, grid: &StepProposal) -> Option<f64>;
}

/// The fixed grid behind a [`RejectionPolicy`].
#[derive(Clone, Debug)]
pub struct Rejecting<P> {
    grid: FixedStep,
    /// The grid's proposal for the step in progress.
    current: Option<StepProposal>,
    policy: P,
    rejected: u32,
}

impl<P> Rejecting<P> {
    /// The grid `grid` behind `policy`.
    pub fn with_policy(grid: FixedGrid, policy: P) -> Self {
        Rejecting {
            grid: FixedStep::new(grid),
            current: None,
            policy,
            rejected: 0,
        }
    }

    /// Attempts rejected so far by the policy.
    pub fn rejected(&self) -> u32 {
        self.rejected
    }
}

impl<P: RejectionPolicy> StepController for Rejecting<P> {
    fn name(&self) -> &'static str {
        P::NAME
    }
    fn t_start(&self) -> f64 {
        self.grid.t_start()
    }
    fn t_stop(&self) -> f64 {
        self.grid.t_stop()
    }
    fn nominal_step(&self) -> f64 {
        self.grid.nominal_step()
    }
    fn may_reject(&self) -> bool {
        true
    }
    fn variable_steps(&self) -> bool {
        P::VARIABLE_STEPS
    }
    fn propose(&mut self, t: f64) -> StepProposal {
        let grid = self.grid.propose(t);
        self.current = Some(grid);
        self.policy.propose(grid)
    }
    fn judge(
        &mut self,
        t: f64,
        asked: &StepProposal,
        h_taken: f64,
        diagnostics: &StepDiagnostics,
    ) -> Result<StepDecision, MasterError> {
        let Some(grid) = self.current else {
            return Err(MasterError::InvalidSettings(
                "test controller judged a step it did not propose".into(),
            ));
        };
        if let Some(h_retry) = self.policy.reject(asked, &grid) {
            self.rejected += 1;
            return Ok(StepDecision::Reject {
                h_retry,
                reason: RejectReason::Controller("rejected by a test controller"),
            });
        }
        self.grid.judge(t, &grid, h_taken, diagnostics)
    }
    fn retry(&mut self, t: f64, h: f64, reason: &RejectReason) -> Option<f64> {
        self.grid.retry(t, h, reason)
    }
    fn finished(&self, t: f64) -> bool {
        self.grid.finished(t)
    }
}

/// Rejects every `n`-th judged attempt and repeats it with the same step.
#[derive(Clone, Debug)]
pub struct EveryNth {
    n: u32,
    judged: u32,
}

impl RejectionPolicy for EveryNth {
    const NAME: &'static str = "reject_every";
    const VARIABLE_STEPS: bool = false;
    fn reject(&mut self, asked: &StepProposal, _grid: &StepProposal) -> Option<f64> {
        self.judged += 1;
        (self.judged % self.n == 0).then_some(asked.h)
    }
}

/// Tries each step at `factor` times its size first, rejects that, and repeats it with
/// the grid step: an attempt never kept must leave no trace, whatever its size.
#[derive(Clone, Debug)]
pub struct LargerFirst {
    factor: f64,
}

impl RejectionPolicy for LargerFirst {
    const NAME: &'static str = "reject_first_try";
    const VARIABLE_STEPS: bool = true;
    fn propose(&mut self, grid: StepProposal) -> StepProposal {
        StepProposal {
            h: grid.h * self.factor,
            t_end: grid.t_end,
        }
    }
    fn reject(&mut self, asked: &StepProposal, grid: &StepProposal) -> Option<f64> {
        (asked.h != grid.h).then_some(grid.h)
    }
}

/// The fixed grid rejecting every `every`-th judged attempt.
pub type RejectEvery = Rejecting<EveryNth>;

/// The fixed grid trying `factor` times each step first.
pub type RejectFirstTry = Rejecting<LargerFirst>;

impl RejectEvery {
    /// Rejects attempts `every`, `2·every`, … (counting every judged attempt) on `grid`.
    pub fn new(grid: FixedGrid, every: u32) -> Self {
        Rejecting::with_policy(
            grid,
            EveryNth {
                n: every.max(1),
                judged: 0,
            },
        )
    }
}

impl RejectFirstTry {
    /// First tries of `factor` (> 0) times the grid step on `grid`.
    pub fn new(grid: FixedGrid, factor: f64) -> Self {
        Rejecting::with_policy(grid, LargerFirst { factor })
    }
}
