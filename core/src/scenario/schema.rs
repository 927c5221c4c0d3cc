//! The scenario document (JSON), exactly as a person writes it or a link carries it.
//! Strings are parsed here and only here; [`super::validate`] turns a [`Scenario`] into a
//! [`super::ValidatedScenario`] once, with errors that name the JSON path.

use crate::models::ModelArgs;
use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

/// The axis of a sweep lives with the sweeps; the scenario format names it here.
pub use crate::analysis::sweep::AxisSpec;
/// The solver choice lives with the solvers; the scenario format names it here.
pub use crate::solvers::SolverSpec;

mod energy;
mod error_control;
mod implicit;
mod module_json;
pub use super::chain::ChainSpec;
pub use energy::{BondSpec, CapSpec, EnergyCorrectionSpec};
pub use error_control::{
    AtolSpec, AtolValue, ErrorControlSpec, EstimatorSpec, GroupAtol, MonitorSpec, OrderSpec,
};
pub use implicit::{CorrectorSpec, JacobianSpec, NewtonSpec};

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
    /// Module instances, in the order that defines the stacked input/output vectors
    /// (empty with `chain`, which writes them).
    #[serde(default)]
    pub modules: Vec<ModuleSpec>,
    /// Connections `to = from`, one per input (empty with `chain`).
    #[serde(default)]
    pub connections: Vec<ConnectionSpec>,
    /// A mass chain named by its size (docs/methods.md §16.1): validation expands it into
    /// `modules`, `connections` and the recorded outputs (`plot`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chain: Option<ChainSpec>,
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
    /// Stability/accuracy analysis settings (map axes and ranges), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub analysis: Option<AnalysisSpec>,
    /// Power bonds monitored for residual power and energy (docs/methods.md §13).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bonds: Vec<BondSpec>,
    /// Where the page's diagram draws each module: name -> `[x, y]` of its block's top
    /// left corner, in diagram units. Presentation only: no run reads it.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub layout: BTreeMap<String, [f64; 2]>,
    /// Runs the page compares with this one ("pinned runs"), each as a label and the
    /// fields it changes (a JSON merge patch of this scenario). Presentation only: a run
    /// of this scenario ignores them; the page runs each variant as its own scenario.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub variants: Vec<VariantSpec>,
}

/// One pinned variant of a scenario (see [`Scenario::variants`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VariantSpec {
    /// What the page's legend calls it, e.g. `order 0`.
    #[serde(default)]
    pub label: String,
    /// The changed fields as a JSON merge patch (RFC 7396) of the scenario.
    #[serde(default)]
    pub patch: serde_json::Value,
}

fn default_true() -> bool {
    true
}

/// One module instance.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(
    from = "module_json::ModuleSpecJson",
    into = "module_json::ModuleSpecJson"
)]
pub struct ModuleSpec {
    /// Instance name, unique in the scenario (letters, digits, `_`).
    pub name: String,
    /// Built-in model identifier, e.g. `TwoMassOscillator.Mass1`.
    pub model: String,
    /// Parameter and start values by variable name, in the variable's unit.
    pub parameters: BTreeMap<String, f64>,
    /// Parameters that are not numbers, for binary modules' FMI 3.0 variables: `true` or
    /// `false`, text, hexadecimal text (Binary), an array, an integer beyond 2^53. Written
    /// in the same `parameters` object as the numbers.
    pub typed_parameters: BTreeMap<String, serde_json::Value>,
    /// How the module integrates its equations (models that offer a choice).
    pub solver: SolverSpec,
    /// Source text of an equation module (model `Equations`): parameters, inputs,
    /// outputs, states and equations such as `der(v) = (-c*x - d*v + F)/m`.
    pub source: Option<String>,
}

impl ModuleSpec {
    /// What the model's constructor takes from this entry.
    pub fn model_args(&self) -> ModelArgs<'_> {
        ModelArgs {
            parameters: &self.parameters,
            solver: &self.solver,
            source: self.source.as_deref(),
        }
    }
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
    /// Model-based output and state correction (seed 000), Jacobi only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub correction: Option<CorrectionSpec>,
    /// Defect-measuring Jacobi of seed 003 (docs/methods.md §15): Taylor polynomials
    /// exchanged instead of extrapolated ones. Jacobi only, without `extrapolation_order`
    /// or `correction`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub defects: Option<DefectsSpec>,
    /// Step-size control; absent: the fixed grid of `macro_step`. Variable-step methods
    /// start with `macro_step`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step_control: Option<StepControlSpec>,
    /// Multi-rate Jacobi: communication steps (s) of modules faster than `macro_step`, each
    /// a whole fraction of it (docs/methods.md §13.6).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub module_steps: BTreeMap<String, f64>,
    /// Energy correction on the scenario's bonds (docs/methods.md §13.5), Jacobi only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub energy_correction: Option<EnergyCorrectionSpec>,
}

