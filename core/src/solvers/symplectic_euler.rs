//! Symplectic Euler (velocity first) for a mechanical ODE whose first `positions` states
//! are positions (or angles) and the rest their velocities: exactly one step per call,
//! `v₁ = v₀ + h·a(q₀, v₀)`, then `q₁ = q₀ + h·q̇(q₀, v₁)`. For `q̇ = v` this is the
//! usual `q₁ = q₀ + h·v₁`; it keeps the energy of a conservative system bounded, which
//! the energy benchmarks of docs/methods.md §13 need.

use super::ode::{check_call, IntegrationStats, OdeSystem, SolverError, Workspace};

/// One symplectic-Euler step per interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SymplecticEuler {
    /// Number of leading position states; the others are velocities.
    pub positions: usize,
}

impl SymplecticEuler {
    /// Advances `x` from `t0` to `t1` in one step; the velocity stage is evaluated at `t0`
    /// (the input at the step start), the position stage at `t0` with the new velocities.
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
        if self.positions > n {
            return Err(SolverError::InvalidSettings(
                "symplectic Euler: more position states than states",
            ));
        }
        let Workspace { k, .. } = ws;
        let [k1, k2, ..] = k;
        self.step(sys, t0, t1 - t0, x, k1, k2);
        if x.iter().any(|v| !v.is_finite()) {
            return Err(SolverError::NonFinite { t: t1 });
        }
        Ok(IntegrationStats {
            rhs_evals: 2,
            accepted: 1,
            ..IntegrationStats::default()
        })
    }

    /// The step itself, of `h` from `t0`, with `k1` and `k2` (each of the state's length)
    /// as work arrays: for callers that hold `h` rather than `t1` (`t0 + h − t0` may differ
    /// from `h` in the last bit) and check sizes and finiteness themselves.
    pub fn step<S: OdeSystem + ?Sized>(
        &self,
        sys: &mut S,
        t0: f64,
        h: f64,
        x: &mut [f64],
        k1: &mut [f64],
        k2: &mut [f64],
    ) {
        sys.rhs(t0, x, k1);
        for j in self.positions..x.len() {
            x[j] += h * k1[j];
        }
        sys.rhs(t0, x, k2);
        for j in 0..self.positions {
            x[j] += h * k2[j];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `q'' = −q`: one step from (1, 0) is v = −h, q = 1 − h².
    struct Unit;
    impl OdeSystem for Unit {
        fn dim(&self) -> usize {
            2
        }
        fn rhs(&mut self, _t: f64, x: &[f64], dx: &mut [f64]) {
            dx[0] = x[1];
            dx[1] = -x[0];
        }
    }

    #[test]
    fn one_step_updates_velocity_then_position() {
        let mut x = [1.0, 0.0];
        let mut ws = Workspace::new(2);
        let s = SymplecticEuler { positions: 1 };
        s.integrate(&mut Unit, 0.0, 0.1, &mut x, &mut ws).unwrap();
        assert_eq!(x, [1.0 - 0.1 * 0.1, -0.1]);
        // Its modified energy q² + v² − h·q·v stays bounded over many periods.
        let energy = |x: &[f64; 2]| x[0] * x[0] + x[1] * x[1] - 0.1 * x[0] * x[1];
        let e0 = energy(&x);
        for i in 0..10_000 {
            let t = 0.1 * f64::from(i);
            s.integrate(&mut Unit, t, t + 0.1, &mut x, &mut ws).unwrap();
        }
        assert!((energy(&x) - e0).abs() < 1e-9 * e0, "{x:?}");
    }
}
