//! [`DefectControl`]: the PI step-size controller of docs/methods.md §15.5 (eqn 39), a
//! controller on the logarithm of the controlled defect `ε_k` that never rejects:
//!
//! ```text
//! e_k = ln(tol) − ln max(ε_k, 1e-16),   I* = I_k + K_I e_k,   H = exp(I* + K_P e_k)
//! h_{k+1} = min(H, 2 h_k),   I_{k+1} = I* + ln h_{k+1} − ln H,   I_0 = ln h_0
//! ```
//!
//! with `K_P = 0.13`, `K_I = 1/15`. Unlike the authors' loop, which stops once the summed
//! steps pass the end time (and so overshoots it), the last step lands exactly on the stop
//! time: [`DefectControl::propose`] clips a step that would pass it, or that would fall
//! short of it by a rounding error.

use crate::error::{MasterError, RejectReason};
use crate::master::{StepController, StepDecision, StepDiagnostics, StepProposal};
use crate::time::MAX_MACRO_STEPS;
use alloc::format;

/// Proportional gain `K_P` (eqn 50).
pub const K_P: f64 = 0.13;
/// Integral gain `K_I` (eqn 50).
pub const K_I: f64 = 1.0 / 15.0;
/// Largest growth of the step from one step to the next.
pub const MAX_GROWTH: f64 = 2.0;
/// Floor of `ε_k` before its logarithm is taken.
pub const DEFECT_FLOOR: f64 = 1e-16;

/// A proposal ending closer than this fraction of its step to the stop time lands on it
/// (no sliver of a last step from rounding).
const LAND_ON_STOP: f64 = 1e-9;

/// The PI law alone (no time bookkeeping): the integral state and the next step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PiLaw {
    /// Tolerance on the controlled defect.
    pub tol: f64,
    /// Integral state `I_k` (a logarithm of a step in s).
    pub integral: f64,
}

impl PiLaw {
    /// The law starting from `h0` (`I_0 = ln h0`).
    pub fn new(tol: f64, h0: f64) -> Self {
        PiLaw {
            tol,
            integral: libm::log(h0),
        }
    }

    /// The step after a step of `h` whose controlled defect was `eps`; updates the integral
    /// state with anti-windup (the integral keeps only what the growth limit let through).
    pub fn next(&mut self, h: f64, eps: f64) -> f64 {
        let e = libm::log(self.tol) - libm::log(eps.max(DEFECT_FLOOR));
        let integral = self.integral + K_I * e;
        let log_wanted = integral + K_P * e;
        let log_next = log_wanted.min(libm::log(MAX_GROWTH * h));
        self.integral = integral + log_next - log_wanted;
        libm::exp(log_next)
    }
}

/// Variable steps from the controlled defect of each accepted step; never rejects, so it
/// never needs a module's state saved.
#[derive(Clone, Debug)]
pub struct DefectControl {
    t_start: f64,
    t_stop: f64,
    h0: f64,
    law: PiLaw,
    /// The step to propose next.
    h_next: f64,
    /// Accepted steps so far.
    steps: u32,
    /// True once a step landed on the stop time.
    done: bool,
}

impl DefectControl {
    /// Steps from `t_start` to `t_stop`, starting with `h0`, holding `ε_k` near `tol`.
    /// Fails unless `tol > 0`, `h0 > 0` and the interval is non-empty (all finite).
    pub fn new(t_start: f64, t_stop: f64, h0: f64, tol: f64) -> Result<Self, MasterError> {
        let finite = t_start.is_finite() && t_stop.is_finite();
        if !(finite && t_stop > t_start && h0.is_finite() && h0 > 0.0) {
            return Err(MasterError::InvalidSettings(format!(
                "defect control needs a finite interval and an initial step > 0 \
                 (start {t_start} s, stop {t_stop} s, h0 {h0} s)"
            )));
        }
        if !(tol.is_finite() && tol > 0.0) {
            return Err(MasterError::InvalidSettings(format!(
                "the defect tolerance must be > 0, got {tol}"
            )));
        }
        Ok(DefectControl {
            t_start,
            t_stop,
            h0,
            law: PiLaw::new(tol, h0),
            h_next: h0,
            steps: 0,
            done: false,
        })
    }

    /// Accepted steps so far.
    pub fn steps(&self) -> u32 {
        self.steps
    }
}

