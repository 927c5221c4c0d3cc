//! Classical fourth-order Runge–Kutta with a fixed micro-step (Kutta 1901; Hairer, Nørsett,
//! Wanner, "Solving ODEs I", Table II.1.2).

use super::ode::{check_call, IntegrationStats, OdeSystem, SolverError, Workspace};

/// Classical RK4. An interval `[t0, t1]` is divided into the smallest whole number of equal
/// micro-steps not longer than `max_step`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rk4 {
    /// Largest micro-step in s (> 0).
    pub max_step: f64,
}

impl Rk4 {
    /// Number of equal micro-steps for an interval of length `len`.
    pub fn micro_steps(&self, len: f64) -> Result<u32, SolverError> {
        if !(self.max_step.is_finite() && self.max_step > 0.0) {
            return Err(SolverError::InvalidSettings(
                "RK4 step must be finite and > 0",
            ));
        }
        let ratio = len / self.max_step;
        if ratio.is_nan() || ratio > u32::MAX as f64 {
            return Err(SolverError::InvalidSettings(
                "RK4 step too small for the interval",
            ));
        }
        let mut n = (libm::ceil(ratio) as u32).max(1);
        // ceil of a ratio that should be whole can land one too high after rounding.
        if n > 1 && len / f64::from(n - 1) <= self.max_step {
            n -= 1;
        }
        Ok(n)
    }

    /// Advances `x` from `t0` to `t1` in place. Micro-step times are `t0 + i·(t1 − t0)/n`.
    pub fn integrate<S: OdeSystem + ?Sized>(
        &self,
        sys: &mut S,
        t0: f64,
        t1: f64,
        x: &mut [f64],
        ws: &mut Workspace,
    ) -> Result<IntegrationStats, SolverError> {
        let n = sys.dim();
        check_call(n, x, ws, t0, t1)?;
        let steps = self.micro_steps(t1 - t0)?;
        let dt = (t1 - t0) / f64::from(steps);
        let mut stats = IntegrationStats::default();
        let Workspace { k, arg, .. } = ws;
        let [k1, k2, k3, k4, ..] = k;
        for i in 0..steps {
            let t = t0 + f64::from(i) * dt;
            let tn = if i + 1 == steps {
                t1
            } else {
                t0 + f64::from(i + 1) * dt
            };
            let h = tn - t;
            sys.rhs(t, x, k1);
            for j in 0..n {
                arg[j] = x[j] + 0.5 * h * k1[j];
            }
            sys.rhs(t + 0.5 * h, arg, k2);
            for j in 0..n {
                arg[j] = x[j] + 0.5 * h * k2[j];
            }
            sys.rhs(t + 0.5 * h, arg, k3);
            for j in 0..n {
                arg[j] = x[j] + h * k3[j];
            }
            sys.rhs(tn, arg, k4);
            for j in 0..n {
                x[j] += h / 6.0 * (k1[j] + 2.0 * (k2[j] + k3[j]) + k4[j]);
            }
            stats.rhs_evals += 4;
            stats.accepted += 1;
            if x.iter().any(|v| !v.is_finite()) {
                return Err(SolverError::NonFinite { t: tn });
            }
        }
        Ok(stats)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solvers::ode::Explode;
    use alloc::vec::Vec;

    /// x' = x cos t with x(0) = 1; exact x = e^{sin t}.
    struct Forced;
    impl OdeSystem for Forced {
        fn dim(&self) -> usize {
            1
        }
        fn rhs(&mut self, t: f64, x: &[f64], dx: &mut [f64]) {
            dx[0] = x[0] * libm::cos(t);
        }
    }
    fn exact(t: f64) -> f64 {
        libm::exp(libm::sin(t))
    }

    #[test]
    fn micro_steps_are_smallest_whole_number_not_longer_than_max() {
        let r = Rk4 { max_step: 0.1 };
        assert_eq!(r.micro_steps(0.3).ok(), Some(3));
        assert_eq!(r.micro_steps(0.31).ok(), Some(4));
        assert_eq!(r.micro_steps(0.05).ok(), Some(1));
        assert!(Rk4 { max_step: 0.0 }.micro_steps(1.0).is_err());
    }

    #[test]
    fn rk4_observed_order_is_four() {
        let t1 = 2.0;
        let mut errs = Vec::new();
        let steps = [10u32, 20, 40, 80, 160];
        for &n in &steps {
            let rk = Rk4 {
                max_step: t1 / f64::from(n),
            };
            let mut x = [1.0];
            let mut ws = Workspace::new(1);
            let stats = rk
                .integrate(&mut Forced, 0.0, t1, &mut x, &mut ws)
                .expect("integrates");
            assert_eq!(stats.accepted, n);
            errs.push(libm::fabs(x[0] - exact(t1)));
        }
        // Least-squares slope of log(err) against log(h).
        let pts: Vec<(f64, f64)> = steps
            .iter()
            .zip(&errs)
            .map(|(&n, &e)| (libm::log(t1 / f64::from(n)), libm::log(e)))
            .collect();
        let mx = pts.iter().map(|p| p.0).sum::<f64>() / pts.len() as f64;
        let my = pts.iter().map(|p| p.1).sum::<f64>() / pts.len() as f64;
        let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
        let sxx: f64 = pts.iter().map(|p| (p.0 - mx) * (p.0 - mx)).sum();
        let slope = sxy / sxx;
        assert!(
            libm::fabs(slope - 4.0) < 0.1,
            "observed order {slope}, errors {errs:?}"
        );
    }

    #[test]
    fn blow_up_is_reported_as_non_finite() {
        let mut x = [1e200];
        let r =
            Rk4 { max_step: 1.0 }.integrate(&mut Explode, 0.0, 1.0, &mut x, &mut Workspace::new(1));
        assert!(matches!(r, Err(SolverError::NonFinite { .. })));
    }
}
