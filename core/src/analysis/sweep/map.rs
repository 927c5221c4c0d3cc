//! [`ParameterMap`]: a metric over two parameters, computed in tiles of rows so callers
//! can spread tiles over threads (CLI) or Web Workers (page) and draw each as it arrives.

use super::live::LiveModules;
use super::{Axis, AxisSpec, Cell, CellStatus, LinearAnalysis, MapMetric, Parameter};
use crate::error::ScenarioError;
use crate::limits::Limit;
use crate::time::MAX_MACRO_STEPS;
use alloc::format;
use alloc::string::ToString;
use alloc::vec::Vec;
use core::ops::Range;

/// Map definition; cells are computed on demand by [`ParameterMap::compute_rows`].
#[derive(Clone, Debug)]
pub struct ParameterMap {
    analysis: LinearAnalysis,
    x: Axis,
    y: Axis,
    metric: MapMetric,
}

/// Rows `rows` of a map: `values[r * nx + i]` is the cell at `(x[i], y[rows.start + r])`.
#[derive(Clone, Debug, PartialEq)]
pub struct MapTile {
    /// Row range (indices into the y values).
    pub rows: Range<u32>,
    /// Row-major values.
    pub values: Vec<f64>,
    /// Row-major statuses.
    pub status: Vec<CellStatus>,
}

/// Refuses a map whose cells × macro-steps per cell exceed the analysis's limit: a
/// spectral-radius cell counts one, an error cell the macro-steps of its run (at the
/// smallest macro-step an axis sweeps).
fn check_work(
    analysis: &LinearAnalysis,
    x: &Axis,
    y: &Axis,
    metric: MapMetric,
) -> Result<(), ScenarioError> {
    let cells = x.values.len() as f64 * y.values.len() as f64;
    let smallest_step = [x, y]
        .iter()
        .filter(|a| a.parameter == Parameter::MacroStep)
        .flat_map(|a| a.values.iter().copied())
        .fold(analysis.macro_step(), f64::min);
    let per_cell = match metric {
        MapMetric::SpectralRadius => 1.0,
        MapMetric::GlobalError | MapMetric::LocalError => {
            (analysis.horizon() / smallest_step).clamp(1.0, f64::from(MAX_MACRO_STEPS))
        }
    };
    analysis
        .limits()
        .check(
            Limit::MapWork,
            format!("a map of {cells} cells × {per_cell:.0} macro-steps each"),
            cells * per_cell,
        )
        .map_err(|e| ScenarioError::at("analysis", e.to_string()))
}

impl ParameterMap {
    /// Checks both axes (errors name `analysis.x…`/`analysis.y…`).
    pub fn new(
        analysis: LinearAnalysis,
        x: &AxisSpec,
        y: &AxisSpec,
        metric: MapMetric,
    ) -> Result<Self, ScenarioError> {
        let x = Axis::new(&analysis, x, "analysis.x")?;
        let y = Axis::new(&analysis, y, "analysis.y")?;
        check_work(&analysis, &x, &y, metric)?;
        Ok(ParameterMap {
            analysis,
            x,
            y,
            metric,
        })
    }

    /// x sample values.
    pub fn x_values(&self) -> &[f64] {
        &self.x.values
    }

    /// y sample values.
    pub fn y_values(&self) -> &[f64] {
        &self.y.values
    }

    /// The metric.
    pub fn metric(&self) -> MapMetric {
        self.metric
    }

    /// Computes the rows `rows` (clamped to the map). Blocks changed only by the y
    /// parameter are built once per row; each cell rebuilds only the module x changes.
    pub fn compute_rows(&self, rows: Range<u32>) -> MapTile {
        let ny = self.y.values.len() as u32;
        let rows = rows.start.min(ny)..rows.end.min(ny);
        let nx = self.x.values.len();
        let mut values = Vec::with_capacity(rows.len() * nx);
        let mut status = Vec::with_capacity(rows.len() * nx);
        let mut live = LiveModules::new(self.analysis.blocks().len());
        let xm: Vec<usize> = self.x.parameter.module().into_iter().collect();
        // A module both axes change is read once per cell (with both values), not per row.
        let ym: Vec<usize> = self
            .y
            .parameter
            .module()
            .filter(|m| !xm.contains(m))
            .into_iter()
            .collect();
        for r in rows.clone() {
            let yv = self.y.values[r as usize];
            let row_blocks = self.analysis.rebuild(
                Some(&mut live),
                self.analysis.blocks(),
                &ym,
                &[(&self.y.parameter, yv)],
            );
            for &xv in &self.x.values {
                let overrides = [(&self.x.parameter, xv), (&self.y.parameter, yv)];
                let cell = match &row_blocks {
                    Err(e) => Cell::failed(e.clone()),
                    Ok(base) => {
                        match self
                            .analysis
                            .rebuild(Some(&mut live), base, &xm, &overrides)
                        {
                            Ok(blocks) => {
                                self.analysis
                                    .evaluate_blocks(self.metric, &blocks, &overrides)
                            }
                            Err(e) => Cell::failed(e),
                        }
                    }
                };
                values.push(cell.value);
                status.push(cell.status);
            }
        }
        MapTile {
            rows,
            values,
            status,
        }
    }
}

/// The metric along one axis (Fig. 5: ρ against ΔT; Fig. 7: e_g against c_k).
pub fn sweep(
    analysis: &LinearAnalysis,
    axis: &AxisSpec,
    metric: MapMetric,
) -> Result<Vec<(f64, Cell)>, ScenarioError> {
    let axis = Axis::new(analysis, axis, "analysis.x")?;
    let modules: Vec<usize> = axis.parameter.module().into_iter().collect();
    let mut live = LiveModules::new(analysis.blocks().len());
    Ok(axis
        .values
        .iter()
        .map(|&v| {
            let overrides = [(&axis.parameter, v)];
            let cell =
                match analysis.rebuild(Some(&mut live), analysis.blocks(), &modules, &overrides) {
                    Ok(blocks) => analysis.evaluate_blocks(metric, &blocks, &overrides),
                    Err(e) => Cell::failed(e),
                };
            (v, cell)
        })
        .collect())
}
