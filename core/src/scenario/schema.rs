//! The scenario document (JSON), exactly as a person writes it or a link carries it.
//! Strings are parsed here and only here; [`super::validate`] turns a [`Scenario`] into a
//! [`super::ValidatedScenario`] once, with errors that name the JSON path.

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

/// The schema version this build writes. Older versions are migrated on load.
pub const SCHEMA_VERSION: u32 = 1;

/// A complete co-simulation scenario.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Format version (see [`SCHEMA_VERSION`]).
    pub schema_version: u32,
    /// Short title shown in the page.
    #[serde(default)]
    pub title: String,
    /// What the scenario shows (plain text, never HTML).
    #[serde(default)]
    pub description: String,
    /// Module instances, in the order that defines the stacked input/output vectors.
    pub modules: Vec<ModuleSpec>,
    /// Connections `to = from`, one per input.
    pub connections: Vec<ConnectionSpec>,
    /// Master algorithm and its settings.
    pub master: MasterSpec,
    /// Simulated interval.
    pub run: RunSpec,
    /// Compare with the monolithic reference solution (linear scenarios only).
    #[serde(default = "default_true")]
    pub reference: bool,
    /// Outputs to plot (`module.output`); empty means all.
    #[serde(default)]
    pub plot: Vec<String>,
}

fn default_true() -> bool {
    true
}

/// One module instance.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModuleSpec {
    /// Instance name, unique in the scenario (letters, digits, `_`).
    pub name: String,
    /// Built-in model identifier, e.g. `TwoMassOscillator.Mass1`.
    pub model: String,
    /// Parameter and start values by variable name, in the variable's unit.
    #[serde(default)]
    pub parameters: BTreeMap<String, f64>,
    /// How the module integrates its equations (models that offer a choice).
    #[serde(default)]
    pub solver: SolverSpec,
}

/// Integration method inside a module.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "method", rename_all = "snake_case", deny_unknown_fields)]
pub enum SolverSpec {
    /// The model's own default (exact for linear models).
    #[default]
    Default,
    /// Exact solution of a linear model over each step (augmented matrix exponential).
    Exact,
    /// Classical Runge-Kutta 4 with a fixed micro-step (s); the macro-step is divided into
    /// the smallest whole number of micro-steps not longer than this.
    Rk4 {
        /// Largest micro-step in s.
        step: f64,
    },
    /// Adaptive Dormand-Prince 5(4) with error control.
    Dopri45 {
        /// Relative tolerance.
        rtol: f64,
        /// Absolute tolerance.
        atol: f64,
    },
}

/// A connection: input `to` takes the value of output `from` (both `module.variable`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConnectionSpec {
    /// Source output, `module.variable`.
    pub from: String,
    /// Target input, `module.variable`.
    pub to: String,
}

/// The master algorithm.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MasterSpec {
    /// Coupling scheme.
    pub algorithm: Algorithm,
    /// Macro-step size ΔT in s.
    pub macro_step: f64,
    /// Polynomial extrapolation order of the inputs, 0 (ZOH) to 4.
    #[serde(default)]
    pub extrapolation_order: u32,
    /// Gauss-Seidel: module names in the order they step (default: scenario order).
    #[serde(default)]
    pub sequence: Vec<String>,
    /// How the extrapolation history is filled before it holds `order + 1` points.
    #[serde(default)]
    pub start_up: StartUp,
}

/// Coupling scheme.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Algorithm {
    /// All modules step in parallel on extrapolated inputs.
    Jacobi,
    /// Modules step in sequence; later ones use the new outputs of earlier ones.
    GaussSeidel,
}

/// Extrapolation start-up.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StartUp {
    /// The order grows with the history: 0 at the first step, full order after `p` steps.
    /// Works for every scenario; limits the global convergence order (seed-000 digest §8.7).
    #[default]
    RampUp,
    /// History points before the start time come from the exact monolithic solution
    /// (linear scenarios only): the clean orders of convergence of seed 000.
    ExactHistory,
}

/// Simulated interval.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunSpec {
    /// Start time in s.
    #[serde(default)]
    pub start: f64,
    /// Stop time in s.
    pub stop: f64,
}
