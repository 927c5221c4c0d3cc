//! A validated scenario as a [`LinearAnalysis`]: its blocks read exactly as a run builds
//! its modules ([`build_module`], [`Subsystem`], `LinearBlock::from_subsystem`), with the
//! module specs as the [`ModuleFactory`] that sweeps rebuild modules from.

use super::build_module;
use super::run::scheme;
use crate::analysis::sweep::{LinearAnalysis, ModuleFactory};
use crate::analysis::PropagationMethod;
use crate::coupling::CouplingGraph;
use crate::error::{CosimError, ScenarioError};
use crate::limits::Limit;
use crate::module::{InstantiateOptions, ModuleDescription, Subsystem};
use crate::scenario::{ModuleSpec, StepControlSpec, ValidatedScenario};
use crate::time::FixedGrid;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::sync::Arc;
use alloc::vec::Vec;

/// The scenario's module specs, rebuilt with a sweep point's parameter values.
#[derive(Debug)]
struct SpecModules(Vec<ModuleSpec>);

impl ModuleFactory for SpecModules {
    fn instantiate(&self, m: usize, params: &[(&str, f64)]) -> Result<Subsystem, String> {
        let own = &self.0[m];
        let module = if params.is_empty() {
            build_module(own)
        } else {
            let mut spec = own.clone();
            for (name, v) in params {
                spec.parameters.insert((*name).into(), *v);
            }
            build_module(&spec)
        }
        .map_err(|e| format!("{e}"))?;
        Subsystem::instantiate(module, InstantiateOptions::default()).map_err(|e| format!("{e}"))
    }

    fn check_parameter(&self, m: usize, name: &str) -> Result<(), String> {
        let mut spec = self.0[m].clone();
        if !spec.parameters.contains_key(name) {
            // Probe with a harmless value only to learn whether the name exists.
            let probe = build_module(&spec).ok().and_then(|m| {
                m.description()
                    .variables
                    .iter()
                    .find(|v| v.name == name)
                    .and_then(|v| v.start)
            });
            spec.parameters.insert(name.into(), probe.unwrap_or(1.0));
        }
        build_module(&spec).map(|_| ()).map_err(|e| format!("{e}"))
    }
}

impl LinearAnalysis {
    /// Reads the blocks at the modules' start values. Every module must be linear with
    /// exposed states and directional derivatives (error at `modules`).
    pub fn new(v: &ValidatedScenario) -> Result<Self, CosimError> {
        let s = &v.scenario;
        if !v.reference_available {
            return Err(ScenarioError::at(
                "modules",
                "propagation-matrix analysis needs every module linear time-invariant, with exposed states \
                 and directional derivatives",
            )
            .into());
        }
        if s.master.defects.is_some() {
            // The propagation matrices model extrapolation from past samples, not the
            // Taylor exchange of the defect master (docs/methods.md §15.2).
            return Err(ScenarioError::at(
                "master.defects",
                "propagation-matrix analysis does not model the defect-controlled master",
            )
            .into());
        }
        if matches!(s.master.step_control, Some(StepControlSpec::Error(_))) {
            // The matrices are of one fixed macro-step and extrapolation order; the
            // error-controlled master varies both (docs/methods.md §14.11).
            return Err(ScenarioError::at(
                "master.step_control",
                "propagation-matrix analysis does not model error-controlled macro-steps \
                 (the step and the degree vary); remove master.step_control to analyse the \
                 fixed-step scheme",
            )
            .into());
        }
        // The matrices are of one macro-step; error measures over the run's length take the
        // nearest whole number of them, as convergence studies do (docs/methods.md §2.4).
        let grid = FixedGrid::nearest(v.grid.t_start, v.grid.t_stop, v.grid.h);
        let modules = SpecModules(s.modules.clone());
        let mut blocks = Vec::with_capacity(s.modules.len());
        let mut descriptions: Vec<(String, ModuleDescription)> =
            Vec::with_capacity(s.modules.len());
        for (i, spec) in s.modules.iter().enumerate() {
            let (sub, block) = modules
                .read(i, v.grid.t_start, &[])
                .map_err(|e| ScenarioError::at(format!("modules[{i}]"), e))?;
            blocks.push(block);
            descriptions.push((spec.name.clone(), sub.description().clone()));
        }
        let pairs: Vec<(String, String)> = s
            .connections
            .iter()
            .map(|c| (c.from.clone(), c.to.clone()))
            .collect();
        let states: usize = descriptions.iter().map(|(_, d)| d.states().len()).sum();
        v.limits
            .check(
                Limit::MatrixDimension,
                format!(
                    "the propagation matrix of all {} modules' {states} states",
                    descriptions.len()
                ),
                states as f64,
            )
            .map_err(|e| ScenarioError::at("modules", e.to_string()))?;
        let graph = CouplingGraph::build(&descriptions, &pairs)?;
        let method = PropagationMethod {
            scheme: scheme(v),
            order: s.master.extrapolation_order,
            correction: s.master.correction.as_ref().map(|c| c.alpha),
        };
        let names = s.modules.iter().map(|m| m.name.clone()).collect();
        Ok(LinearAnalysis::from_blocks(
            Arc::new(modules),
            names,
            blocks,
            graph.coupling_matrix(),
            method,
            grid,
        )
        .with_limits(v.limits))
    }
}
