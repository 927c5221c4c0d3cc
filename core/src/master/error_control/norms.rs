//! Weighted RMS norms of seed 002's local error test (paper eqns 25–27, docs/methods.md
//! §14.7): three groups (positions, velocities, coupling variables), each with its own
//! `rtol` and an `atol` per component.
//!
//! Pinned choice (the seed says "rtol identical for all components" but Example 1 gives the
//! coupling forces their own `rtol_fc`): every group has its own `rtol`; the seed's single
//! state `rtol` is the case `positions.rtol == velocities.rtol`.

use super::constants::MilneFactors;
use crate::error::MasterError;
use alloc::format;
use alloc::vec::Vec;

/// Absolute tolerance of a group: one value for every component, or one per component.
#[derive(Clone, Debug, PartialEq)]
pub enum AbsTol {
    /// The same `atol` for every component.
    Uniform(f64),
    /// `atol_i` per component; a component beyond the list uses the last value.
    PerComponent(Vec<f64>),
}

impl AbsTol {
    /// `atol_i` of component `i`.
    #[inline]
    pub fn get(&self, i: usize) -> f64 {
        match self {
            AbsTol::Uniform(a) => *a,
            AbsTol::PerComponent(a) => a.get(i).or(a.last()).copied().unwrap_or(0.0),
        }
    }

    fn all_valid(&self) -> bool {
        let ok = |a: &f64| a.is_finite() && *a >= 0.0;
        match self {
            AbsTol::Uniform(a) => ok(a),
            AbsTol::PerComponent(a) => !a.is_empty() && a.iter().all(ok),
        }
    }
}

/// Tolerances of one group: `W_i = atol_i + rtol·|value_i|`.
#[derive(Clone, Debug, PartialEq)]
pub struct GroupTolerance {
    /// Relative tolerance (> 0).
    pub rtol: f64,
    /// Absolute tolerance per component (≥ 0).
    pub atol: AbsTol,
}

impl GroupTolerance {
    /// `rtol` with one `atol` for all components.
    pub fn new(rtol: f64, atol: f64) -> Self {
        GroupTolerance {
            rtol,
            atol: AbsTol::Uniform(atol),
        }
    }

    /// The weight `W_i = atol_i + rtol·|value|` of component `i`.
    #[inline]
    pub fn weight(&self, i: usize, value: f64) -> f64 {
        self.atol.get(i) + self.rtol * value.abs()
    }

    /// `‖ε‖_WRMS = sqrt(1/n Σ (ε_i / W_i)²)` with weights from `values` (the new solution,
    /// paper eqns 25–27). Zero for an empty group.
    pub fn wrms(&self, eps: &[f64], values: &[f64]) -> f64 {
        debug_assert_eq!(eps.len(), values.len());
        self.rms(values, |i| eps[i])
    }

    /// `‖factor·(a − b)‖_WRMS` with weights from `values` (the new solution): an estimator's
    /// norm straight from the two solutions it compares, without a buffer.
    pub fn wrms_of_difference(&self, factor: f64, a: &[f64], b: &[f64], values: &[f64]) -> f64 {
        debug_assert!(a.len() == b.len() && a.len() == values.len());
        self.rms(values, |i| factor * (a[i] - b[i]).abs())
    }

    fn rms(&self, values: &[f64], eps: impl Fn(usize) -> f64) -> f64 {
        if values.is_empty() {
            return 0.0;
        }
        let sum: f64 = values
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let r = scaled(eps(i), self.weight(i, *v));
                r * r
            })
            .sum();
        libm::sqrt(sum / values.len() as f64)
    }

    fn validate(&self, group: &str) -> Result<(), MasterError> {
        if !(self.rtol.is_finite() && self.rtol > 0.0) {
            return Err(MasterError::InvalidSettings(format!(
                "step control `{group}.rtol`: must be a finite number > 0 (got {})",
                self.rtol
            )));
        }
        if !self.atol.all_valid() {
            return Err(MasterError::InvalidSettings(format!(
                "step control `{group}.atol`: every value must be finite and ≥ 0"
            )));
        }
        Ok(())
    }
}

