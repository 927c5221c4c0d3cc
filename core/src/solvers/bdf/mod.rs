//! [`Bdf`]: a variable-step, variable-order BDF (orders 1–5) for stiff modules, in the
//! quasi-constant-step difference form of Shampine & Reichelt (SIAM J. Sci. Comput. 18(1),
//! 1997, §2.3) with the plain BDF coefficients (no NDF κ), as SciPy's `BDF` implements it.
//!
//! Each `integrate` call starts at order 1 (a module's inputs jump at every communication
//! point, so older history is not valid) with the step `ws.step_hint` carried from the last
//! call, and a fresh finite-difference Jacobian, so a run restored from a saved state takes
//! exactly the same steps. Within the call the Jacobian is kept while the simplified Newton
//! iteration converges and recomputed once when it does not; the LU factors of `I − cJ`
//! (nalgebra) are renewed when `c = h/γ_k` changes. Error per component
//! `|d_i|/(k + 1)` (the correction times the error constant) in the RMS norm with weights
//! `atol_i + rtol·|y_i|`. The order moves by at most one after `k + 1` steps of equal size,
//! to the neighbour whose error estimate allows the largest step.
//!
//! No crate fitted (no_std + alloc with nalgebra): `diffsol` and `RustedSciThe` need std.

mod differences;
mod newton;
#[cfg(test)]
mod tests;

use super::ode::{check_call, IntegrationStats, OdeSystem, SolverError, Workspace};
use alloc::vec::Vec;
use differences::{error_constant, gamma};
use newton::rms;
pub(crate) use newton::BdfWork;

/// Highest order.
pub const MAX_ORDER: usize = 5;
/// Newton iterations per attempt before the Jacobian is renewed or the step halved.
pub const NEWTON_MAX_ITER: usize = 4;
/// Step limit per `integrate` call.
pub const MAX_STEPS: u32 = 100_000;
/// Smallest step factor after an error-test failure.
const MIN_FACTOR: f64 = 0.2;
/// Largest step factor after an order decision.
const MAX_FACTOR: f64 = 10.0;

/// Variable-step, variable-order BDF with error control per component.
#[derive(Clone, Debug, PartialEq)]
pub struct Bdf {
    /// Relative tolerance (> 0).
    pub rtol: f64,
    /// Absolute tolerance (> 0): one value for every component, or one per component.
    pub atol: Vec<f64>,
}

impl Bdf {
    /// Checks the tolerances for a system of dimension `n`.
    pub fn check(&self, n: usize) -> Result<(), SolverError> {
        if !(self.rtol.is_finite() && self.rtol > 0.0) {
            return Err(SolverError::InvalidSettings(
                "BDF rtol must be finite and > 0",
            ));
        }
        if self.atol.iter().any(|a| !(a.is_finite() && *a > 0.0)) {
            return Err(SolverError::InvalidSettings(
                "BDF atol must be finite and > 0",
            ));
        }
        if self.atol.len() != 1 && self.atol.len() != n {
            return Err(SolverError::InvalidSettings(
                "BDF atol must have one value or one per state",
            ));
        }
        Ok(())
    }

    /// Absolute tolerance of component `i`.
    fn atol(&self, i: usize) -> f64 {
        if self.atol.len() == 1 {
            self.atol[0]
        } else {
            self.atol[i]
        }
    }

    fn weights(&self, y: &[f64], w: &mut [f64]) {
        for (i, (wi, yi)) in w.iter_mut().zip(y).enumerate() {
            *wi = self.atol(i) + self.rtol * libm::fabs(*yi);
        }
    }

    /// Initial step (Hairer, Nørsett & Wanner, "Solving ODEs I", §II.4) for order 1.
    fn initial_step<S: OdeSystem + ?Sized>(
        &self,
        sys: &mut S,
        t0: f64,
        y: &[f64],
        w: &mut BdfWork,
        span: f64,
    ) -> f64 {
        self.weights(y, &mut w.scale);
        let d0 = rms(y, &w.scale);
        let d1 = rms(&w.f, &w.scale);
        let h0 = if d0 < 1e-5 || d1 < 1e-5 {
            1e-6
        } else {
            0.01 * d0 / d1
        }
        .min(span);
        for i in 0..y.len() {
            w.y_pert[i] = y[i] + h0 * w.f[i];
        }
        sys.rhs(t0 + h0, &w.y_pert, &mut w.f_pert);
        for i in 0..y.len() {
            w.y_pert[i] = w.f_pert[i] - w.f[i];
        }
        let d2 = rms(&w.y_pert, &w.scale) / h0;
        let h1 = if d1 <= 1e-15 && d2 <= 1e-15 {
            (h0 * 1e-3).max(1e-6)
        } else {
            libm::sqrt(0.01 / d1.max(d2))
        };
        (100.0 * h0).min(h1).min(span)
    }

