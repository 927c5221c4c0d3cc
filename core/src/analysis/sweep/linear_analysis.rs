//! [`LinearAnalysis`]: linear blocks, coupling matrix, method, macro-step and horizon,
//! ready to be evaluated at any point of a parameter sweep. A point reads again only the
//! blocks of the modules whose parameters it changes, through the [`ModuleFactory`] that
//! built them ([`Subsystem`], [`LinearBlock::from_subsystem`]).

use super::cell::{Cell, CellStatus, MapMetric};
use super::live::LiveModules;
use super::parameter::Parameter;
use super::ModuleFactory;
use crate::analysis::accuracy::error_measures;
use crate::analysis::{
    spectrum, LinearBlock, MonolithicReference, PropagationMatrix, PropagationMethod,
};
use crate::error::{MasterError, ScenarioError};
use crate::limits::Limits;
use crate::solvers::{discretize, Discretization};
use crate::time::FixedGrid;
use alloc::format;
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;
use nalgebra::DMatrix;

/// Condition number of `I − G_p L` above which corrected results are flagged
/// [`CellStatus::IllConditioned`]: rounding in ȳ is then amplified beyond ~1e-6.
pub const CORRECTOR_CONDITION_LIMIT: f64 = 1e10;

/// A linear coupled system prepared for propagation-matrix analysis. The composition root
/// builds one from a validated scenario (`LinearAnalysis::new`); [`LinearAnalysis::from_blocks`]
/// takes the parts.
#[derive(Clone, Debug)]
pub struct LinearAnalysis {
    modules: Arc<dyn ModuleFactory>,
    names: Vec<String>,
    t_start: f64,
    blocks: Vec<LinearBlock>,
    /// `blocks[i]` discretised at `macro_step` and the method's order (`None` if that
    /// failed): points that leave a block unchanged reuse it.
    discretized: Vec<Option<Discretization>>,
    l: DMatrix<f64>,
    method: PropagationMethod,
    macro_step: f64,
    horizon: f64,
    limits: Limits,
}

impl LinearAnalysis {
    /// The analysis of `blocks` (read at `grid.t_start`, in the order of `names`) coupled
    /// by `coupling` (rows: stacked inputs, columns: stacked outputs) under `method`, at the
    /// grid's macro-step, with error measures over the grid's length. `modules` rebuilds
    /// a module for the points that change its parameters.
    pub fn from_blocks(
        modules: Arc<dyn ModuleFactory>,
        names: Vec<String>,
        blocks: Vec<LinearBlock>,
        coupling: DMatrix<f64>,
        method: PropagationMethod,
        grid: FixedGrid,
    ) -> Self {
        LinearAnalysis {
            modules,
            names,
            t_start: grid.t_start,
            discretized: discretize_all(&blocks, grid.h, method.order),
            blocks,
            l: coupling,
            method,
            macro_step: grid.h,
            horizon: grid.t_stop - grid.t_start,
            limits: Limits::default(),
        }
    }

    /// The same analysis checked against `limits` (maps and convergence studies refuse
    /// work beyond them before they start).
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// The limits maps and convergence studies of this analysis are checked against.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Blocks at the modules' own parameter values, in module order.
    pub fn blocks(&self) -> &[LinearBlock] {
        &self.blocks
    }

    /// `L` (rows: stacked inputs, columns: stacked outputs).
    pub fn coupling(&self) -> &DMatrix<f64> {
        &self.l
    }

    /// The method.
    pub fn method(&self) -> &PropagationMethod {
        &self.method
    }

    /// The macro-step in s.
    pub fn macro_step(&self) -> f64 {
        self.macro_step
    }

    /// Run length in s (error measures use it as the horizon).
    pub fn horizon(&self) -> f64 {
        self.horizon
    }

    /// The same analysis with another method (e.g. each order of a convergence study).
    pub fn with_method(&self, method: PropagationMethod) -> Self {
        LinearAnalysis {
            discretized: discretize_all(&self.blocks, self.macro_step, method.order),
            method,
            ..self.clone()
        }
    }

    /// Resolves `module.parameter`, `master.macro_step` or `master.correction.alpha`; a
    /// module parameter is checked by building the module with it. `path` names the field
    /// in errors.
    pub fn parameter(&self, name: &str, path: &str) -> Result<Parameter, ScenarioError> {
        let p = Parameter::parse(name, &self.names).map_err(|m| ScenarioError::at(path, m))?;
        match &p {
            Parameter::Module {
                module,
                name: param,
            } => {
                self.modules
                    .check_parameter(*module, param)
                    .map_err(|e| ScenarioError::at(path, format!("`{name}`: {e}")))?;
            }
            Parameter::Alpha if self.method.correction.is_none() => {
                return Err(ScenarioError::at(
                    path,
                    "`master.correction.alpha` needs master.correction",
                ));
            }
            _ => {}
        }
        Ok(p)
    }

