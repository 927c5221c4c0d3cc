//! ODE integrators and the augmented matrix exponential.
//!
//! - [`expm`]: matrix exponential (scaling and squaring, Padé 13; no_std).
//! - [`eigenvalues`]: eigenvalues only (Hessenberg + Francis double-shift QR).
//! - [`discretize`]: exact step of `x' = A x + B u` with polynomial input (Van Loan).
//! - [`TaylorInput`]: polynomial inputs `u(t0 + s) = Σ u^(k) s^k / k!`.
//! - [`Rk4`], [`Dopri45`], [`Bdf`] (stiff): integrators over an [`OdeSystem`], writing into caller buffers
//!   with a reusable [`Workspace`]; [`SolverSpec`] chooses one as a scenario writes it.
//! - [`BandMatrix`]: banded LU with partial pivoting for the stiff solvers' Newton matrix.
//! - [`FD_REL_STEP`]: the relative step of central finite differences.

mod banded;
mod bdf;
mod discretize;
mod dopri45;
mod eigenvalues;
mod exact_step;
mod expm;
mod finite_difference;
mod integrator;
mod ode;
mod polynomial;
mod rk4;
mod solver_spec;
mod symplectic_euler;

pub use banded::{BandLu, BandMatrix};
pub use bdf::{Bdf, MAX_ORDER as BDF_MAX_ORDER};
#[cfg(test)]
pub(crate) use discretize::scalar_gamma;
pub use discretize::{discretize, Discretization, MAX_INPUT_ORDER};
pub use dopri45::{Dopri45, MAX_FACTOR, MAX_STEPS, MIN_FACTOR, PI_BETA, SAFETY};
pub use eigenvalues::eigenvalues;
pub use exact_step::StepMatrix;
pub(crate) use expm::balance;
pub use expm::{expm, one_norm};
pub use finite_difference::FD_REL_STEP;
pub use integrator::Integrator;
pub use ode::{IntegrationStats, OdeSystem, SolverError, Workspace};
pub use polynomial::TaylorInput;
pub use rk4::Rk4;
pub use solver_spec::{SolverSpec, Tolerance};
pub use symplectic_euler::SymplecticEuler;
