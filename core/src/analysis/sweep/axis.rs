//! [`AxisSpec`]: one axis of a map or sweep as a person writes it (the scenario format's
//! `analysis.x`/`analysis.y`, the CLI's `--x`), and [`Axis`]: its parameter resolved and
//! its sample values.

use super::{LinearAnalysis, Parameter};
use crate::error::ScenarioError;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

/// Most points on one axis (a 4096 × 4096 map is already 16.7 M cells).
pub const MAX_AXIS_POINTS: u32 = 4096;

/// One axis of a map or sweep.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AxisSpec {
    /// `module.parameter` (e.g. `mass2.ck`), `master.macro_step` or
    /// `master.correction.alpha`.
    pub parameter: String,
    /// First value, in the parameter's unit.
    pub from: f64,
    /// Last value.
    pub to: f64,
    /// Number of points (≥ 2).
    pub points: u32,
    /// Logarithmic spacing.
    #[serde(default)]
    pub log: bool,
}

/// A parameter and the values it takes.
#[derive(Clone, Debug, PartialEq)]
pub struct Axis {
    /// The swept quantity.
    pub parameter: Parameter,
    /// Sample values, `from` to `to`.
    pub values: Vec<f64>,
}

impl Axis {
    /// Checks `spec` (errors name `path.parameter`, `path.from`, …) and samples it:
    /// `from·(to/from)^(i/(n−1))` when `log`, evenly spaced otherwise; one point is `from`.
    pub fn new(
        analysis: &LinearAnalysis,
        spec: &AxisSpec,
        path: &str,
    ) -> Result<Axis, ScenarioError> {
        let parameter = analysis.parameter(&spec.parameter, &format!("{path}.parameter"))?;
        let (a, b, n) = (spec.from, spec.to, spec.points);
        if !(a.is_finite() && b.is_finite()) {
            return Err(ScenarioError::at(
                format!("{path}.from"),
                "from and to must be finite numbers",
            ));
        }
        if spec.log && !(a > 0.0 && b > 0.0) {
            return Err(ScenarioError::at(
                format!("{path}.from"),
                format!("a log axis needs from, to > 0 (got {a}, {b})"),
            ));
        }
        if n == 0 || n > MAX_AXIS_POINTS {
            return Err(ScenarioError::at(
                format!("{path}.points"),
                format!("expected 1 to {MAX_AXIS_POINTS}, got {n}"),
            ));
        }
        let values = (0..n)
            .map(|i| {
                let t = if n == 1 {
                    0.0
                } else {
                    f64::from(i) / f64::from(n - 1)
                };
                if spec.log {
                    a * libm::pow(b / a, t)
                } else {
                    a + (b - a) * t
                }
            })
            .collect();
        Ok(Axis { parameter, values })
    }
}
