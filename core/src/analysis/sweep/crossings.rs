//! Where `ρ(Φ)` crosses the stability limit along one parameter (Table 1 of the paper:
//! the largest stable macro-step). ρ is not monotone in ΔT (docs/methods.md §9.3, Fig. 5), so a
//! bisection over the whole range can miss stable windows (docs/methods.md §9.3). Instead the
//! axis is scanned on its own grid and each sign change of `ρ − (1 + tol)` between two
//! neighbours is refined by bisection inside that interval only. Crossings closer together
//! than one grid interval are not resolved: choose the grid accordingly.

use super::{Axis, AxisSpec, Cell, CellStatus, LinearAnalysis, MapMetric, Parameter};
use crate::analysis::STABILITY_TOLERANCE;
use crate::error::ScenarioError;
use alloc::vec::Vec;

/// Bisection steps per bracket (relative width of a log bracket shrinks by 2⁻⁴⁸).
const REFINEMENT_STEPS: u32 = 48;

/// A point where ρ passes `1 + STABILITY_TOLERANCE`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Crossing {
    /// Parameter value of the crossing.
    pub value: f64,
    /// Stable just below `value` (and unstable just above); otherwise the reverse.
    pub stable_below: bool,
}

fn rho_at(analysis: &LinearAnalysis, parameter: &Parameter, v: f64) -> Option<f64> {
    let overrides = [(parameter, v)];
    let modules: Vec<usize> = parameter.module().into_iter().collect();
    let blocks = analysis
        .rebuild(None, analysis.blocks(), &modules, &overrides)
        .ok()?;
    let Cell { value, status } =
        analysis.evaluate_blocks(MapMetric::SpectralRadius, &blocks, &overrides);
    (!matches!(status, CellStatus::Failed(_))).then_some(value)
}

/// Scans `grid` (usually `master.macro_step`, log) and returns every stability crossing,
/// in increasing parameter order. Grid points that fail are skipped.
pub fn stability_crossings(
    analysis: &LinearAnalysis,
    grid: &AxisSpec,
) -> Result<Vec<Crossing>, ScenarioError> {
    let axis = Axis::new(analysis, grid, "analysis.x")?;
    let limit = 1.0 + STABILITY_TOLERANCE;
    let mut values: Vec<f64> = axis.values.clone();
    values.sort_by(|a, b| a.total_cmp(b));
    let samples: Vec<(f64, f64)> = values
        .iter()
        .filter_map(|&v| rho_at(analysis, &axis.parameter, v).map(|r| (v, r)))
        .collect();
    let mut out = Vec::new();
    for w in samples.windows(2) {
        let ((mut lo, rlo), (mut hi, rhi)) = (w[0], w[1]);
        let stable_lo = rlo <= limit;
        if stable_lo == (rhi <= limit) {
            continue;
        }
        for _ in 0..REFINEMENT_STEPS {
            let mid = if grid.log {
                libm::sqrt(lo * hi)
            } else {
                0.5 * (lo + hi)
            };
            if !(mid > lo && mid < hi) {
                break;
            }
            match rho_at(analysis, &axis.parameter, mid) {
                Some(r) if (r <= limit) == stable_lo => lo = mid,
                Some(_) => hi = mid,
                None => break,
            }
        }
        out.push(Crossing {
            value: if grid.log {
                libm::sqrt(lo * hi)
            } else {
                0.5 * (lo + hi)
            },
            stable_below: stable_lo,
        });
    }
    Ok(out)
}
