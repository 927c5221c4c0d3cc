//! The list of built-in models ([`catalog`]) and how a scenario entry becomes a module
//! ([`instantiate`]).

use super::equations::{self, EQUATIONS_ID, EXAMPLE_SOURCE};
use super::parameters::{check, ParameterSet, Range};
use super::two_mass_oscillator::{
    mass1_linear, mass1_ode, mass1_variables, mass2_linear, mass2_ode, mass2_variables,
    Mass1Params, Mass2Params, MASS1_ID, MASS2_ID,
};
use crate::module::{Module, ModuleError, Variable};
use crate::solvers::SolverSpec;
use crate::solvers::{Dopri45, Integrator, Rk4};
use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

/// A built-in model as the page and the CLI list it.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelInfo {
    /// Model id used in scenarios (`modules[].model`).
    pub id: &'static str,
    /// One-line summary.
    pub summary: &'static str,
    /// Parameters (causality `Parameter`) and state start values (causality `Local`) that a
    /// scenario may set by name, with units, defaults (`start`) and descriptions.
    pub parameters: Vec<Variable>,
    /// Allowed solvers, one entry per kind with its suggested settings.
    pub solvers: Vec<SolverSpec>,
}

impl ModelInfo {
    /// True if the solver's kind is allowed for this model (settings are not checked).
    pub fn allows(&self, solver: &SolverSpec) -> bool {
        self.solvers
            .iter()
            .any(|s| core::mem::discriminant(s) == core::mem::discriminant(solver))
    }
}

/// Suggested RK4 micro-step in s: 1/20 of the fastest period of the default oscillator
/// (ω ≈ 1.0e3 rad/s, T ≈ 6.2 ms) keeps RK4's error well below plotting resolution.
pub const DEFAULT_RK4_STEP: f64 = 1e-5;
/// Suggested Dopri45 relative tolerance.
pub const DEFAULT_RTOL: f64 = 1e-8;
/// Suggested Dopri45 absolute tolerance.
pub const DEFAULT_ATOL: f64 = 1e-12;

fn linear_solvers() -> Vec<SolverSpec> {
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

/// All built-in models.
pub fn catalog() -> Vec<ModelInfo> {
    let mut models = vec![
        ModelInfo {
            id: MASS1_ID,
            summary: "Two-mass oscillator, subsystem I: mass m1 on spring c1 and damper d1, \
                      driven by the coupling force Fk; outputs position s1 and velocity v1.",
            parameters: mass1_variables(),
            solvers: linear_solvers(),
        },
        ModelInfo {
            id: MASS2_ID,
            summary: "Two-mass oscillator, subsystem II: mass m2 on spring c2 and damper d2 plus the \
                      coupling spring ck and damper dk; inputs s1, v1; output coupling force Fk.",
            parameters: mass2_variables(),
            solvers: linear_solvers(),
        },
        ModelInfo {
            id: super::nonlinear_two_mass::MASS2_NONLINEAR_ID,
            summary: "Two-mass oscillator, subsystem II with a nonlinear coupling damper (seed 000, eqn 43): \
                      damping clamp(dk*|v2 - v1|^(nd-1), dkmin, dkmax); nd = 1 is the linear Mass2.",
            parameters: super::nonlinear_two_mass::variables(),
            solvers: super::nonlinear_two_mass::solvers(),
        },
        ModelInfo {
            id: EQUATIONS_ID,
            summary: "Equation module: parameters, inputs, states, der() equations and outputs written as \
                      text (scenario field `source`); exact Jacobians by automatic differentiation.",
            parameters: Vec::new(),
            solvers: vec![
                SolverSpec::Default,
                SolverSpec::Rk4 { step: DEFAULT_RK4_STEP },
                SolverSpec::Dopri45 { rtol: DEFAULT_RTOL, atol: DEFAULT_ATOL },
            ],
        },
    ];
    models.extend(super::reference_fmus::infos());
    models
}

/// The integrator for a numeric solver; `None` for `Default` and `Exact`.
pub fn integrator_for(solver: &SolverSpec) -> Result<Option<Integrator>, ModuleError> {
    let named = |what: &str, e: ModuleError| match e.kind {
        crate::module::ModuleErrorKind::InvalidArgument(m) => {
            ModuleError::invalid(format!("solver {what}{m}"))
        }
        _ => e,
    };
    match *solver {
        SolverSpec::Default | SolverSpec::Exact => Ok(None),
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
    }
}

/// Builds model `id` with parameter/start values from `params` and the chosen solver.
/// Unknown ids or names, non-finite values and out-of-range parameters are
/// `ModuleError::invalid` errors naming the offending entry.
pub fn instantiate(
    id: &str,
    params: &BTreeMap<String, f64>,
    solver: &SolverSpec,
) -> Result<Box<dyn Module>, ModuleError> {
    let integrator = integrator_for(solver)?;
    match id {
        MASS1_ID => {
            let p = Mass1Params::from_map(params)?;
            Ok(match integrator {
                None => Box::new(mass1_linear(&p)?),
                Some(i) => Box::new(mass1_ode(&p, i)?),
            })
        }
        MASS2_ID => {
            let p = Mass2Params::from_map(params)?;
            Ok(match integrator {
                None => Box::new(mass2_linear(&p)?),
                Some(i) => Box::new(mass2_ode(&p, i)?),
            })
        }
        super::nonlinear_two_mass::MASS2_NONLINEAR_ID => {
            super::nonlinear_two_mass::instantiate(params, solver)
        }
        // Without a scenario `source`, the catalog entry is the example (mass 1).
        EQUATIONS_ID => equations::build(EXAMPLE_SOURCE, params, solver),
        _ => {
            if let Some(module) = super::reference_fmus::instantiate(id, params, solver) {
                return module;
            }
            let known: Vec<&str> = catalog().iter().map(|m| m.id).collect();
            Err(ModuleError::invalid(format!(
                "unknown model `{id}` (known: {})",
                known.join(", ")
            )))
        }
    }
}
