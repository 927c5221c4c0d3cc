//! Adaptive explicit Runge–Kutta of Dormand and Prince, order 5 with embedded order 4,
//! FSAL (Dormand & Prince 1980, J. Comput. Appl. Math. 6(1), Table 2; step control and
//! initial step as in Hairer, Nørsett, Wanner, "Solving ODEs I", §II.4 and code DOPRI5).

use super::ode::{check_call, IntegrationStats, OdeSystem, SolverError, Workspace};

/// Dormand–Prince 5(4) with a PI step-size controller.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Dopri45 {
    /// Relative tolerance (≥ 0).
    pub rtol: f64,
    /// Absolute tolerance (≥ 0; `rtol + atol > 0`).
    pub atol: f64,
}

/// Safety factor on the optimal step (DOPRI5 default).
pub const SAFETY: f64 = 0.9;
/// Smallest step factor per step (DOPRI5 `fac1`).
pub const MIN_FACTOR: f64 = 0.2;
/// Largest step factor per step (DOPRI5 `fac2`).
pub const MAX_FACTOR: f64 = 10.0;
/// PI controller gain β on the previous error (DOPRI5 default 0.04; Gustafsson 1991).
pub const PI_BETA: f64 = 0.04;
/// Step limit per `integrate` call.
pub const MAX_STEPS: u32 = 100_000;
/// Consecutive non-finite trial steps tolerated before giving up.
const MAX_NON_FINITE_RETRIES: u32 = 20;

// Butcher tableau (Dormand & Prince 1980).
const C2: f64 = 1.0 / 5.0;
const C3: f64 = 3.0 / 10.0;
const C4: f64 = 4.0 / 5.0;
const C5: f64 = 8.0 / 9.0;
const A21: f64 = 1.0 / 5.0;
const A31: f64 = 3.0 / 40.0;
const A32: f64 = 9.0 / 40.0;
const A41: f64 = 44.0 / 45.0;
const A42: f64 = -56.0 / 15.0;
const A43: f64 = 32.0 / 9.0;
const A51: f64 = 19372.0 / 6561.0;
const A52: f64 = -25360.0 / 2187.0;
const A53: f64 = 64448.0 / 6561.0;
const A54: f64 = -212.0 / 729.0;
const A61: f64 = 9017.0 / 3168.0;
const A62: f64 = -355.0 / 33.0;
const A63: f64 = 46732.0 / 5247.0;
const A64: f64 = 49.0 / 176.0;
const A65: f64 = -5103.0 / 18656.0;
const A71: f64 = 35.0 / 384.0;
const A73: f64 = 500.0 / 1113.0;
const A74: f64 = 125.0 / 192.0;
const A75: f64 = -2187.0 / 6784.0;
const A76: f64 = 11.0 / 84.0;
// Error weights: 5th-order minus embedded 4th-order weights.
const E1: f64 = 71.0 / 57600.0;
const E3: f64 = -71.0 / 16695.0;
const E4: f64 = 71.0 / 1920.0;
const E5: f64 = -17253.0 / 339200.0;
const E6: f64 = 22.0 / 525.0;
const E7: f64 = -1.0 / 40.0;

impl Dopri45 {
    fn check(&self) -> Result<(), SolverError> {
        let ok =
            self.rtol >= 0.0 && self.atol >= 0.0 && self.rtol.is_finite() && self.atol.is_finite();
        if ok && self.rtol + self.atol > 0.0 {
            Ok(())
        } else {
            Err(SolverError::InvalidSettings(
                "tolerances must be finite, ≥ 0 and not both 0",
            ))
        }
    }

    /// RMS of `v_i / (atol + rtol·max(|x_i|, |y_i|))` (Hairer §II.4, eqn (4.11)).
    fn norm(&self, v: &[f64], x: &[f64], y: &[f64]) -> f64 {
        if v.is_empty() {
            return 0.0;
        }
        let mut s = 0.0;
        for i in 0..v.len() {
            let sc = self.atol + self.rtol * libm::fabs(x[i]).max(libm::fabs(y[i]));
            // atol = 0 with a zero component: only an exact zero error is acceptable.
            let r = if sc > 0.0 {
                v[i] / sc
            } else if v[i] == 0.0 {
                0.0
            } else {
                f64::INFINITY
            };
            s += r * r;
        }
        libm::sqrt(s / v.len() as f64)
    }

