//! `master.step_control` with `"method": "error"`: seed 002's error-controlled macro-steps
//! (docs/methods.md §14.11) as a scenario writes them, and the master's settings built from
//! them.
//!
//! ```json
//! "step_control": {
//!   "method": "error", "estimator": "ex_milne",
//!   "rtol": 1e-5, "atol": {"pos": 1e-8, "vel": 1e-5, "u": 0.1}, "rtol_u": 1e-3,
//!   "safety_factor": 6, "r_min": 0.5, "r_max": 2, "h_min": 1e-12, "h_max": 1e-3,
//!   "order": {"variable": {"k_max": 5}}, "monitor": "all_states"
//! }
//! ```
//!
//! `master.macro_step` is the first step `H_0`.

use crate::master::error_control::{
    AbsTol, ErrorControlSettings, EstimatorKind, GroupTolerance, MonitoredStates, OrderMode,
    Tolerances, MAX_DEGREE,
};
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

/// The local error estimator (seed 002 §4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EstimatorSpec {
    /// Explicit: comparative run with the degree-(k+1) extrapolation.
    ExLocal,
    /// Explicit: Milne device on positions and velocities.
    ExMilne,
    /// Explicit: extrapolated against updated coupling variables.
    ExSLocal,
    /// Implicit only: predictor against corrector states.
    ImMilne,
    /// Implicit only: predicted against corrected coupling variables.
    ImSLocal,
}

impl EstimatorSpec {
    /// The master's estimator.
    pub fn kind(self) -> EstimatorKind {
        match self {
            EstimatorSpec::ExLocal => EstimatorKind::ExLocal,
            EstimatorSpec::ExMilne => EstimatorKind::ExMilne,
            EstimatorSpec::ExSLocal => EstimatorKind::ExSLocal,
            EstimatorSpec::ImMilne => EstimatorKind::ImMilne,
            EstimatorSpec::ImSLocal => EstimatorKind::ImSLocal,
        }
    }
}

/// Which states a state estimator compares (seed 002, Sect. 5.1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MonitorSpec {
    /// Every state of every dynamic module (default).
    #[default]
    AllStates,
    /// Only the coupling bodies: states an input enters the derivative of, and their
    /// positions (ExLocal, ExMilne, ImMilne).
    CouplingBodies,
}

/// An absolute tolerance: one value, or one per component (the last one repeats).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum AtolValue {
    /// The same for every component.
    Value(f64),
    /// Per component, in stacking order.
    PerComponent(Vec<f64>),
}

impl AtolValue {
    fn abs_tol(&self) -> AbsTol {
        match self {
            AtolValue::Value(a) => AbsTol::Uniform(*a),
            AtolValue::PerComponent(a) => AbsTol::PerComponent(a.clone()),
        }
    }

    /// Every value, for validation.
    pub fn values(&self) -> &[f64] {
        match self {
            AtolValue::Value(a) => core::slice::from_ref(a),
            AtolValue::PerComponent(a) => a,
        }
    }
}

/// Absolute tolerances of the three groups (seed 002 Example 1 by default).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GroupAtol {
    /// Positions, in their units (default 1e-8).
    #[serde(default = "default_atol_pos")]
    pub pos: AtolValue,
    /// Velocities (default 1e-5).
    #[serde(default = "default_atol_vel")]
    pub vel: AtolValue,
    /// Coupling variables (default 0.1).
    #[serde(default = "default_atol_u")]
    pub u: AtolValue,
}

impl Default for GroupAtol {
    fn default() -> Self {
        GroupAtol {
            pos: default_atol_pos(),
            vel: default_atol_vel(),
            u: default_atol_u(),
        }
    }
}

fn default_atol_pos() -> AtolValue {
    AtolValue::Value(1e-8)
}
fn default_atol_vel() -> AtolValue {
    AtolValue::Value(1e-5)
}
fn default_atol_u() -> AtolValue {
    AtolValue::Value(0.1)
}

/// `atol`: one number for every group, or one per group.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(
    untagged,
    expecting = "`atol`: expected a number, or an object of `pos`, `vel` and `u` only (each a number or a list of numbers)"
)]
pub enum AtolSpec {
    /// The same absolute tolerance for positions, velocities and coupling variables.
    All(f64),
    /// Per group (`pos`, `vel`, `u`).
    Groups(GroupAtol),
}

