//! Where the model-based corrector gets its Jacobians, and how they become the output
//! gains `G_q` of docs/methods.md §8.3:
//! `G_q = C Σ_k b_k k! B_dk / ΔT^k + D`, with `q(τ) = τ(τ+1)…(τ+q−1)/q! = Σ_k b_k τ^k`
//! the shape of the difference between the true and the extrapolated input over a step.
//!
//! Two sources, chosen per module ([`select_methods`]):
//! - **directional derivatives** (`providesDirectionalDerivatives` with `x-exposesStates`):
//!   `A, B, C, D` at the module's current point by unit seeds ([`StateSpaceReader`]), then
//!   `B_dk` from [`crate::solvers::discretize`]. Read after the module's step, so step `n`
//!   is corrected with the Jacobians at the latest available point `T_{n+1}` (docs/methods.md
//!   §7.1). Modules declaring `x-linearTimeInvariant` are read once, before the run.
//! - **finite differences of the step map** (`canGetAndSetFMUState`): the step is repeated
//!   from a saved state with the input polynomial moved along `±ε q(τ)` (central
//!   difference), which gives the columns of `G_q` directly as `∂y_{n+1}/∂ε`. FMI defines
//!   no step sensitivities, so this is what an importer must do without exposed states
//!   (docs/methods.md §6.6, §6.8).

use super::CoupledSystem;
use crate::error::MasterError;

use alloc::vec::Vec;
use nalgebra::DMatrix;

/// Which Jacobian source the corrector may use (scenario `master.correction.jacobians`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum JacobianRequest {
    /// Per module: directional derivatives if it has them with exposed states, otherwise
    /// finite differences with rollback.
    #[default]
    Auto,
    /// Directional derivatives with exposed states for every module with inputs.
    DirectionalDerivatives,
    /// Finite differences of the step map with rollback for every module with inputs.
    FiniteDifferences,
}

/// Which Jacobian source a corrected run actually uses (shown by the page).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JacobianSource {
    /// Every module with inputs gives `A, B, C, D` by directional derivatives.
    DirectionalDerivatives,
    /// Every module with inputs is differentiated through its step map with rollback.
    FiniteDifferences,
    /// Some modules one way, some the other.
    Mixed,
    /// No module has inputs, so nothing is corrected.
    NotNeeded,
}

impl JacobianSource {
    /// Snake-case name, as in the scenario format.
    pub fn as_str(&self) -> &'static str {
        match self {
            JacobianSource::DirectionalDerivatives => "directional_derivatives",
            JacobianSource::FiniteDifferences => "finite_differences",
            JacobianSource::Mixed => "mixed",
            JacobianSource::NotNeeded => "not_needed",
        }
    }
}

/// How one module's gain blocks are obtained.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ModuleMethod {
    /// No inputs: the module has no columns in `G`.
    NoInputs,
    /// Linear time-invariant with directional derivatives: read once before the run.
    Constant,
    /// Directional derivatives at every communication point.
    Directional,
    /// Finite differences of the step map with rollback, every step.
    FiniteDifferences,
}

const NEEDED: &str = "providesDirectionalDerivatives with x-exposesStates, or canGetAndSetFMUState";

/// The method for every module, or [`MasterError::MissingCapability`] for the first module
/// that cannot deliver what `request` asks for (checked before the first step).
pub(super) fn select_methods(
    sys: &CoupledSystem,
    request: JacobianRequest,
) -> Result<Vec<ModuleMethod>, MasterError> {
    let mut out = Vec::with_capacity(sys.n_modules());
    for m in 0..sys.n_modules() {
        if sys.graph().input_range(m).is_empty() {
            out.push(ModuleMethod::NoInputs);
            continue;
        }
        let caps = &sys.subsystem(m).description().capabilities;
        let dd = caps.provides_directional_derivatives && caps.x_exposes_states;
        let fd = caps.can_get_and_set_fmu_state;
        let directional = if caps.x_linear_time_invariant {
            ModuleMethod::Constant
        } else {
            ModuleMethod::Directional
        };
        let missing = |capability: &'static str, why: &str| MasterError::MissingCapability {
            module: sys.name(m).into(),
            capability,
            needed_by: alloc::format!("model-based correction ({why})"),
        };
        out.push(match request {
            JacobianRequest::Auto if dd => directional,
            JacobianRequest::Auto if fd => ModuleMethod::FiniteDifferences,
            JacobianRequest::Auto => {
                return Err(missing(
                    NEEDED,
                    "Jacobians need directional derivatives with exposed states, or rollback; the module has neither",
                ))
            }
            JacobianRequest::DirectionalDerivatives if dd => directional,
            JacobianRequest::DirectionalDerivatives => {
                return Err(missing(
                    "providesDirectionalDerivatives with x-exposesStates",
                    "jacobians = directional_derivatives",
                ))
            }
            JacobianRequest::FiniteDifferences if fd => ModuleMethod::FiniteDifferences,
            JacobianRequest::FiniteDifferences => {
                return Err(missing("canGetAndSetFMUState", "jacobians = finite_differences"))
            }
        });
    }
    Ok(out)
}

/// The source a set of per-module methods amounts to.
pub(super) fn summarize(methods: &[ModuleMethod]) -> JacobianSource {
    let dd = methods
        .iter()
        .any(|m| matches!(m, ModuleMethod::Constant | ModuleMethod::Directional));
    let fd = methods.contains(&ModuleMethod::FiniteDifferences);
    match (dd, fd) {
        (true, true) => JacobianSource::Mixed,
        (true, false) => JacobianSource::DirectionalDerivatives,
        (false, true) => JacobianSource::FiniteDifferences,
        (false, false) => JacobianSource::NotNeeded,
    }
}

/// The Jacobian source a model-based corrector would use on `sys` with `request`, or the
/// capability error it would refuse with. Needs only the module descriptions, so a caller
/// can show the source before handing the system to [`super::Run`].
pub fn jacobian_source_for(
    sys: &CoupledSystem,
    request: JacobianRequest,
) -> Result<JacobianSource, MasterError> {
    select_methods(sys, request).map(|m| summarize(&m))
}

/// `G = C Σ_k w_k Γ_k + D` for one module, with `Γ_k = B_dk` ([`crate::solvers::Discretization`]).
pub(super) fn gain_block(
    c: &DMatrix<f64>,
    d: &DMatrix<f64>,
    gamma: &[DMatrix<f64>],
    weights: &[f64],
) -> DMatrix<f64> {
    let mut s = DMatrix::zeros(c.ncols(), d.ncols());
    for (g, w) in gamma.iter().zip(weights) {
        if *w != 0.0 {
            s += g * *w;
        }
    }
    c * s + d
}
