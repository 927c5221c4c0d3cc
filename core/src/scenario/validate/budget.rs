//! Budgets checked before a run starts ([`crate::limits`]): the memory of what the run
//! records, the micro-steps of fixed-step module integrators and the size of the dense
//! matrices built from all states together. Each estimate comes from the scenario alone.

use super::super::schema::{Algorithm, Scenario, StartUp};
use crate::error::ScenarioError;
use crate::limits::{BudgetExceeded, Limit, Limits};
use crate::master::StepDiagnostics;
use crate::module::ModuleDescription;
use crate::solvers::SolverSpec;
use crate::time::FixedGrid;
use alloc::format;
use alloc::string::{String, ToString};

pub use crate::limits::MAX_PARAMETER_MAGNITUDE;

fn at(path: impl Into<String>, e: BudgetExceeded) -> ScenarioError {
    ScenarioError::at(path, e.to_string())
}

impl Scenario {
    /// Refuses a scenario whose run would exceed `limits`, before anything is allocated.
    pub(super) fn check_budgets(
        &self,
        limits: &Limits,
        descriptions: &[(String, ModuleDescription)],
        grid: &FixedGrid,
        outputs: usize,
        reference_available: bool,
    ) -> Result<(), ScenarioError> {
        let points = f64::from(grid.steps) + 1.0;
        let reference_requested = self.reference || self.master.start_up == StartUp::ExactHistory;
        let with_reference = reference_requested
            && (reference_available
                || descriptions
                    .iter()
                    .all(|(_, d)| d.capabilities.x_exposes_states));
        let columns = outputs as f64 * if with_reference { 2.0 } else { 1.0 };
        // time and step size (f64 each) and the step's diagnostics, then the columns.
        let per_point = 16.0 + core::mem::size_of::<StepDiagnostics>() as f64 + 8.0 * columns;
        limits
            .check(
                Limit::RunMemory,
                format!("the recorded outputs ({columns} columns × {points} points)"),
                per_point * points,
            )
            .map_err(|e| at("master.macro_step", e))?;
        for (i, spec) in self.modules.iter().enumerate() {
            if let SolverSpec::Rk4 { step } = spec.solver {
                if step > 0.0 {
                    let per_macro_step = libm::ceil(self.master.macro_step / step).max(1.0);
                    limits
                        .check(
                            Limit::MicroSteps,
                            format!(
                                "module `{}`: RK4 micro-steps of {step:e} s ({per_macro_step} per \
                                 macro-step × {} macro-steps)",
                                spec.name, grid.steps
                            ),
                            per_macro_step * f64::from(grid.steps),
                        )
                        .map_err(|e| at(format!("modules[{i}].solver.step"), e))?;
                }
            }
        }
        let mut total_states = 0usize;
        for (i, (name, d)) in descriptions.iter().enumerate() {
            let n = d.states().len();
            total_states += n;
            limits
                .check(
                    Limit::MatrixDimension,
                    format!("module `{name}`: its {n} states"),
                    n as f64,
                )
                .map_err(|e| at(format!("modules[{i}]"), e))?;
        }
        // The corrector's `I − G L` and the implicit scheme's Newton Jacobian are dense
        // over all coupled inputs.
        if self.master.correction.is_some() || self.master.algorithm == Algorithm::Implicit {
            let inputs = self.connections.len();
            limits
                .check(
                    Limit::MatrixDimension,
                    format!("the Jacobian of all {inputs} coupled inputs"),
                    inputs as f64,
                )
                .map_err(|e| at("connections", e))?;
        }
        // A chain's reference is one banded segment (docs/methods.md §16), bounded by the
        // chain's own size limits, not a dense matrix over all states.
        if with_reference && self.chain.is_none() {
            limits
                .check(
                    Limit::MatrixDimension,
                    format!(
                        "the monolithic reference of all {} modules ({total_states} states)",
                        descriptions.len()
                    ),
                    total_states as f64,
                )
                .map_err(|e| at("reference", e))?;
        }
        Ok(())
    }
}

/// A parameter value that is finite and within [`MAX_PARAMETER_MAGNITUDE`] (or zero).
pub(super) fn check_parameter_value(
    path: &str,
    module: &str,
    name: &str,
    value: f64,
) -> Result<(), ScenarioError> {
    let magnitude = libm::fabs(value);
    let fits = value == 0.0
        || (magnitude <= MAX_PARAMETER_MAGNITUDE && magnitude >= 1.0 / MAX_PARAMETER_MAGNITUDE);
    if value.is_finite() && fits {
        return Ok(());
    }
    Err(ScenarioError::at(
        path,
        format!(
            "module `{module}`, parameter `{name}`: {value:e} is out of range; values are 0 or \
             between 1e-100 and 1e100 in magnitude, so the matrices built from them stay finite"
        ),
    ))
}
