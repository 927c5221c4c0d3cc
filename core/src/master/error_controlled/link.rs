//! [`ErrorStepControl`]: the driver's [`StepController`] for seed 002's error-controlled
//! coupling, and the [`ControlLink`] it shares with the algorithm (docs/architecture.md,
//! "The life of one macro-step"; docs/methods.md §14.11).
//!
//! Why the decision is made in the algorithm: the error test, order selection and step
//! size need the separate position and velocity norms, the coupling history with and
//! without the attempt's point, and the grid; [`super::ErrorControlledCoupling`] holds all
//! of them and owns the [`crate::master::error_control::MacroStepControl`]. After each
//! attempt it publishes the verdict (accepted or not, the next step `H_M`, the tested
//! norm) in the link; this controller answers the driver from it: `judge` accepts or
//! rejects with `H_M`, `propose` hands out `H_M`. The link is three atomics behind an
//! `Arc` (no lock, `Send`, no_std): the algorithm writes before the driver calls `judge`.

use crate::error::{MasterError, RejectReason};
use crate::master::error_control::ErrorControlSettings;
use crate::master::{StepController, StepDecision, StepDiagnostics, StepProposal};
use alloc::sync::Arc;
use core::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};

#[derive(Debug, Default)]
struct Verdict {
    accepted: AtomicBool,
    h_next: AtomicU64,
    error: AtomicU64,
    /// Corrector runs of an implicit attempt that did not converge (0: it did, or explicit).
    not_converged: AtomicU32,
}

/// The last verdict of an error-controlled algorithm, shared with its step controller.
#[derive(Clone, Debug, Default)]
pub struct ControlLink(Arc<Verdict>);

impl ControlLink {
    /// Publishes a verdict: whether the attempt passed, the next step (s) and the tested
    /// WRMS norm.
    pub fn publish(&self, accepted: bool, h_next: f64, error: f64) {
        self.0.accepted.store(accepted, Ordering::Release);
        self.0.h_next.store(h_next.to_bits(), Ordering::Release);
        self.0.error.store(error.to_bits(), Ordering::Release);
        self.0.not_converged.store(0, Ordering::Release);
    }

    /// Publishes a rejection because the implicit corrector did not converge in
    /// `iterations` runs; the next step is `h_next` (s).
    pub fn publish_not_converged(&self, h_next: f64, iterations: u32) {
        self.publish(false, h_next, f64::NAN);
        self.0
            .not_converged
            .store(iterations.max(1), Ordering::Release);
    }

    /// `(accepted, h_next, error)` of the last verdict.
    pub fn verdict(&self) -> (bool, f64, f64) {
        (
            self.0.accepted.load(Ordering::Acquire),
            f64::from_bits(self.0.h_next.load(Ordering::Acquire)),
            f64::from_bits(self.0.error.load(Ordering::Acquire)),
        )
    }
}

/// Steps chosen by seed 002's macro-step size and order control, through the link.
#[derive(Clone, Debug)]
pub struct ErrorStepControl {
    link: ControlLink,
    t_start: f64,
    t_stop: f64,
    h_first: f64,
    h_min: f64,
    h_next: f64,
    /// Output points every multiple of this from `t_start` (none: only the stop time).
    output_interval: Option<f64>,
    /// The step proposed before it was clipped to an output point (the last proposal).
    unclipped: Option<f64>,
}

impl ErrorStepControl {
    /// The controller of an algorithm with `settings` publishing in `link`: the first step
    /// `h_first` clamped to `H_max`, published as the pending proposal.
    pub fn linked(
        link: &ControlLink,
        settings: &ErrorControlSettings,
        t_start: f64,
        t_stop: f64,
        h_first: f64,
    ) -> Self {
        let h_first = h_first.min(settings.h_max);
        link.publish(true, h_first, 0.0);
        let mut c = Self::new(link.clone(), t_start, t_stop, h_first, settings.h_min);
        c.output_interval = settings.output_interval;
        c
    }

    /// The first output point after `t` (a point within `1e-9` of the interval of `t` counts
    /// as reached), before the stop time.
    fn next_output_point(&self, t: f64) -> Option<f64> {
        let d = self.output_interval?;
        let n = libm::floor((t - self.t_start) / d + 1e-9) + 1.0;
        Some(self.t_start + n * d).filter(|p| *p < self.t_stop)
    }

