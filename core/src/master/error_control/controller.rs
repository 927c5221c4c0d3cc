//! [`MacroStepControl`]: seed 002's three stages after each attempted macro-step (local
//! error test, order selection, step-size selection; docs/methods.md §14.7–§14.10), holding
//! the degree `k` and the counters `N_fail`, `N_succ`. It reads only numbers (the
//! attempt's WRMS norms, the coupling history, `H_N`, whether the corrector failed), so it
//! is tested with constructed signals and knows no module.
//!
//! Counter semantics (pinned; the paper leaves them open):
//! - `N_fail` counts the consecutive failed attempts of the current step, this one included;
//!   a corrector that did not converge is a failed attempt;
//! - `N_succ` counts the consecutive accepted steps at constant degree without a step
//!   reduction, **the just-accepted step included**: the seed's own condition for a raise is
//!   that "k+1 consecutive macro-steps have succeeded with degree k" (eqn 30's text), which
//!   the step just accepted has; IDA likewise counts the step in progress (`ns`). It restarts
//!   at 0 after a failure, and when the next step changes the degree or is shorter.

use super::derivative_norms::DerivativeNorms;
use super::history::{Samples, WithNewest};
use super::norms::ErrorNorms;
use super::order::{select_order, OrderChoice, OrderCounters, OrderRule};
use super::settings::{ErrorControlSettings, OrderMode};
use super::step_size::{coupling_ratio, state_ratio, step_factor, StepLimits, StepRule};
use crate::error::MasterError;

/// One completed attempt `T_N → T_N + H_N`, as the algorithm reports it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Attempt {
    /// `T_N`, the start of the step, in s.
    pub t: f64,
    /// `H_N`, the step attempted, in s.
    pub h: f64,
    /// Degree `k` of the coupling polynomials the attempt used.
    pub k: usize,
    /// WRMS norms of the a posteriori estimate (ignored when the corrector failed).
    pub norms: ErrorNorms,
    /// The implicit corrector did not converge, or a module's integration failed inside the
    /// attempt: a rejection with `0.25·H_N`.
    pub corrector_failed: bool,
}

/// What the controller decided about an attempt.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ControlVerdict {
    /// The attempt passes the error test (and the corrector converged).
    pub accepted: bool,
    /// The tested norm: `max(‖ε_pos‖, ‖ε_vel‖)` or `‖ε_u‖`.
    pub error: f64,
    /// `T_M`, where the next attempt starts: `T_N + H_N` if accepted, else `T_N`.
    pub t_next: f64,
    /// `H_M`, the next attempt's step in s.
    pub h_next: f64,
    /// The degree of the next attempt.
    pub k_next: usize,
    /// The factor `r` before the limits: from the a posteriori estimate (eqn 32), or from
    /// the a priori estimate (eqn 33) when the degree changed.
    pub ratio: f64,
    /// Whether `ratio` came from the a priori estimate (31).
    pub a_priori: bool,
    /// The order rule that decided `k_next`.
    pub order_rule: OrderRule,
    /// The step branch that decided `h_next`.
    pub step_rule: StepRule,
    counters: OrderCounters,
}

/// Macro-step size and degree control of seed 002 for one run.
#[derive(Clone, Debug)]
pub struct MacroStepControl {
    settings: ErrorControlSettings,
    k: usize,
    counters: OrderCounters,
}

impl MacroStepControl {
    /// A controller with checked `settings`, degree 0, no failures and no successes.
    pub fn new(settings: ErrorControlSettings) -> Result<Self, MasterError> {
        settings.validate()?;
        Ok(MacroStepControl {
            settings,
            k: 0,
            counters: OrderCounters {
                n_fail: 0,
                n_succ: 0,
            },
        })
    }

    /// The settings.
    pub fn settings(&self) -> &ErrorControlSettings {
        &self.settings
    }

    /// Degree `k` of the next attempt.
    pub fn degree(&self) -> usize {
        self.k
    }

    /// Consecutive failed attempts of the current step (`N_fail`).
    pub fn failures(&self) -> u32 {
        self.counters.n_fail
    }

    /// Consecutive accepted steps at constant degree and step (`N_succ`).
    pub fn successes(&self) -> u32 {
        self.counters.n_succ
    }

    /// Resets the counters and sets the first degree for a start with `history_len` points
    /// (variable degree: 0; fixed: its degree, capped by the history). `None` when the
    /// estimator cannot run even at degree 0 (ExLocal and ExMilne with one point): the
    /// algorithm must then take its first step another way (docs/methods.md §14.10).
    pub fn start(&mut self, history_len: usize) -> Option<usize> {
        self.start_at(history_len, 0)
    }

    /// [`Self::start`] with a variable degree starting at `first` (capped by the history
    /// and `k_max`): the tangent start of the SLocal estimators begins at degree 1
    /// (docs/methods.md §14.10).
    pub fn start_at(&mut self, history_len: usize, first: usize) -> Option<usize> {
        self.counters = OrderCounters {
            n_fail: 0,
            n_succ: 0,
        };
        let cap = self.settings.estimator.max_degree(history_len);
        self.k = match self.settings.order {
            OrderMode::Fixed(k) => k.min(cap.unwrap_or(0)),
            OrderMode::Variable { k_max } => first.min(k_max).min(cap.unwrap_or(0)),
        };
        cap.map(|_| self.k)
    }

    /// The first step `h0`, clamped to `H_max`.
    pub fn first_step(&self, h0: f64) -> f64 {
        h0.min(self.settings.h_max)
    }

