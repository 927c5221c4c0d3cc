//! Convergence study (seed 000, Fig. 8, Table 3): the local error `e_l,NRMSE` against the
//! macro-step for several extrapolation orders, with and without model-based correction,
//! and the fitted log–log slopes (expected `p + 1` plain and `p + 2` corrected, docs/methods.md
//! §10.6 Q3). Plain data: the CLI writes it as CSV, the page plots it.

use crate::analysis::sweep::{Cell, CellStatus, LinearAnalysis, MapMetric, Parameter};
use crate::analysis::{PropagationMethod, STABILITY_TOLERANCE};
use crate::error::ScenarioError;
use crate::limits::Limit;
use alloc::format;
use alloc::string::ToString;
use alloc::vec::Vec;

/// Errors below this are near the double-precision floor (docs/methods.md §10.4: ~1e-15 for high
/// orders at small ΔT) and are left out of the slope fit.
pub const FIT_FLOOR: f64 = 1e-12;
/// Errors above this are outside the asymptotic range and are left out of the fit.
pub const FIT_CEILING: f64 = 1e-1;

/// One macro-step of a curve.
#[derive(Clone, Debug, PartialEq)]
pub struct ConvergencePoint {
    /// ΔT in s.
    pub macro_step: f64,
    /// `e_l,NRMSE` (`+∞` when the run diverged).
    pub local_error: f64,
    /// `ρ(Φ)` (NaN if it could not be computed).
    pub spectral_radius: f64,
    /// Status of the local-error run.
    pub status: CellStatus,
}

/// One method's curve.
#[derive(Clone, Debug, PartialEq)]
pub struct ConvergenceCurve {
    /// Extrapolation order `p`.
    pub order: u32,
    /// With model-based correction.
    pub corrected: bool,
    /// Points in the order of the given macro-steps.
    pub points: Vec<ConvergencePoint>,
    /// Least-squares slope of `log e_l` against `log ΔT` over the points that are stable
    /// (`ρ ≤ 1 + tol`), finite and within `[FIT_FLOOR, FIT_CEILING]`; `None` with fewer
    /// than two such points.
    pub slope: Option<f64>,
}

/// Curves for every order in `orders` with the scenario's scheme and, when `alpha` is
/// given and the scheme is Jacobi, the same orders with correction.
pub fn convergence_study(
    analysis: &LinearAnalysis,
    macro_steps: &[f64],
    orders: &[u32],
    alpha: Option<f64>,
) -> Vec<ConvergenceCurve> {
    let base = analysis.method().clone();
    let mut methods: Vec<PropagationMethod> = orders
        .iter()
        .map(|&order| PropagationMethod {
            order,
            correction: None,
            ..base.clone()
        })
        .collect();
    if let (Some(a), crate::master::Scheme::Jacobi) = (alpha, &base.scheme) {
        methods.extend(
            orders
                .iter()
                .map(|&order| PropagationMethod::corrected(order, a)),
        );
    }
    methods
        .into_iter()
        .map(|method| {
            let a = analysis.with_method(method.clone());
            let points: Vec<ConvergencePoint> = macro_steps
                .iter()
                .map(|&h| {
                    let o = [(&Parameter::MacroStep, h)];
                    let Cell { value, status } = a.evaluate_at(MapMetric::LocalError, &o);
                    let rho = a.evaluate_at(MapMetric::SpectralRadius, &o).value;
                    ConvergencePoint {
                        macro_step: h,
                        local_error: value,
                        spectral_radius: rho,
                        status,
                    }
                })
                .collect();
            curve(method.order, method.correction.is_some(), points)
        })
        .collect()
}

/// The curve of `points` with its fitted slope (see [`ConvergenceCurve::slope`]); lets a
/// caller compute points one macro-step at a time (to stop between them) and fit after.
pub fn curve(order: u32, corrected: bool, points: Vec<ConvergencePoint>) -> ConvergenceCurve {
    let fit: Vec<(f64, f64)> = points
        .iter()
        .filter(|p| {
            p.spectral_radius <= 1.0 + STABILITY_TOLERANCE
                && (FIT_FLOOR..=FIT_CEILING).contains(&p.local_error)
                && !matches!(p.status, CellStatus::Failed(_) | CellStatus::Diverged)
        })
        .map(|p| (p.macro_step, p.local_error))
        .collect();
    ConvergenceCurve {
        order,
        corrected,
        points,
        slope: fitted_slope(&fit),
    }
}

/// Refuses a study whose runs together exceed the analysis's limit of macro-steps (every
/// order, every macro-step, with and without correction), before any is started.
pub fn check_budget(
    analysis: &LinearAnalysis,
    macro_steps: &[f64],
    orders: &[u32],
    alpha: Option<f64>,
) -> Result<(), ScenarioError> {
    let per_method: f64 = macro_steps
        .iter()
        .map(|&h| (analysis.horizon() / h).max(1.0))
        .sum();
    let methods = orders.len() as f64 * if alpha.is_some() { 2.0 } else { 1.0 };
    analysis
        .limits()
        .check(
            Limit::ConvergenceSteps,
            format!(
                "a convergence study of {methods} methods × {} macro-steps",
                macro_steps.len()
            ),
            per_method * methods,
        )
        .map_err(|e| ScenarioError::at("analysis", e.to_string()))
}

/// Least-squares slope of `log10 e` against `log10 ΔT` for `(ΔT, e)` pairs with positive
/// finite entries; `None` with fewer than two distinct ΔT.
pub fn fitted_slope(points: &[(f64, f64)]) -> Option<f64> {
    let logs: Vec<(f64, f64)> = points
        .iter()
        .filter(|(h, e)| h.is_finite() && e.is_finite() && *h > 0.0 && *e > 0.0)
        .map(|(h, e)| (libm::log10(*h), libm::log10(*e)))
        .collect();
    let n = logs.len() as f64;
    if logs.len() < 2 {
        return None;
    }
    let mx = logs.iter().map(|p| p.0).sum::<f64>() / n;
    let my = logs.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = logs.iter().map(|p| (p.0 - mx) * (p.0 - mx)).sum();
    let sxy: f64 = logs.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    (sxx > 0.0).then(|| sxy / sxx)
}