    /// Initial step guess (Hairer §II.4, "Starting step size"); uses `ws.k[0] = f(t0, x)`.
    fn initial_step<S: OdeSystem + ?Sized>(
        &self,
        sys: &mut S,
        t0: f64,
        x: &[f64],
        ws: &mut Workspace,
        hmax: f64,
    ) -> f64 {
        let Workspace { k, arg, .. } = ws;
        let d0 = self.norm(x, x, x);
        let d1 = self.norm(&k[0], x, x);
        let h0 = if d0 < 1e-10 || d1 < 1e-10 {
            1e-6
        } else {
            0.01 * d0 / d1
        }
        .min(hmax);
        for i in 0..x.len() {
            arg[i] = x[i] + h0 * k[0][i];
        }
        let (k1, rest) = k.split_at_mut(1);
        sys.rhs(t0 + h0, arg, &mut rest[0]);
        for i in 0..x.len() {
            rest[1][i] = rest[0][i] - k1[0][i];
        }
        let d2 = self.norm(&rest[1], x, x) / h0;
        let dm = d1.max(d2);
        let h1 = if dm > 1e-15 {
            libm::pow(0.01 / dm, 0.2)
        } else {
            (h0 * 1e-3).max(1e-6)
        };
        (100.0 * h0).min(h1).min(hmax)
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
        self.check()?;
        let n = sys.dim();
        check_call(n, x, ws, t0, t1)?;
        let mut stats = IntegrationStats::default();
        let span = t1 - t0;
        sys.rhs(t0, x, &mut ws.k[0]);
        stats.rhs_evals += 1;
        if ws.k[0].iter().any(|v| !v.is_finite()) || x.iter().any(|v| !v.is_finite()) {
            return Err(SolverError::NonFinite { t: t0 });
        }
        let mut h = if ws.step_hint > 0.0 && ws.step_hint.is_finite() {
            ws.step_hint.min(span)
        } else {
            stats.rhs_evals += 1;
            self.initial_step(sys, t0, x, ws, span)
        };
        let mut t = t0;
        let mut err_old = 1e-4;
        let mut last_rejected = false;
        let mut non_finite = 0;
        let expo = 0.2 - PI_BETA * 0.75;
        loop {
            if stats.accepted + stats.rejected >= MAX_STEPS {
                return Err(SolverError::TooManySteps {
                    t,
                    steps: stats.accepted + stats.rejected,
                });
            }
            // Land exactly on t1; avoid a sliver of a last step.
            let last = t + 1.01 * h >= t1;
            if last {
                h = t1 - t;
            }
            if h <= 16.0 * f64::EPSILON * libm::fabs(t).max(span) {
                return Err(SolverError::StepSizeTooSmall { t, h });
            }
            self.trial_step(sys, t, h, x, ws);
            stats.rhs_evals += 6;
            let err = self.norm(&ws.err, x, &ws.next);
            if !err.is_finite() || ws.next.iter().any(|v| !v.is_finite()) {
                non_finite += 1;
                if non_finite > MAX_NON_FINITE_RETRIES {
                    return Err(SolverError::NonFinite { t: t + h });
                }
                stats.rejected += 1;
                h *= MIN_FACTOR;
                last_rejected = true;
                continue;
            }
            non_finite = 0;
            let fac11 = libm::pow(err, expo);
            if err <= 1.0 {
                // PI controller: h_new = h · safety · err^{−expo} · err_old^{β}.
                let fac = (fac11 / libm::pow(err_old, PI_BETA) / SAFETY)
                    .clamp(1.0 / MAX_FACTOR, 1.0 / MIN_FACTOR);
                let mut h_new = h / fac;
                if last_rejected {
                    h_new = h_new.min(h);
                }
                err_old = err.max(1e-4);
                stats.accepted += 1;
                t = if last { t1 } else { t + h };
                x.copy_from_slice(&ws.next);
                ws.k.swap(0, 6); // FSAL: k7 = f(t + h, x_new) is the next k1.
                last_rejected = false;
                if last {
                    ws.step_hint = h_new;
                    return Ok(stats);
                }
                h = h_new;
            } else {
                stats.rejected += 1;
                h /= (fac11 / SAFETY).min(1.0 / MIN_FACTOR);
                last_rejected = true;
            }
        }
    }