/// `x / w`, with `0 / 0 = 0`: a component that is exactly zero with `atol = 0` neither fails
/// nor poisons the norm with a NaN (a non-zero error on a zero weight still fails).
#[inline]
pub(super) fn scaled(x: f64, w: f64) -> f64 {
    if x == 0.0 {
        0.0
    } else {
        x / w
    }
}

/// The tolerances of the three groups.
#[derive(Clone, Debug, PartialEq)]
pub struct Tolerances {
    /// Positions `q` (test (26), factor `r_pos`).
    pub positions: GroupTolerance,
    /// Velocities `v` (test (26), factor `r_vel`).
    pub velocities: GroupTolerance,
    /// Coupling variables `u` (test (27), the a priori estimate (31) and the scaled
    /// derivative norms of the order controller).
    pub coupling: GroupTolerance,
}

impl Default for Tolerances {
    /// Seed 002's Example 1: `rtol = 1e-5`, `atol_x = 1e-8`, `atol_v = 1e-5`,
    /// `rtol_fc = 1e-3`, `atol_fc = 1e-1`.
    fn default() -> Self {
        Tolerances {
            positions: GroupTolerance::new(1e-5, 1e-8),
            velocities: GroupTolerance::new(1e-5, 1e-5),
            coupling: GroupTolerance::new(1e-3, 1e-1),
        }
    }
}

impl Tolerances {
    /// Checks each group (`rtol > 0`, `atol ≥ 0`, all finite).
    pub fn validate(&self) -> Result<(), MasterError> {
        self.positions.validate("positions")?;
        self.velocities.validate("velocities")?;
        self.coupling.validate("coupling")
    }
}

/// The WRMS norms of one attempt's a posteriori estimate. State estimators fill
/// `positions` and `velocities`; coupling estimators fill `coupling`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ErrorNorms {
    /// `‖ε_pos‖_WRMS`.
    pub positions: Option<f64>,
    /// `‖ε_vel‖_WRMS`.
    pub velocities: Option<f64>,
    /// `‖ε_u‖_WRMS`.
    pub coupling: Option<f64>,
}

impl ErrorNorms {
    /// Norms of a state estimator.
    pub fn states(positions: f64, velocities: f64) -> Self {
        ErrorNorms {
            positions: Some(positions),
            velocities: Some(velocities),
            coupling: None,
        }
    }

    /// A state estimator's norms from its solutions: `q`, `v` the new solution (weights),
    /// `q_cmp`, `v_cmp` the comparison (`q̂` for ExLocal and ExMilne, `q^pre` for ImMilne),
    /// `factors` its Milne factors ([`MilneFactors::UNIT`] for ExLocal).
    pub fn from_states(
        tol: &Tolerances,
        factors: MilneFactors,
        (q, q_cmp): (&[f64], &[f64]),
        (v, v_cmp): (&[f64], &[f64]),
    ) -> Self {
        Self::states(
            tol.positions.wrms_of_difference(factors.pos, q, q_cmp, q),
            tol.velocities.wrms_of_difference(factors.vel, v, v_cmp, v),
        )
    }

    /// A coupling estimator's norm: `u` the new (updated or corrected) values, `u_cmp` the
    /// extrapolated or predicted ones (ExSLocal, ImSLocal).
    pub fn from_coupling(tol: &Tolerances, u: &[f64], u_cmp: &[f64]) -> Self {
        Self::coupling(tol.coupling.wrms_of_difference(1.0, u, u_cmp, u))
    }

    /// Norm of a coupling-variable estimator.
    pub fn coupling(coupling: f64) -> Self {
        ErrorNorms {
            positions: None,
            velocities: None,
            coupling: Some(coupling),
        }
    }

    /// The tested norm: `max(‖ε_pos‖, ‖ε_vel‖)` (eqn 26) for state estimators,
    /// `‖ε_u‖` (eqn 27) otherwise; the step passes when it is ≤ 1. A missing group counts
    /// as 0 and a NaN as failure (`+∞`).
    pub fn tested(&self, on_states: bool) -> f64 {
        let value = |x: Option<f64>| match x {
            Some(v) if v.is_nan() => f64::INFINITY,
            Some(v) => v,
            None => 0.0,
        };
        if on_states {
            value(self.positions).max(value(self.velocities))
        } else {
            value(self.coupling)
        }
    }
}
