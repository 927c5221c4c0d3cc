//! What an integrator needs from a problem ([`OdeSystem`]), what it reports
//! ([`IntegrationStats`], [`SolverError`]) and the work vectors it reuses ([`Workspace`]).

use alloc::vec;
use alloc::vec::Vec;
use core::fmt;

/// A first-order ODE `x' = f(t, x)` of fixed dimension.
pub trait OdeSystem {
    /// Dimension of `x`.
    fn dim(&self) -> usize;
    /// Writes `f(t, x)` into `dx` (both of length [`OdeSystem::dim`]).
    fn rhs(&mut self, t: f64, x: &[f64], dx: &mut [f64]);
    /// `(kl, ku)` when `∂f/∂x` is banded and [`OdeSystem::banded_jacobian`] writes it
    /// analytically; stiff solvers then factorise in the band ([`super::BandMatrix`]).
    /// `None` (the default): dense finite differences.
    fn band(&self) -> Option<(usize, usize)> {
        None
    }
    /// Writes `∂f/∂x` at `(t, x)` into `jac` (zeroed by the caller, bandwidths from
    /// [`OdeSystem::band`]). Called only when `band` is `Some`.
    fn banded_jacobian(&mut self, _t: f64, _x: &[f64], _jac: &mut super::BandMatrix) {}
}

/// Counters of one `integrate` call.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IntegrationStats {
    /// Accepted steps.
    pub accepted: u32,
    /// Rejected steps (adaptive methods only).
    pub rejected: u32,
    /// Right-hand-side evaluations.
    pub rhs_evals: u32,
}

/// Why an integration failed. The state passed in may hold a partial result.
#[derive(Clone, Debug, PartialEq)]
pub enum SolverError {
    /// The adaptive step fell below the resolution of `t`.
    StepSizeTooSmall {
        /// Time in s.
        t: f64,
        /// Rejected step in s.
        h: f64,
    },
    /// The state or its derivative became NaN or infinite.
    NonFinite {
        /// Time in s.
        t: f64,
    },
    /// More than the allowed number of steps in one call.
    TooManySteps {
        /// Time reached in s.
        t: f64,
        /// Steps taken.
        steps: u32,
    },
    /// Settings that cannot work (non-positive step or tolerances, bad interval).
    InvalidSettings(&'static str),
}

impl fmt::Display for SolverError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SolverError::StepSizeTooSmall { t, h } => {
                write!(
                    f,
                    "step size {h:e} s too small at t = {t} s (the problem may be too stiff)"
                )
            }
            SolverError::NonFinite { t } => write!(f, "state became non-finite at t = {t} s"),
            SolverError::TooManySteps { t, steps } => {
                write!(f, "gave up after {steps} steps at t = {t} s")
            }
            SolverError::InvalidSettings(m) => write!(f, "invalid solver settings: {m}"),
        }
    }
}

/// Work vectors allocated once per problem size, reused by every `integrate` call.
#[derive(Clone, Debug, PartialEq)]
pub struct Workspace {
    /// Stage derivatives k1..k7.
    pub(crate) k: [Vec<f64>; 7],
    /// Stage argument.
    pub(crate) arg: Vec<f64>,
    /// Candidate new state.
    pub(crate) next: Vec<f64>,
    /// Error estimate.
    pub(crate) err: Vec<f64>,
    /// Adaptive methods: step proposed for the next call in s (0 = none yet). Part of the
    /// solver state: save and restore it with the ODE state for reproducible steps.
    pub step_hint: f64,
    /// BDF work arrays, allocated by the first BDF call.
    pub(crate) bdf: Option<super::bdf::BdfWork>,
}

impl Workspace {
    /// Work vectors for an ODE of dimension `n`.
    pub fn new(n: usize) -> Self {
        Workspace {
            k: core::array::from_fn(|_| vec![0.0; n]),
            arg: vec![0.0; n],
            next: vec![0.0; n],
            err: vec![0.0; n],
            step_hint: 0.0,
            bdf: None,
        }
    }

    /// Dimension this workspace was made for.
    pub fn dim(&self) -> usize {
        self.arg.len()
    }
}

/// Checks the interval and dimensions shared by all integrators.
pub(crate) fn check_call(
    n: usize,
    x: &[f64],
    ws: &Workspace,
    t0: f64,
    t1: f64,
) -> Result<(), SolverError> {
    if x.len() != n || ws.dim() != n {
        return Err(SolverError::InvalidSettings(
            "state and workspace dimensions differ from the system",
        ));
    }
    if !(t0.is_finite() && t1.is_finite() && t1 > t0) {
        return Err(SolverError::InvalidSettings(
            "the interval must be finite with t1 > t0",
        ));
    }
    Ok(())
}

/// `x' = x²`: from `x(0) = x0 > 0` it blows up at `t = 1/x0`. For integrator tests.
#[cfg(test)]
pub(crate) struct Explode;

#[cfg(test)]
impl OdeSystem for Explode {
    fn dim(&self) -> usize {
        1
    }
    fn rhs(&mut self, _t: f64, x: &[f64], dx: &mut [f64]) {
        dx[0] = x[0] * x[0];
    }
}