/// Settings of the defect-measuring Jacobi master (docs/methods.md §15).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DefectsSpec {
    /// Input polynomial order `m`, 0 to 2: input derivatives `1..=m` are set.
    pub input_order: u32,
    /// Output polynomial order `n`, 0 to 2: output derivatives `1..=n` are read.
    pub output_order: u32,
    /// Which defects the controlled defect `ε_k` takes its maximum over.
    #[serde(default)]
    pub monitored: MonitoredDefects,
    /// How the first step's derivatives are filled.
    #[serde(default)]
    pub initialisation: DefectInitialisation,
}

/// Which defects enter the controlled defect.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MonitoredDefects {
    /// Output defect estimates and connection defects.
    #[default]
    Both,
    /// Output defect estimates only.
    Output,
    /// Connection defects only.
    Connection,
}

/// The first step's derivative samples (docs/methods.md §15.7).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DefectInitialisation {
    /// Exact derivatives at the start time, read from the modules.
    #[default]
    Consistent,
    /// The authors' code: zero derivatives in the first step (zero-order hold).
    ZeroDerivatives,
}

/// How the macro-step size is chosen, by `method`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "method", rename_all = "snake_case", deny_unknown_fields)]
pub enum StepControlSpec {
    /// The PI controller on the controlled defect (docs/methods.md §15.5); needs
    /// `master.defects`. Never rejects a step.
    Defect {
        /// Tolerance on the controlled defect, > 0.
        tol: f64,
    },
    /// Seed 002's local error estimators with macro-step size and order control
    /// (docs/methods.md §14); rejected steps are rolled back.
    Error(ErrorControlSpec),
}

/// Settings of the model-based corrector (docs/methods.md §8).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CorrectionSpec {
    /// Fraction α of the accumulated input-integral error compensated in the next step
    /// (eqn 21); 1 is the common choice.
    #[serde(default = "default_alpha")]
    pub alpha: f64,
    /// Where the subsystem Jacobians come from.
    #[serde(default)]
    pub jacobians: JacobianSource,
}

fn default_alpha() -> f64 {
    1.0
}

/// Source of the Jacobians the corrector needs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JacobianSource {
    /// Directional derivatives when every module declares them (with exposed states),
    /// otherwise finite differences with rollback.
    #[default]
    Auto,
    /// `fmi3GetDirectionalDerivative` with exposed states.
    DirectionalDerivatives,
    /// Finite differences of the step map, with `fmi3GetFMUState`/`fmi3SetFMUState` rollback.
    FiniteDifferences,
}

/// Which analysis view a scenario opens with, and its axes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnalysisSpec {
    /// The view.
    pub view: AnalysisView,
    /// Horizontal axis (maps and sweeps).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x: Option<AxisSpec>,
    /// Vertical axis (maps).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub y: Option<AxisSpec>,
    /// Macro-steps for overlaid contours or convergence studies, in s.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub macro_steps: Vec<f64>,
    /// Extrapolation orders to compare (convergence), 0 to 4.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub orders: Vec<u32>,
}

/// Analysis views (seed 000, Figs. 4 to 9).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AnalysisView {
    /// Time response, co-simulation against the reference.
    TimeResponse,
    /// Spectral radius of the propagation matrix over two parameters, with the ρ = 1 contour.
    StabilityMap,
    /// Global NRMSE over two parameters, with the e_g = 0.01 contour.
    AccuracyMap,
    /// ρ against the macro-step (Fig. 5).
    RhoVersusStep,
    /// Global NRMSE against one parameter (Fig. 7).
    ErrorVersusParameter,
    /// Local error against the macro-step, log-log, with fitted slopes (Fig. 8).
    Convergence,
}

/// Coupling scheme.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Algorithm {
    /// All modules step in parallel on extrapolated inputs.
    Jacobi,
    /// Modules step in sequence; later ones use the new outputs of earlier ones.
    GaussSeidel,
    /// Seed 002's implicit predictor/corrector (Jacobi predictor, Newton corrector on the
    /// coupling equations); only with `step_control` `error` and an implicit estimator.
    Implicit,
}

/// Extrapolation start-up.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StartUp {
    /// The order grows with the history: 0 at the first step, full order after `p` steps.
    /// Works for every scenario; limits the global convergence order (docs/methods.md §4.4).
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
    /// Stop time in s, reached exactly: when it is not a whole number of macro-steps after
    /// `start` (relative 1e-9), the last step is shorter. Model-based correction, multi-rate
    /// Jacobi and the propagation-matrix analysis views refuse such a stop time
    /// (docs/methods.md §2.4).
    pub stop: f64,
}
