//! [`Integrator`]: the integration method of an ODE module, chosen at instantiation.

use super::ode::{IntegrationStats, OdeSystem, SolverError, Workspace};
use super::{Bdf, Dopri45, Rk4, SymplecticEuler};

/// One of the built-in integrators.
#[derive(Clone, Debug, PartialEq)]
pub enum Integrator {
    /// Fixed-step classical RK4.
    Rk4(Rk4),
    /// Adaptive Dormand–Prince 5(4).
    Dopri45(Dopri45),
    /// Variable-step, variable-order BDF for stiff modules.
    Bdf(Bdf),
    /// One symplectic-Euler step per call (mechanical ODEs, positions first).
    SymplecticEuler(SymplecticEuler),
}

impl Integrator {
    /// Advances `x` from `t0` to `t1` in place with the chosen method.
    pub fn integrate<S: OdeSystem + ?Sized>(
        &self,
        sys: &mut S,
        t0: f64,
        t1: f64,
        x: &mut [f64],
        ws: &mut Workspace,
    ) -> Result<IntegrationStats, SolverError> {
        match self {
            Integrator::Rk4(m) => m.integrate(sys, t0, t1, x, ws),
            Integrator::Dopri45(m) => m.integrate(sys, t0, t1, x, ws),
            Integrator::Bdf(m) => m.integrate(sys, t0, t1, x, ws),
            Integrator::SymplecticEuler(m) => m.integrate(sys, t0, t1, x, ws),
        }
    }
}
