//! How a model turns the scenario's [`SolverSpec`] into an [`Integrator`]: the suggested
//! settings the catalog offers and the checks of the numbers a person wrote.

use super::parameters::{check, Range};
use crate::module::{ModuleError, ModuleErrorKind};
use crate::solvers::{Bdf, Dopri45, Integrator, Rk4, SolverSpec, Tolerance};
use alloc::format;
use alloc::vec;
use alloc::vec::Vec;

/// Suggested RK4 micro-step in s: 1/20 of the fastest period of the default oscillator
/// (ω ≈ 1.0e3 rad/s, T ≈ 6.2 ms) keeps RK4's error well below plotting resolution.
pub const DEFAULT_RK4_STEP: f64 = 1e-5;
/// Suggested Dopri45 relative tolerance.
pub const DEFAULT_RTOL: f64 = 1e-8;
/// Suggested Dopri45 absolute tolerance.
pub const DEFAULT_ATOL: f64 = 1e-12;

/// Solvers of a linear model: its default (exact), exact, and both integrators.
pub(super) fn linear_solvers() -> Vec<SolverSpec> {
    vec![
        SolverSpec::Default,
        SolverSpec::Exact,
        SolverSpec::Rk4 {
            step: DEFAULT_RK4_STEP,
        },
        SolverSpec::Dopri45 {
            rtol: DEFAULT_RTOL,
            atol: DEFAULT_ATOL,
        },
    ]
}

/// Solvers of a model without an exact solution: its default and both integrators.
pub(super) fn numeric_solvers() -> Vec<SolverSpec> {
    vec![
        SolverSpec::Default,
        SolverSpec::Rk4 {
            step: DEFAULT_RK4_STEP,
        },
        SolverSpec::Dopri45 {
            rtol: DEFAULT_RTOL,
            atol: DEFAULT_ATOL,
        },
    ]
}

/// Suggested BDF tolerances of a stiff model (the seed 002 subsystem tolerances; models
/// may give per-state absolute tolerances by default).
pub const DEFAULT_BDF_RTOL: f64 = 1e-6;
/// Suggested BDF absolute tolerance.
pub const DEFAULT_BDF_ATOL: f64 = 1e-9;

/// Solvers of a stiff model: its default (a BDF) and the three integrators.
pub(super) fn stiff_solvers() -> Vec<SolverSpec> {
    vec![
        SolverSpec::Default,
        SolverSpec::Bdf {
            rtol: DEFAULT_BDF_RTOL,
            atol: Tolerance::All(DEFAULT_BDF_ATOL),
        },
        SolverSpec::Dopri45 {
            rtol: DEFAULT_RTOL,
            atol: DEFAULT_ATOL,
        },
        SolverSpec::Rk4 {
            step: DEFAULT_RK4_STEP,
        },
    ]
}

/// Only the model's own default (models that integrate themselves).
pub(super) fn default_only() -> Vec<SolverSpec> {
    vec![SolverSpec::Default]
}

/// Solvers of a model that steps itself exactly or by one forward-Euler step per
/// communication step: its default (exact), exact and Euler.
pub(super) fn exact_or_euler() -> Vec<SolverSpec> {
    vec![SolverSpec::Default, SolverSpec::Exact, SolverSpec::Euler]
}

/// Checks the settings of `solver` (every model's constructor checks its kind).
pub(super) fn check_settings(solver: &SolverSpec) -> Result<(), ModuleError> {
    match solver {
        // No settings; only the models that list it accept it.
        SolverSpec::Euler | SolverSpec::SymplecticEuler => Ok(()),
        other => integrator_for(other).map(|_| ()),
    }
}

/// The integrator for a numeric solver; `None` for `Default` and `Exact`. `Euler` and
/// `SymplecticEuler` are errors: the models that offer them step themselves.
pub fn integrator_for(solver: &SolverSpec) -> Result<Option<Integrator>, ModuleError> {
    let named = |what: &str, e: ModuleError| match e.kind {
        ModuleErrorKind::InvalidArgument(m) => ModuleError::invalid(format!("solver {what}{m}")),
        _ => e,
    };
    match *solver {
        SolverSpec::Default | SolverSpec::Exact => Ok(None),
        SolverSpec::Euler => Err(ModuleError::invalid(
            "solver `euler` (one forward-Euler step per communication step) is offered only by \
             the RotationalOscillator slaves; use `rk4` or `dopri45`",
        )),
        SolverSpec::SymplecticEuler => Err(ModuleError::invalid(
            "solver `symplectic_euler` (one symplectic-Euler step per communication step) is \
             offered only by the energy benchmark models; use `rk4` or `dopri45`",
        )),
        SolverSpec::Rk4 { step } => {
            check("step", step, Range::Positive).map_err(|e| named("", e))?;
            Ok(Some(Integrator::Rk4(Rk4 { max_step: step })))
        }
        SolverSpec::Dopri45 { rtol, atol } => {
            check("rtol", rtol, Range::NonNegative).map_err(|e| named("", e))?;
            check("atol", atol, Range::NonNegative).map_err(|e| named("", e))?;
            if rtol + atol <= 0.0 {
                return Err(ModuleError::invalid(
                    "solver parameters `rtol` and `atol`: at least one must be positive",
                ));
            }
            Ok(Some(Integrator::Dopri45(Dopri45 { rtol, atol })))
        }
        SolverSpec::Bdf { rtol, ref atol } => {
            check("rtol", rtol, Range::Positive).map_err(|e| named("", e))?;
            let atol = atol.values();
            if atol.is_empty() {
                return Err(ModuleError::invalid(
                    "solver parameter `atol`: expected a number or a non-empty list",
                ));
            }
            for (i, a) in atol.iter().enumerate() {
                let name = if atol.len() == 1 {
                    format!("atol")
                } else {
                    format!("atol[{i}]")
                };
                check(&name, *a, Range::Positive).map_err(|e| named("", e))?;
            }
            Ok(Some(Integrator::Bdf(Bdf { rtol, atol })))
        }
    }
}