impl StepController for DefectControl {
    fn name(&self) -> &'static str {
        "defect"
    }

    fn t_start(&self) -> f64 {
        self.t_start
    }

    fn t_stop(&self) -> f64 {
        self.t_stop
    }

    fn nominal_step(&self) -> f64 {
        self.h0
    }

    fn may_reject(&self) -> bool {
        false
    }

    fn variable_steps(&self) -> bool {
        true
    }

    fn propose(&mut self, t: f64) -> StepProposal {
        let h = self.h_next;
        if self.t_stop - (t + h) <= LAND_ON_STOP * h {
            return StepProposal {
                h: self.t_stop - t,
                t_end: self.t_stop,
            };
        }
        StepProposal { h, t_end: t + h }
    }

    fn judge(
        &mut self,
        t: f64,
        proposal: &StepProposal,
        h_taken: f64,
        diagnostics: &StepDiagnostics,
    ) -> Result<StepDecision, MasterError> {
        let eps = diagnostics.defect.unwrap_or(0.0);
        if !eps.is_finite() {
            return Err(MasterError::StepRejected {
                t,
                h: h_taken,
                reason: RejectReason::Controller("the controlled defect is not finite"),
            });
        }
        self.steps += 1;
        if self.steps > MAX_MACRO_STEPS {
            return Err(MasterError::InvalidSettings(format!(
                "defect control took more than {MAX_MACRO_STEPS} macro-steps before t = {} s \
                 (reached {t} s); raise the tolerance",
                self.t_stop
            )));
        }
        let full = h_taken >= proposal.h * (1.0 - 1e-12);
        let t_next = if full { proposal.t_end } else { t + h_taken };
        self.done = full && proposal.t_end >= self.t_stop;
        self.h_next = self.law.next(h_taken, eps);
        Ok(StepDecision::Accept { t_next })
    }

    fn retry(&mut self, _t: f64, _h: f64, _reason: &RejectReason) -> Option<f64> {
        None
    }

    fn finished(&self, t: f64) -> bool {
        self.done || t >= self.t_stop
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pi_steps_follow_the_closed_gustafsson_form_while_growth_is_not_limiting() {
        // Defects above tol: the steps shrink, the ×2 limit never acts, so
        // ln h_{k+1} = ln h0 + K_I Σ_{j≤k} e_j + K_P e_k, i.e.
        // h_{k+1} = h_k (tol/ε_k)^{K_I} (ε_{k−1}/ε_k)^{K_P} with ε_{−1} = tol.
        let (tol, h0) = (1e-3, 0.1);
        let eps = [4e-3, 2e-3, 8e-3, 1.5e-3, 3e-3];
        let mut law = PiLaw::new(tol, h0);
        let mut h = h0;
        let mut sum_e = 0.0;
        let mut prev_eps = tol;
        for &e in &eps {
            let next = law.next(h, e);
            sum_e += libm::log(tol / e);
            let closed = h0 * libm::exp(K_I * sum_e + K_P * libm::log(tol / e));
            let gustafsson = h * libm::pow(tol / e, K_I) * libm::pow(prev_eps / e, K_P);
            assert!(
                libm::fabs(next / closed - 1.0) < 1e-13,
                "{next} vs {closed}"
            );
            assert!(libm::fabs(next / gustafsson - 1.0) < 1e-13);
            h = next;
            prev_eps = e;
        }
    }

    #[test]
    fn growth_is_capped_at_two_and_the_integral_does_not_wind_up() {
        let mut law = PiLaw::new(1e-2, 1e-4);
        // A zero defect (floored at 1e-16) wants a huge step: growth stops at ×2.
        let mut h = 1e-4;
        for _ in 0..5 {
            let next = law.next(h, 0.0);
            assert!(libm::fabs(next - 2.0 * h) < 1e-18, "{next} vs {}", 2.0 * h);
            h = next;
        }
        // Anti-windup: whatever the cap cut off is taken out of the integral, so after any
        // number of capped steps I = ln h − K_P e. A defect exactly at tol (e = 0) then gives
        // h·exp(−K_P e_prev); a wound-up integral would have grown by K_I e per capped step.
        let e_prev = libm::log(1e-2 / DEFECT_FLOOR);
        let next = law.next(h, 1e-2);
        let want = h * libm::exp(-K_P * e_prev);
        assert!(libm::fabs(next / want - 1.0) < 1e-12, "{next} vs {want}");
    }

    #[test]
    fn last_step_lands_on_the_stop_time_and_nothing_is_rejected() {
        let mut c = DefectControl::new(0.0, 1.0, 0.3, 1e-3).unwrap();
        assert!(!c.may_reject() && c.variable_steps());
        // A step past the stop time, or short of it by a rounding error, lands on it.
        let p = c.propose(0.9);
        assert_eq!((p.h, p.t_end), (1.0 - 0.9, 1.0));
        let p = c.propose(0.7 - 1e-13);
        assert_eq!(p.t_end, 1.0);
        let p = c.propose(0.5);
        assert_eq!((p.h, p.t_end), (0.3, 0.5 + 0.3));
        let d = StepDiagnostics {
            defect: Some(1e-3),
            ..Default::default()
        };
        let p = c.propose(0.7);
        let decision = c.judge(0.7, &p, p.h, &d).unwrap();
        assert_eq!(decision, StepDecision::Accept { t_next: 1.0 });
        assert!(c.finished(1.0));
        assert_eq!(c.retry(0.0, 0.1, &RejectReason::Controller("x")), None);
    }

    #[test]
    fn bad_settings_are_refused() {
        assert!(DefectControl::new(0.0, 1.0, 0.1, 0.0).is_err());
        assert!(DefectControl::new(0.0, 1.0, 0.1, -1.0).is_err());
        assert!(DefectControl::new(0.0, 1.0, 0.0, 1e-3).is_err());
        assert!(DefectControl::new(0.0, 1.0, f64::NAN, 1e-3).is_err());
        assert!(DefectControl::new(1.0, 1.0, 0.1, 1e-3).is_err());
    }
}
