//! Macro-step size selection, exactly seed 002, Sect. 5.3 (docs/methods.md §14.9): the factor
//! `r` of paper eqns (32)–(34) with the exponents of the local orders (`k + 3` positions,
//! `k + 2` velocities, `k + 1` coupling variables) and the safety factor `SF`, then the
//! quantised limits of the flowchart (Fig. 7):
//!
//! - accepted (`N_fail = 0`): `r ≥ r_max` → `r_max·H_N`; `1 ≤ r < r_max` → `H_N`;
//!   `r < 1` → `min(0.9, max(r_min, r))·H_N`;
//! - first failure (`N_fail = 1`): `min(0.9, max(0.25, 0.9·r))·H_N`;
//! - later failures (`N_fail > 1`) or a corrector that did not converge: `0.25·H_N`.
//!
//! A NaN factor (a NaN estimate) counts as `r = 0`: the largest reduction its branch allows.

/// `r = (SF·‖ε‖)^(−1/order)`: the factor that brings the estimate of a quantity converging
/// with local order `order` to `1/SF` (paper eqn 32). `‖ε‖ = 0` gives `+∞`.
#[inline]
pub fn ratio(norm: f64, order: usize, safety_factor: f64) -> f64 {
    libm::pow(safety_factor * norm, -1.0 / order as f64)
}

/// `min(r_pos, r_vel)` with exponents `k + 3` and `k + 2` (state estimators, eqn 32α/34).
pub fn state_ratio(pos: f64, vel: f64, k: usize, safety_factor: f64) -> f64 {
    ratio(pos, k + 3, safety_factor).min(ratio(vel, k + 2, safety_factor))
}

/// `r_u` with exponent `k + 1` (coupling estimators and the a priori estimate, eqns 32β, 33).
pub fn coupling_ratio(norm: f64, k: usize, safety_factor: f64) -> f64 {
    ratio(norm, k + 1, safety_factor)
}

/// Which branch of Sect. 5.3 set the step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepRule {
    /// Accepted, `r ≥ r_max`: grow by exactly `r_max`.
    Grow,
    /// Accepted, `1 ≤ r < r_max`: keep `H_N`.
    Keep,
    /// Accepted, `r < 1`: `min(0.9, max(r_min, r))`.
    Shrink,
    /// First failure: `min(0.9, max(0.25, 0.9·r))`.
    FirstFailure,
    /// Later failures: `0.25`.
    RepeatedFailure,
    /// The corrector did not converge: `0.25`.
    NotConverged,
}

/// Limits of the quantised step factor.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StepLimits {
    /// Smallest reduction after an accepted step.
    pub r_min: f64,
    /// The one growth factor.
    pub r_max: f64,
}

/// The factor `H_M/H_N` and its branch, from `r`, the consecutive failures of this step
/// (`n_fail`, this attempt included; 0 when accepted) and whether the corrector failed.
pub fn step_factor(
    r: f64,
    n_fail: u32,
    corrector_failed: bool,
    limits: StepLimits,
) -> (f64, StepRule) {
    let r = if r.is_nan() { 0.0 } else { r };
    if corrector_failed {
        (0.25, StepRule::NotConverged)
    } else if n_fail > 1 {
        (0.25, StepRule::RepeatedFailure)
    } else if n_fail == 1 {
        (0.9_f64.min(0.25_f64.max(0.9 * r)), StepRule::FirstFailure)
    } else if r >= limits.r_max {
        (limits.r_max, StepRule::Grow)
    } else if r >= 1.0 {
        (1.0, StepRule::Keep)
    } else {
        (0.9_f64.min(limits.r_min.max(r)), StepRule::Shrink)
    }
}
