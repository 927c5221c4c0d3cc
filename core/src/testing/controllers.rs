//! Step controllers that reject on purpose. A correct driver restores every module, the
//! exchanged values and the algorithm's history after a rejection, so a run under these
//! controllers must give exactly the numbers of the plain [`FixedStep`] run.

use crate::error::{MasterError, RejectReason};
use crate::master::{FixedStep, StepController, StepDecision, StepDiagnostics, StepProposal};
use crate::time::FixedGrid;

/// The fixed grid, but every `every`-th attempt the algorithm completes is rejected and
/// repeated with the same step.
#[derive(Clone, Debug)]
pub struct RejectEvery {
    inner: FixedStep,
    every: u32,
    judged: u32,
    rejected: u32,
}

impl RejectEvery {
    /// Rejects attempts `every`, `2·every`, … (counting every judged attempt) on `grid`.
    pub fn new(grid: FixedGrid, every: u32) -> Self {
        RejectEvery {
            inner: FixedStep::new(grid),
            every: every.max(1),
            judged: 0,
            rejected: 0,
        }
    }

    /// Attempts rejected so far.
    pub fn rejected(&self) -> u32 {
        self.rejected
    }
}

impl StepController for RejectEvery {
    fn name(&self) -> &'static str {
        "reject_every"
    }
    fn t_start(&self) -> f64 {
        self.inner.t_start()
    }
    fn t_stop(&self) -> f64 {
        self.inner.t_stop()
    }
    fn nominal_step(&self) -> f64 {
        self.inner.nominal_step()
    }
    fn may_reject(&self) -> bool {
        true
    }
    fn variable_steps(&self) -> bool {
        false
    }
    fn propose(&mut self, t: f64) -> StepProposal {
        self.inner.propose(t)
    }
    fn judge(
        &mut self,
        t: f64,
        proposal: &StepProposal,
        h_taken: f64,
        diagnostics: &StepDiagnostics,
    ) -> Result<StepDecision, MasterError> {
        self.judged += 1;
        if self.judged % self.every == 0 {
            self.rejected += 1;
            return Ok(StepDecision::Reject {
                h_retry: proposal.h,
                reason: RejectReason::Controller("rejected by the test controller"),
            });
        }
        self.inner.judge(t, proposal, h_taken, diagnostics)
    }
    fn retry(&mut self, t: f64, h: f64, reason: &RejectReason) -> Option<f64> {
        self.inner.retry(t, h, reason)
    }
    fn finished(&self, t: f64) -> bool {
        self.inner.finished(t)
    }
}

/// The fixed grid, but each step is first attempted with `factor` times its size and
/// rejected, then repeated with the grid step. The attempt that was never kept must leave
/// no trace, whatever its size.
#[derive(Clone, Debug)]
pub struct RejectFirstTry {
    inner: FixedStep,
    factor: f64,
    /// The grid's proposal for the step in progress, while its first try is pending.
    pending: Option<StepProposal>,
}

impl RejectFirstTry {
    /// First tries of `factor` (> 0) times the grid step on `grid`.
    pub fn new(grid: FixedGrid, factor: f64) -> Self {
        RejectFirstTry {
            inner: FixedStep::new(grid),
            factor,
            pending: None,
        }
    }
}

impl StepController for RejectFirstTry {
    fn name(&self) -> &'static str {
        "reject_first_try"
    }
    fn t_start(&self) -> f64 {
        self.inner.t_start()
    }
    fn t_stop(&self) -> f64 {
        self.inner.t_stop()
    }
    fn nominal_step(&self) -> f64 {
        self.inner.nominal_step()
    }
    fn may_reject(&self) -> bool {
        true
    }
    fn variable_steps(&self) -> bool {
        true
    }
    fn propose(&mut self, t: f64) -> StepProposal {
        let grid = self.inner.propose(t);
        self.pending = Some(grid);
        StepProposal {
            h: grid.h * self.factor,
            t_end: grid.t_end,
        }
    }
    fn judge(
        &mut self,
        t: f64,
        _proposal: &StepProposal,
        h_taken: f64,
        diagnostics: &StepDiagnostics,
    ) -> Result<StepDecision, MasterError> {
        match self.pending {
            Some(grid) if _proposal.h != grid.h => Ok(StepDecision::Reject {
                h_retry: grid.h,
                reason: RejectReason::Controller("first try rejected by the test controller"),
            }),
            Some(grid) => {
                self.pending = None;
                self.inner.judge(t, &grid, h_taken, diagnostics)
            }
            None => Err(MasterError::InvalidSettings(
                "RejectFirstTry judged a step it did not propose".into(),
            )),
        }
    }
    fn retry(&mut self, t: f64, h: f64, reason: &RejectReason) -> Option<f64> {
        self.inner.retry(t, h, reason)
    }
    fn finished(&self, t: f64) -> bool {
        self.inner.finished(t)
    }
}
