//! Power bonds, multi-rate steps and the energy correction of seed 001 (docs/methods.md
//! §13), as a scenario writes them:
//!
//! ```json
//! "bonds": [{"effort": "mass2.F", "flow": "mass1.v2"}],
//! "master": {"algorithm": "jacobi", "macro_step": 1e-3,
//!            "module_steps": {"mass2": 1e-4},
//!            "energy_correction": {"mu": 0.725, "nu": 0, "cap": {"fraction": 1.0}}}
//! ```
//!
//! A bond names two connections by their target inputs: `effort` receives the force
//! (torque, pressure) from the feedthrough side, `flow` sends the receiver's velocity
//! (angular velocity, volume flow) back.

use alloc::string::String;
use serde::{Deserialize, Serialize};

/// One power bond.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BondSpec {
    /// Input receiving the effort (`module.input`), on the side that gets the correction.
    pub effort: String,
    /// Input receiving the flow (`module.input`), on the feedthrough side.
    pub flow: String,
}

/// The energy correction.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EnergyCorrectionSpec {
    /// μ in [0, 1] for every bond; absent: each bond's μ from the rules of seed 001.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mu: Option<f64>,
    /// Integral gain ν in [0, 1] (default 0).
    #[serde(default)]
    pub nu: f64,
    /// Limit on the correction (default: 100 % of the uncorrected effort).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cap: Option<CapSpec>,
}

/// A limit on the correction: a fraction of the uncorrected effort, an absolute value in
/// the effort's unit, or both (then the larger of the two applies).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CapSpec {
    /// Fraction of `|f|`, > 0 (1 is 100 %).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fraction: Option<f64>,
    /// Absolute limit, > 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub absolute: Option<f64>,
}
