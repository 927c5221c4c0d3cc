//! [`ErrorControlSettings`]: what a person chooses for an error-controlled run (estimator,
//! tolerances, safety factor, step limits, fixed or variable degree), with the defaults of
//! seed 002's Example 1 and a check that names the offending field (docs/methods.md §14.10).

use super::norms::Tolerances;
use crate::error::MasterError;
use alloc::format;

/// Highest polynomial degree `k` of the coupling variables (seed 002 uses degrees up to 5).
pub const MAX_DEGREE: usize = 5;

/// Points the coupling history must hold: the order controller compares up to degree
/// `k_max + 2`, which needs `k_max + 3` points.
pub const HISTORY_CAPACITY: usize = MAX_DEGREE + 3;

/// The five local error estimators of seed 002 (docs/methods.md §14.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EstimatorKind {
    /// Explicit; positions and velocities against a second run with the degree-`(k+1)`
    /// extrapolation.
    ExLocal,
    /// Explicit; Milne device on positions and velocities.
    ExMilne,
    /// Explicit; extrapolated against updated coupling variables.
    ExSLocal,
    /// Implicit; Milne device, predictor against corrector states.
    ImMilne,
    /// Implicit; predicted against corrected coupling variables.
    ImSLocal,
}

impl EstimatorKind {
    /// All five, in the seed's order.
    pub const ALL: [EstimatorKind; 5] = [
        EstimatorKind::ExLocal,
        EstimatorKind::ExMilne,
        EstimatorKind::ExSLocal,
        EstimatorKind::ImMilne,
        EstimatorKind::ImSLocal,
    ];

    /// The seed's name, as in messages and scenarios (`ExMilne`, ...).
    pub fn name(self) -> &'static str {
        match self {
            EstimatorKind::ExLocal => "ExLocal",
            EstimatorKind::ExMilne => "ExMilne",
            EstimatorKind::ExSLocal => "ExSLocal",
            EstimatorKind::ImMilne => "ImMilne",
            EstimatorKind::ImSLocal => "ImSLocal",
        }
    }

    /// The estimator of this name, if any.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|e| e.name() == name)
    }

    /// Whether it needs the implicit (predictor/corrector) scheme.
    pub fn implicit(self) -> bool {
        matches!(self, EstimatorKind::ImMilne | EstimatorKind::ImSLocal)
    }

    /// Whether it estimates states (positions and velocities, test (26), factors (32α))
    /// rather than coupling variables (test (27), factor (32β)).
    pub fn on_states(self) -> bool {
        !matches!(self, EstimatorKind::ExSLocal | EstimatorKind::ImSLocal)
    }

    /// History points a step of degree `k` needs: `k + 2` for ExLocal and ExMilne (their
    /// comparative run uses the degree-`(k+1)` extrapolation), `k + 1` for the others.
    pub fn history_points(self, k: usize) -> usize {
        match self {
            EstimatorKind::ExLocal | EstimatorKind::ExMilne => k + 2,
            _ => k + 1,
        }
    }

    /// The highest degree a step can use with `history_len` points, or `None` if not even
    /// degree 0 can be estimated (ExLocal and ExMilne on the very first step).
    pub fn max_degree(self, history_len: usize) -> Option<usize> {
        let extra = self.history_points(0);
        history_len.checked_sub(extra)
    }
}

/// Whether the degree is controlled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OrderMode {
    /// Degree `k` throughout (below it only while the start-up history is shorter).
    Fixed(usize),
    /// The order controller of seed 002 (Sect. 5.2) chooses `k ≤ k_max`, starting at 0.
    Variable {
        /// Highest degree, at most [`MAX_DEGREE`].
        k_max: usize,
    },
}

impl OrderMode {
    /// The highest degree this mode allows.
    pub fn k_max(self) -> usize {
        match self {
            OrderMode::Fixed(k) => k,
            OrderMode::Variable { k_max } => k_max,
        }
    }
}

/// Which states the state estimators (ExLocal, ExMilne, ImMilne) compare (seed 002, Sect.
/// 5.1: "all states of all subsystems" or "only the states of the coupling bodies").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MonitoredStates {
    /// Every state of every dynamic module.
    #[default]
    AllStates,
    /// Only the states an input enters the derivative of (the coupling bodies' velocities)
    /// and the positions whose derivatives they are (docs/methods.md §14.11.3).
    CouplingBodies,
}