    /// [`Self::assess_with`], with the order signals computed from `history` (the accepted
    /// points up to `T_N`) and, if the attempt passes, its new coupling values `new_u` at
    /// `T_N + H_N` in front.
    pub fn assess<S: Samples + ?Sized>(
        &self,
        attempt: &Attempt,
        history: &S,
        new_u: &[f64],
    ) -> Result<ControlVerdict, MasterError> {
        self.assess_kept(attempt, history, history, new_u)
    }

    /// [`Self::assess`] when an acceptance changes more than the newest point: `kept` is
    /// the history that remains after a commit (before `new_u` joins it), `history` the
    /// one a retry uses (the tangent start drops its point before `T_0` at the first
    /// commit).
    pub fn assess_kept<K: Samples + ?Sized, S: Samples + ?Sized>(
        &self,
        attempt: &Attempt,
        kept: &K,
        history: &S,
        new_u: &[f64],
    ) -> Result<ControlVerdict, MasterError> {
        let tol = &self.settings.tolerances.coupling;
        self.assess_with(attempt, |accepted| {
            if accepted {
                DerivativeNorms::of(&WithNewest::new(attempt.t + attempt.h, new_u, kept), tol)
            } else {
                DerivativeNorms::of(history, tol)
            }
        })
    }

    /// Judges `attempt` without changing the controller: error test, then the degree from
    /// `signals(accepted)` (the divided-difference norms of the history at `T_M`, with the
    /// attempt's point only if accepted), then the step. Apply the verdict with
    /// [`Self::apply`] once the attempt is committed or discarded.
    ///
    /// Fails with [`MasterError::MacroStepTooSmall`] when the next step would be at or below
    /// `H_min`.
    pub fn assess_with(
        &self,
        attempt: &Attempt,
        signals: impl FnOnce(bool) -> DerivativeNorms,
    ) -> Result<ControlVerdict, MasterError> {
        let s = &self.settings;
        let (h, k) = (attempt.h, attempt.k);
        let on_states = s.estimator.on_states();
        let error = attempt.norms.tested(on_states);
        let accepted = !attempt.corrector_failed && error <= 1.0;
        let counters = if accepted {
            OrderCounters {
                n_fail: 0,
                n_succ: self.counters.n_succ.saturating_add(1),
            }
        } else {
            OrderCounters {
                n_fail: self.counters.n_fail.saturating_add(1),
                n_succ: 0,
            }
        };
        let t_next = if accepted { attempt.t + h } else { attempt.t };
        let signals = signals(accepted);

        // Stage 2: the degree, never above what the history at T_M supports.
        let cap = s.estimator.max_degree(signals.len()).unwrap_or(0);
        let choice = match s.order {
            OrderMode::Fixed(fixed) => {
                let k_next = fixed.min(cap);
                OrderChoice {
                    k: k_next,
                    rule: if k_next != k {
                        OrderRule::StartUpRamp
                    } else {
                        OrderRule::Kept
                    },
                }
            }
            OrderMode::Variable { k_max } => {
                let c = select_order(k, |j| signals.sdn(j, h), counters, k_max);
                OrderChoice {
                    k: c.k.min(cap),
                    rule: c.rule,
                }
            }
        };

        // Stage 3: r from the a posteriori estimate at degree k (eqn 32/34), or, after an
        // order change, from the a priori estimate (31) with the *new* degree (eqn 33),
        // evaluated at the trial point T_M + H_N.
        let sf = s.safety_factor;
        let value = |x: Option<f64>| x.unwrap_or(0.0);
        let a_posteriori = if on_states {
            state_ratio(
                value(attempt.norms.positions),
                value(attempt.norms.velocities),
                k,
                sf,
            )
        } else {
            coupling_ratio(value(attempt.norms.coupling), k, sf)
        };
        let a_priori_norm = (choice.k != k)
            .then(|| signals.a_priori_norm(choice.k, t_next + h))
            .flatten();
        let (ratio, a_priori) = match a_priori_norm {
            Some(norm) => (coupling_ratio(norm, choice.k, sf), true),
            None => (a_posteriori, false),
        };
        let limits = StepLimits {
            r_min: s.r_min,
            r_max: s.r_max,
        };
        let (factor, step_rule) =
            step_factor(ratio, counters.n_fail, attempt.corrector_failed, limits);
        let h_next = (factor * h).min(s.h_max);
        if h_next.is_nan() || h_next <= s.h_min {
            return Err(MasterError::MacroStepTooSmall {
                t: t_next,
                h: h_next,
                h_min: s.h_min,
                order: choice.k as u32,
                estimator: s.estimator.name(),
            });
        }
        let counters = OrderCounters {
            n_succ: if accepted && choice.k == k && h_next >= h {
                counters.n_succ
            } else {
                0
            },
            ..counters
        };
        Ok(ControlVerdict {
            accepted,
            error,
            t_next,
            h_next,
            k_next: choice.k,
            ratio,
            a_priori,
            order_rule: choice.rule,
            step_rule,
            counters,
        })
    }

    /// Takes over the degree and counters of a verdict of [`Self::assess_with`].
    pub fn apply(&mut self, verdict: &ControlVerdict) {
        self.k = verdict.k_next;
        self.counters = verdict.counters;
    }

    /// [`Self::assess`] and [`Self::apply`] in one call.
    pub fn judge<S: Samples + ?Sized>(
        &mut self,
        attempt: &Attempt,
        history: &S,
        new_u: &[f64],
    ) -> Result<ControlVerdict, MasterError> {
        let verdict = self.assess(attempt, history, new_u)?;
        self.apply(&verdict);
        Ok(verdict)
    }
}
