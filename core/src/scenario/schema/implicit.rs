//! `master.step_control.corrector`: the implicit predictor/corrector's settings
//! (docs/methods.md §14.12), only with `master.algorithm: "implicit"`.
//!
//! ```json
//! "corrector": {"jacobian": "finite_differences", "newton": "simplified",
//!               "tolerance_fraction": 0.1, "max_iterations": 5}
//! ```

use crate::master::{CorrectorSettings, InterfaceJacobian, NewtonIteration};
use serde::{Deserialize, Serialize};

/// How the interface Jacobian is computed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JacobianSpec {
    /// Finite differences with rollback (default).
    #[default]
    FiniteDifferences,
    /// Low-order sensitivities from the exposed equations (no extra integration).
    LowOrder,
    /// The modules' directional derivatives, linearisation integrated over the step.
    DirectionalDerivatives,
}

/// Whether the corrector re-evaluates the interface Jacobian.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NewtonSpec {
    /// Once per attempt, at the predictor point (default).
    #[default]
    Simplified,
    /// At every iterate.
    Full,
}

/// The corrector's settings; every field has the documented default.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CorrectorSpec {
    /// The interface Jacobian.
    #[serde(default)]
    pub jacobian: JacobianSpec,
    /// `simplified` (the Jacobian once per attempt, default) or `full` (at every iterate).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub newton: Option<NewtonSpec>,
    /// Converged when `‖g_c‖_WRMS` (coupling tolerances) is at most this, default 0.1.
    #[serde(default = "default_fraction")]
    pub tolerance_fraction: f64,
    /// Corrector runs before a rejection with `0.25·H`, default 5.
    #[serde(default = "default_iterations")]
    pub max_iterations: u32,
}

fn default_fraction() -> f64 {
    CorrectorSettings::default().tolerance_fraction
}
fn default_iterations() -> u32 {
    CorrectorSettings::default().max_iterations
}

impl Default for CorrectorSpec {
    fn default() -> Self {
        CorrectorSpec {
            jacobian: JacobianSpec::default(),
            newton: None,
            tolerance_fraction: default_fraction(),
            max_iterations: default_iterations(),
        }
    }
}

impl CorrectorSpec {
    /// The master's settings.
    pub fn settings(&self) -> CorrectorSettings {
        CorrectorSettings {
            jacobian: match self.jacobian {
                JacobianSpec::FiniteDifferences => InterfaceJacobian::FiniteDifferences,
                JacobianSpec::LowOrder => InterfaceJacobian::LowOrder,
                JacobianSpec::DirectionalDerivatives => InterfaceJacobian::DirectionalDerivatives,
            },
            newton: match self.newton.unwrap_or_default() {
                NewtonSpec::Simplified => NewtonIteration::Simplified,
                NewtonSpec::Full => NewtonIteration::Full,
            },
            tolerance_fraction: self.tolerance_fraction,
            max_iterations: self.max_iterations,
        }
    }
}