impl MonitoredStates {
    /// The scenario's name (`all_states`, `coupling_bodies`).
    pub fn name(self) -> &'static str {
        match self {
            MonitoredStates::AllStates => "all_states",
            MonitoredStates::CouplingBodies => "coupling_bodies",
        }
    }

    /// The choice of this name, if any.
    pub fn from_name(name: &str) -> Option<Self> {
        [MonitoredStates::AllStates, MonitoredStates::CouplingBodies]
            .into_iter()
            .find(|m| m.name() == name)
    }
}

/// Settings of the macro-step size and order control. Defaults are seed 002's Example 1
/// (`SF = 6`, `r_min = 0.5`, `r_max = 2`, tolerances in [`Tolerances::default`]),
/// `H_min = 1e-12` s, no `H_max`, variable degree up to 5.
#[derive(Clone, Debug, PartialEq)]
pub struct ErrorControlSettings {
    /// Which local error estimator the algorithm computes.
    pub estimator: EstimatorKind,
    /// Absolute and relative tolerances per group (positions, velocities, coupling
    /// variables).
    pub tolerances: Tolerances,
    /// Safety factor `SF` of eqn (32) (seed: "e.g. SF ∈ [2, 6]"). Larger gives smaller,
    /// safer steps and fewer rejections.
    pub safety_factor: f64,
    /// Smallest factor `r_min` of a reduction after an accepted step (seed e.g. 0.5),
    /// in (0, 0.9].
    pub r_min: f64,
    /// The one growth factor `r_max` (seed e.g. 2): the step grows by exactly this or not at
    /// all.
    pub r_max: f64,
    /// The run aborts when the controller needs a step at or below this (s).
    pub h_min: f64,
    /// Steps are clamped to at most this (s).
    pub h_max: f64,
    /// Fixed degree or order control.
    pub order: OrderMode,
    /// Which states a state estimator compares (ignored by the coupling estimators).
    pub monitored: MonitoredStates,
    /// Output points the steps land on, every multiple of this from the start (s), as an
    /// ODE solver's stop times; none by default (docs/methods.md §14.11.5).
    pub output_interval: Option<f64>,
}

impl Default for ErrorControlSettings {
    fn default() -> Self {
        ErrorControlSettings {
            estimator: EstimatorKind::ExMilne,
            tolerances: Tolerances::default(),
            safety_factor: 6.0,
            r_min: 0.5,
            r_max: 2.0,
            h_min: 1e-12,
            h_max: f64::INFINITY,
            order: OrderMode::Variable { k_max: MAX_DEGREE },
            monitored: MonitoredStates::AllStates,
            output_interval: None,
        }
    }
}

impl ErrorControlSettings {
    /// Checks every field; the message names the field as the scenario's `step_control`
    /// object does (`rtol`, `h_min`, ...), so the scenario layer can prefix its JSON path.
    pub fn validate(&self) -> Result<(), MasterError> {
        let bad = |field: &str, why: &str| {
            Err(MasterError::InvalidSettings(format!(
                "step control `{field}`: {why}"
            )))
        };
        self.tolerances.validate()?;
        let sf = self.safety_factor;
        if !(sf.is_finite() && sf > 0.0) {
            return bad("safety_factor", "must be a finite number > 0");
        }
        if !(self.r_min > 0.0 && self.r_min <= 0.9) {
            return bad("r_min", "must lie in (0, 0.9]");
        }
        if !(self.r_max.is_finite() && self.r_max > 1.0) {
            return bad("r_max", "must be a finite number > 1");
        }
        if !(self.h_min.is_finite() && self.h_min > 0.0) {
            return bad("h_min", "must be a finite number > 0");
        }
        if self
            .output_interval
            .is_some_and(|d| !(d.is_finite() && d > 0.0))
        {
            return bad("output_interval", "must be a finite number > 0");
        }
        if self.h_max.is_nan() || self.h_max <= 0.0 {
            return bad("h_max", "must be > 0");
        }
        if self.h_min > self.h_max {
            return bad("h_min", "must not exceed h_max");
        }
        if self.order.k_max() > MAX_DEGREE {
            return bad(
                match self.order {
                    OrderMode::Fixed(_) => "order",
                    OrderMode::Variable { .. } => "k_max",
                },
                &format!(
                    "degree {} is above the highest supported degree {MAX_DEGREE}",
                    self.order.k_max()
                ),
            );
        }
        if self.monitored != MonitoredStates::AllStates && !self.estimator.on_states() {
            return bad(
                "monitor",
                &format!(
                    "{} compares coupling variables, not states; `monitor` applies to \
                     ExLocal, ExMilne and ImMilne",
                    self.estimator.name()
                ),
            );
        }
        Ok(())
    }
}