    /// A controller from `t_start` to `t_stop` starting with `h_first`; after a rejection
    /// the algorithm did not judge (a discarded module step) it retries with a quarter of
    /// the step (paper §5.3) down to `h_min`.
    pub fn new(link: ControlLink, t_start: f64, t_stop: f64, h_first: f64, h_min: f64) -> Self {
        ErrorStepControl {
            link,
            t_start,
            t_stop,
            h_first,
            h_min,
            h_next: h_first,
            output_interval: None,
            unclipped: None,
        }
    }
}

impl StepController for ErrorStepControl {
    fn name(&self) -> &'static str {
        "error"
    }

    fn t_start(&self) -> f64 {
        self.t_start
    }

    fn t_stop(&self) -> f64 {
        self.t_stop
    }

    fn nominal_step(&self) -> f64 {
        self.h_first
    }

    fn may_reject(&self) -> bool {
        true
    }

    fn variable_steps(&self) -> bool {
        true
    }

    fn propose(&mut self, t: f64) -> StepProposal {
        // A step that would leave a sliver of less than 1 % of itself before the stop time
        // (or the next output point) is stretched to it: the sliver's tiny step would
        // otherwise end the run at H_min. A longer one is clipped to it.
        let target = self.next_output_point(t).unwrap_or(self.t_stop);
        let rest = target - t;
        self.unclipped = None;
        if rest - self.h_next < 0.01 * self.h_next {
            if target < self.t_stop && rest < self.h_next {
                self.unclipped = Some(self.h_next);
            }
            return StepProposal {
                h: rest,
                t_end: target,
            };
        }
        StepProposal {
            h: self.h_next,
            t_end: t + self.h_next,
        }
    }

    fn judge(
        &mut self,
        t: f64,
        proposal: &StepProposal,
        h_taken: f64,
        _diagnostics: &StepDiagnostics,
    ) -> Result<StepDecision, MasterError> {
        let (accepted, h_next, error) = self.link.verdict();
        self.h_next = h_next;
        let unclipped = self.unclipped.take();
        if !accepted {
            let iterations = self.link.0.not_converged.load(Ordering::Acquire);
            let reason = if iterations > 0 {
                RejectReason::NotConverged { iterations }
            } else {
                RejectReason::ErrorTooLarge { error }
            };
            return Ok(StepDecision::Reject {
                h_retry: h_next,
                reason,
            });
        }
        // Land exactly on the proposed point (the stop time after the driver's clip) when
        // the step was taken in full.
        let end = t + h_taken;
        let tolerance = 1e-12 * h_taken.max(end.abs());
        let t_next = if (end - proposal.t_end).abs() <= tolerance {
            proposal.t_end
        } else if (end - self.t_stop).abs() <= tolerance {
            self.t_stop
        } else {
            end
        };
        // After a step clipped to an output point (and taken in full) that the control keeps
        // or grows, the steps resume from the one proposed before the clip: the clip is no
        // decision of the error control (pinned choice, docs/methods.md §14.11.5).
        if let Some(before) = unclipped.filter(|_| t_next == proposal.t_end && h_next >= h_taken) {
            self.h_next = h_next.max(before);
        }
        Ok(StepDecision::Accept { t_next })
    }

    fn retry(&mut self, _t: f64, h: f64, _reason: &RejectReason) -> Option<f64> {
        let h = 0.25 * h;
        self.h_next = h;
        (h > self.h_min).then_some(h)
    }

    fn finished(&self, t: f64) -> bool {
        t >= self.t_stop
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_controller_follows_the_verdict_and_stretches_a_step_that_would_leave_a_sliver() {
        let link = ControlLink::default();
        let mut c = ErrorStepControl::new(link.clone(), 0.0, 1.0, 0.1, 1e-12);
        assert_eq!(c.propose(0.0).h, 0.1);
        let p = c.propose(0.0);
        let d = StepDiagnostics::default();
        link.publish(false, 0.05, 3.0);
        let reject = c.judge(0.0, &p, 0.1, &d).unwrap();
        assert!(matches!(reject, StepDecision::Reject { h_retry, .. } if h_retry == 0.05));
        link.publish(true, 0.2, 0.5);
        let p = c.propose(0.0);
        assert_eq!(
            c.judge(0.0, &p, 0.05, &d).unwrap(),
            StepDecision::Accept { t_next: 0.05 }
        );
        // 0.2 from 0.799 would leave 0.001 < 1 % of 0.2: the step runs to the stop time.
        assert_eq!(
            c.propose(0.799),
            StepProposal {
                h: 1.0 - 0.799,
                t_end: 1.0
            }
        );
        assert_eq!(c.propose(0.5).h, 0.2);
        assert!(!c.finished(0.999) && c.finished(1.0));
    }
}