impl Default for AtolSpec {
    fn default() -> Self {
        AtolSpec::Groups(GroupAtol::default())
    }
}

impl AtolSpec {
    /// `(pos, vel, u)`.
    pub fn groups(&self) -> GroupAtol {
        match self {
            AtolSpec::All(a) => GroupAtol {
                pos: AtolValue::Value(*a),
                vel: AtolValue::Value(*a),
                u: AtolValue::Value(*a),
            },
            AtolSpec::Groups(g) => g.clone(),
        }
    }
}

/// Fixed degree or order control.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum OrderSpec {
    /// `{"fixed": k}`: degree k throughout (lower only while the history is short).
    Fixed(u32),
    /// `{"variable": {"k_max": 5}}`: the order controller of seed 002 §5.2.
    Variable {
        /// Highest degree, at most 5.
        #[serde(default = "default_k_max")]
        k_max: u32,
    },
}

impl Default for OrderSpec {
    fn default() -> Self {
        OrderSpec::Variable {
            k_max: default_k_max(),
        }
    }
}

fn default_k_max() -> u32 {
    MAX_DEGREE as u32
}

/// Settings of `"method": "error"`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ErrorControlSpec {
    /// The local error estimator.
    pub estimator: EstimatorSpec,
    /// Relative tolerance of positions and velocities (> 0).
    pub rtol: f64,
    /// Absolute tolerances.
    #[serde(default)]
    pub atol: AtolSpec,
    /// Relative tolerance of the coupling variables (default: `rtol`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rtol_u: Option<f64>,
    /// Safety factor SF of eqn (32), default 6.
    #[serde(default = "default_safety_factor")]
    pub safety_factor: f64,
    /// Smallest reduction after an accepted step, default 0.5.
    #[serde(default = "default_r_min")]
    pub r_min: f64,
    /// The growth factor, default 2.
    #[serde(default = "default_r_max")]
    pub r_max: f64,
    /// The run ends when the step would fall to this (s), default 1e-12.
    #[serde(default = "default_h_min")]
    pub h_min: f64,
    /// Largest step (s); default: none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub h_max: Option<f64>,
    /// Fixed degree or order control (default variable, k_max = 5).
    #[serde(default)]
    pub order: OrderSpec,
    /// Which states the state estimators compare (default `all_states`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub monitor: Option<MonitorSpec>,
    /// The implicit corrector (`master.algorithm: "implicit"` only; defaults if absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub corrector: Option<super::CorrectorSpec>,
    /// Output points the steps land on, every multiple of this from the start (s); none by
    /// default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_interval: Option<f64>,
}

fn default_safety_factor() -> f64 {
    6.0
}
fn default_r_min() -> f64 {
    0.5
}
fn default_r_max() -> f64 {
    2.0
}
fn default_h_min() -> f64 {
    1e-12
}

impl ErrorControlSpec {
    /// The master's settings.
    pub fn settings(&self) -> ErrorControlSettings {
        let atol = self.atol.groups();
        let group = |rtol: f64, atol: &AtolValue| GroupTolerance {
            rtol,
            atol: atol.abs_tol(),
        };
        ErrorControlSettings {
            estimator: self.estimator.kind(),
            tolerances: Tolerances {
                positions: group(self.rtol, &atol.pos),
                velocities: group(self.rtol, &atol.vel),
                coupling: group(self.rtol_u.unwrap_or(self.rtol), &atol.u),
            },
            safety_factor: self.safety_factor,
            r_min: self.r_min,
            r_max: self.r_max,
            h_min: self.h_min,
            h_max: self.h_max.unwrap_or(f64::INFINITY),
            order: match self.order {
                OrderSpec::Fixed(k) => OrderMode::Fixed(k as usize),
                OrderSpec::Variable { k_max } => OrderMode::Variable {
                    k_max: k_max as usize,
                },
            },
            monitored: match self.monitor.unwrap_or_default() {
                MonitorSpec::AllStates => MonitoredStates::AllStates,
                MonitorSpec::CouplingBodies => MonitoredStates::CouplingBodies,
            },
            output_interval: self.output_interval,
        }
    }
}