    /// One trial step: `ws.next` = 5th-order solution, `ws.err` = error estimate,
    /// `ws.k[6]` = f(t + h, next). Expects `ws.k[0] = f(t, x)`.
    fn trial_step<S: OdeSystem + ?Sized>(
        &self,
        sys: &mut S,
        t: f64,
        h: f64,
        x: &[f64],
        ws: &mut Workspace,
    ) {
        let n = x.len();
        let Workspace {
            k, arg, next, err, ..
        } = ws;
        let [k1, k2, k3, k4, k5, k6, k7] = k;
        for i in 0..n {
            arg[i] = x[i] + h * A21 * k1[i];
        }
        sys.rhs(t + C2 * h, arg, k2);
        for i in 0..n {
            arg[i] = x[i] + h * (A31 * k1[i] + A32 * k2[i]);
        }
        sys.rhs(t + C3 * h, arg, k3);
        for i in 0..n {
            arg[i] = x[i] + h * (A41 * k1[i] + A42 * k2[i] + A43 * k3[i]);
        }
        sys.rhs(t + C4 * h, arg, k4);
        for i in 0..n {
            arg[i] = x[i] + h * (A51 * k1[i] + A52 * k2[i] + A53 * k3[i] + A54 * k4[i]);
        }
        sys.rhs(t + C5 * h, arg, k5);
        for i in 0..n {
            arg[i] =
                x[i] + h * (A61 * k1[i] + A62 * k2[i] + A63 * k3[i] + A64 * k4[i] + A65 * k5[i]);
        }
        sys.rhs(t + h, arg, k6);
        for i in 0..n {
            next[i] =
                x[i] + h * (A71 * k1[i] + A73 * k3[i] + A74 * k4[i] + A75 * k5[i] + A76 * k6[i]);
        }
        sys.rhs(t + h, next, k7);
        for i in 0..n {
            err[i] =
                h * (E1 * k1[i] + E3 * k3[i] + E4 * k4[i] + E5 * k5[i] + E6 * k6[i] + E7 * k7[i]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solvers::ode::Explode;

    /// Harmonic oscillator x'' = −ω² x, x(0) = 1, x'(0) = 0: x = cos ωt, x' = −ω sin ωt.
    struct Oscillator {
        w: f64,
    }
    impl OdeSystem for Oscillator {
        fn dim(&self) -> usize {
            2
        }
        fn rhs(&mut self, _t: f64, x: &[f64], dx: &mut [f64]) {
            dx[0] = x[1];
            dx[1] = -self.w * self.w * x[0];
        }
    }

    fn run(tol: f64) -> (f64, IntegrationStats) {
        let w = 3.0;
        let t1 = 5.0;
        let mut x = [1.0, 0.0];
        let mut ws = Workspace::new(2);
        let d = Dopri45 {
            rtol: tol,
            atol: tol,
        };
        let stats = d
            .integrate(&mut Oscillator { w }, 0.0, t1, &mut x, &mut ws)
            .expect("integrates");
        let e0 = libm::fabs(x[0] - libm::cos(w * t1));
        let e1 = libm::fabs(x[1] + w * libm::sin(w * t1)) / w;
        (e0.max(e1), stats)
    }

    #[test]
    fn dopri45_meets_tolerance_against_exact_solution() {
        for tol in [1e-6, 1e-9] {
            let (err, _) = run(tol);
            // Global error over ~2.4 periods stays within a small multiple of the local tolerance.
            assert!(err < 10.0 * tol, "tol {tol}: error {err}");
        }
    }

    #[test]
    fn dopri45_takes_fewer_steps_at_looser_tolerance() {
        let (_, tight) = run(1e-10);
        let (_, loose) = run(1e-5);
        assert!(loose.accepted < tight.accepted, "{loose:?} vs {tight:?}");
        assert!(loose.accepted > 0);
    }

    #[test]
    fn step_hint_is_reused_between_calls() {
        let d = Dopri45 {
            rtol: 1e-8,
            atol: 1e-8,
        };
        let mut ws = Workspace::new(2);
        let mut x = [1.0, 0.0];
        let mut sys = Oscillator { w: 3.0 };
        d.integrate(&mut sys, 0.0, 1.0, &mut x, &mut ws)
            .expect("first");
        assert!(ws.step_hint > 0.0);
        let first_hint = ws.step_hint;
        let s = d
            .integrate(&mut sys, 1.0, 2.0, &mut x, &mut ws)
            .expect("second");
        // No initial-step probe: 1 + 6 per trial step.
        assert_eq!(s.rhs_evals, 1 + 6 * (s.accepted + s.rejected));
        assert!(first_hint < 1.0);
    }

    #[test]
    fn zero_state_with_zero_atol_is_not_a_failure() {
        let mut x = [0.0, 0.0];
        let d = Dopri45 {
            rtol: 1e-6,
            atol: 0.0,
        };
        let s = d
            .integrate(
                &mut Oscillator { w: 2.0 },
                0.0,
                1.0,
                &mut x,
                &mut Workspace::new(2),
            )
            .expect("integrates");
        assert_eq!(x, [0.0, 0.0]);
        assert!(s.accepted > 0);
    }

    #[test]
    fn invalid_tolerances_and_blow_up_are_errors() {
        let mut ws = Workspace::new(2);
        let mut x = [1.0, 0.0];
        let bad = Dopri45 {
            rtol: 0.0,
            atol: 0.0,
        };
        assert!(bad
            .integrate(&mut Oscillator { w: 1.0 }, 0.0, 1.0, &mut x, &mut ws)
            .is_err());
        // x' = x², x(0) = 1 blows up at t = 1.
        let mut y = [1.0];
        let r = Dopri45 {
            rtol: 1e-6,
            atol: 1e-6,
        }
        .integrate(&mut Explode, 0.0, 2.0, &mut y, &mut Workspace::new(1));
        assert!(
            matches!(
                r,
                Err(SolverError::StepSizeTooSmall { .. })
                    | Err(SolverError::NonFinite { .. })
                    | Err(SolverError::TooManySteps { .. })
            ),
            "{r:?}"
        );
    }
}