    /// Blocks with `overrides` applied; only modules listed in `rebuild` are read again
    /// (all overrides of that module applied), the others come from `from`. With `live`,
    /// a module is read through its kept instance when it takes its parameters that way.
    pub(super) fn rebuild(
        &self,
        mut live: Option<&mut LiveModules>,
        from: &[LinearBlock],
        rebuild: &[usize],
        overrides: &[(&Parameter, f64)],
    ) -> Result<Vec<LinearBlock>, MasterError> {
        // Blocks read again below are not copied from `from`.
        let mut blocks: Vec<LinearBlock> = from
            .iter()
            .enumerate()
            .map(|(i, b)| {
                if rebuild.contains(&i) {
                    LinearBlock::empty()
                } else {
                    b.clone()
                }
            })
            .collect();
        for &m in rebuild {
            let params: Vec<(&str, f64)> = overrides
                .iter()
                .filter_map(|(p, v)| match p {
                    Parameter::Module { module, name } if *module == m => Some((name.as_str(), *v)),
                    _ => None,
                })
                .collect();
            if let Some(live) = live.as_deref_mut() {
                if let Some(block) = live.read(m, &*self.modules, self.t_start, &params) {
                    blocks[m] = block;
                    continue;
                }
            }
            blocks[m] = self
                .modules
                .read(m, self.t_start, &params)
                .map(|(_, block)| block)
                .map_err(|e| {
                    MasterError::InvalidSettings(format!("module `{}`: {e}", self.names[m]))
                })?;
        }
        Ok(blocks)
    }

    /// Macro-step and method at a point (the master parameters of `overrides` applied).
    pub(super) fn master_at(&self, overrides: &[(&Parameter, f64)]) -> (f64, PropagationMethod) {
        let mut h = self.macro_step;
        let mut method = self.method.clone();
        for (p, v) in overrides {
            match p {
                Parameter::MacroStep => h = *v,
                Parameter::Alpha => method.correction = Some(*v),
                Parameter::Module { .. } => {}
            }
        }
        (h, method)
    }

    /// `metric` at the modules' own parameter values.
    pub fn evaluate(&self, metric: MapMetric) -> Cell {
        self.evaluate_blocks(metric, &self.blocks, &[])
    }

    /// `metric` with `overrides` applied (modules they touch are rebuilt).
    pub fn evaluate_at(&self, metric: MapMetric, overrides: &[(&Parameter, f64)]) -> Cell {
        let mut modules: Vec<usize> = overrides.iter().filter_map(|(p, _)| p.module()).collect();
        modules.sort_unstable();
        modules.dedup();
        match self.rebuild(None, &self.blocks, &modules, overrides) {
            Ok(blocks) => self.evaluate_blocks(metric, &blocks, overrides),
            Err(e) => Cell::failed(e),
        }
    }

    /// `metric` for `blocks` with the master parameters of `overrides`.
    pub(super) fn evaluate_blocks(
        &self,
        metric: MapMetric,
        blocks: &[LinearBlock],
        overrides: &[(&Parameter, f64)],
    ) -> Cell {
        let (h, method) = self.master_at(overrides);
        let known: Vec<Option<&Discretization>> = blocks
            .iter()
            .zip(&self.blocks)
            .zip(&self.discretized)
            .map(|((b, own), d)| if b == own { d.as_ref() } else { None })
            .collect();
        let pm = match PropagationMatrix::build_reusing(blocks, &self.l, &method, h, &known) {
            Ok(pm) => pm,
            Err(e) => return Cell::failed(e),
        };
        let shaky = pm.corrector_condition() > CORRECTOR_CONDITION_LIMIT;
        match metric {
            MapMetric::SpectralRadius => match spectrum(pm.phi()) {
                Some(s) => Cell::new(
                    s.radius,
                    if shaky || s.is_ill_conditioned() {
                        CellStatus::IllConditioned
                    } else {
                        CellStatus::Ok
                    },
                ),
                None => Cell::failed(MasterError::InvalidSettings(
                    "eigenvalues of Φ: non-finite entries or no convergence of the QR iteration"
                        .into(),
                )),
            },
            MapMetric::GlobalError | MapMetric::LocalError => {
                let reference = match MonolithicReference::new(blocks, &self.l) {
                    Ok(r) => r,
                    Err(e) => return Cell::failed(e),
                };
                match error_measures(&pm, &reference, self.horizon) {
                    Ok(m) if m.diverged => Cell::new(f64::INFINITY, CellStatus::Diverged),
                    Ok(m) => {
                        let v = if metric == MapMetric::GlobalError {
                            m.global
                        } else {
                            m.local
                        };
                        Cell::new(
                            v,
                            if shaky {
                                CellStatus::IllConditioned
                            } else {
                                CellStatus::Ok
                            },
                        )
                    }
                    Err(e) => Cell::failed(e),
                }
            }
        }
    }
}

/// Each block discretised over `h` for input orders `0..=order`.
fn discretize_all(blocks: &[LinearBlock], h: f64, order: u32) -> Vec<Option<Discretization>> {
    blocks
        .iter()
        .map(|b| discretize(&b.a, &b.b, h, order as usize))
        .collect()
}