    /// Advances `x` from `t0` to `t1` in place. `ws.step_hint` carries the proposed step
    /// between calls (0 = choose one); it is part of the solver state.
    pub fn integrate<S: OdeSystem + ?Sized>(
        &self,
        sys: &mut S,
        t0: f64,
        t1: f64,
        x: &mut [f64],
        ws: &mut Workspace,
    ) -> Result<IntegrationStats, SolverError> {
        let n = sys.dim();
        self.check(n)?;
        check_call(n, x, ws, t0, t1)?;
        let mut stats = IntegrationStats::default();
        if n == 0 {
            return Ok(stats);
        }
        let w = ws.bdf.get_or_insert_with(|| BdfWork::new(n, sys.band()));
        let span = t1 - t0;
        sys.rhs(t0, x, &mut w.f);
        stats.rhs_evals += 1;
        if w.f.iter().chain(x.iter()).any(|v| !v.is_finite()) {
            return Err(SolverError::NonFinite { t: t0 });
        }
        let mut h = if ws.step_hint > 0.0 && ws.step_hint.is_finite() {
            ws.step_hint.min(span)
        } else {
            stats.rhs_evals += 1;
            self.initial_step(sys, t0, x, w, span)
        };
        let typical = |j: usize| self.atol(j) / self.rtol;
        w.y_base.copy_from_slice(x);
        w.f_base.copy_from_slice(&w.f);
        stats.rhs_evals += w.jacobian(sys, t0, typical);
        w.diff.start(x, &w.f, h);
        let newton_tol = (10.0 * f64::EPSILON / self.rtol).max(libm::sqrt(self.rtol).min(0.03));
        let (mut t, mut k, mut equal_steps) = (t0, 1usize, 0usize);
        let mut lu_c = f64::NAN;
        loop {
            // One step from t: shrink until Newton converges and the error test passes.
            let mut jac_current = stats.accepted == 0;
            let mut renew_jac = false;
            let mut hint: f64;
            let (t_new, n_iter, err) = loop {
                if stats.accepted + stats.rejected >= MAX_STEPS {
                    let steps = stats.accepted + stats.rejected;
                    return Err(SolverError::TooManySteps { t, steps });
                }
                if h <= 10.0 * f64::EPSILON * libm::fabs(t).max(span) {
                    return Err(SolverError::StepSizeTooSmall { t, h });
                }
                hint = h;
                let mut t_new = t + h;
                // Land exactly on t1; stretch by up to 1 % rather than leave a sliver.
                if t + 1.01 * h >= t1 {
                    t_new = t1;
                    w.diff.rescale(k, (t1 - t) / h);
                    h = t1 - t;
                    equal_steps = 0;
                }
                w.diff.predict(k, &mut w.y_predict);
                w.diff.psi(k, &mut w.psi);
                self.weights(&w.y_predict, &mut w.scale);
                let c = h / gamma(k);
                if renew_jac {
                    w.y_base.copy_from_slice(&w.y_predict);
                    sys.rhs(t_new, &w.y_base, &mut w.f_base);
                    stats.rhs_evals += 1 + w.jacobian(sys, t_new, typical);
                    renew_jac = false;
                    jac_current = true;
                }
                let converged = loop {
                    if !w.has_factors() || c != lu_c {
                        w.factorise(c);
                        lu_c = c;
                    }
                    let (ok, iters) = w.newton(sys, t_new, c, newton_tol);
                    stats.rhs_evals += iters;
                    if ok {
                        break Some(iters);
                    }
                    if jac_current {
                        break None;
                    }
                    w.y_base.copy_from_slice(&w.y_predict);
                    sys.rhs(t_new, &w.y_base, &mut w.f_base);
                    stats.rhs_evals += 1 + w.jacobian(sys, t_new, typical);
                    jac_current = true;
                };
                let Some(n_iter) = converged else {
                    // The smaller step predicts another point: renew the Jacobian there
                    // before the next attempt. An old one from a stiffer point makes the
                    // increments tiny and the rate test falsely report convergence (a
                    // penalty contact's Jacobian changes by a factor e per 1/B).
                    renew_jac = true;
                    stats.rejected += 1;
                    w.diff.rescale(k, 0.5);
                    h *= 0.5;
                    equal_steps = 0;
                    continue;
                };
                self.weights(&w.y_new, &mut w.scale);
                let err = error_constant(k) * rms(&w.corr, &w.scale);
                if err <= 1.0 {
                    break (t_new, n_iter, err);
                }
                stats.rejected += 1;
                let safety = 0.9 * (2 * NEWTON_MAX_ITER + 1) as f64
                    / (2 * NEWTON_MAX_ITER + n_iter as usize) as f64;
                let factor = (safety * libm::pow(err, -1.0 / (k as f64 + 1.0))).max(MIN_FACTOR);
                w.diff.rescale(k, factor);
                h *= factor;
                equal_steps = 0;
            };
            stats.accepted += 1;
            w.steps_at_order[k] += 1;
            equal_steps += 1;
            t = t_new;
            x.copy_from_slice(&w.y_new);
            w.accept(k);
            if t >= t1 {
                ws.step_hint = hint;
                return Ok(stats);
            }
            if equal_steps < k + 1 {
                continue;
            }
            // Order and step: the neighbour order whose error allows the largest step.
            let err_down = if k > 1 {
                error_constant(k - 1) * rms(w.diff.row(k), &w.scale)
            } else {
                f64::INFINITY
            };
            let err_up = if k < MAX_ORDER {
                error_constant(k + 1) * rms(w.diff.row(k + 2), &w.scale)
            } else {
                f64::INFINITY
            };
            let factor_of = |e: f64, order: usize| libm::pow(e, -1.0 / (order as f64 + 1.0));
            let candidates = [
                (factor_of(err_down, k - 1), k - 1),
                (factor_of(err, k), k),
                (factor_of(err_up, k + 1), k + 1),
            ];
            let mut best = candidates[1];
            for c in candidates {
                if c.0 > best.0 {
                    best = c;
                }
            }
            let safety = 0.9 * (2 * NEWTON_MAX_ITER + 1) as f64
                / (2 * NEWTON_MAX_ITER + n_iter as usize) as f64;
            let factor = (safety * best.0).min(MAX_FACTOR);
            k = best.1;
            w.diff.rescale(k, factor);
            h *= factor;
            equal_steps = 0;
        }
    }
}
