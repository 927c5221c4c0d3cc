//! [`ModelEntry`]: how a built-in model presents itself to the registry (id, summary,
//! settable parameters, solvers, constructor), and [`ModelInfo`], the same as plain data
//! for the page and the CLI.

use super::solver_choice::check_settings;
use crate::module::{Module, ModuleError, Variable};
use crate::solvers::SolverSpec;
use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

/// What a scenario entry gives a model's constructor.
#[derive(Clone, Copy, Debug)]
pub struct ModelArgs<'a> {
    /// Parameter and start values by variable name.
    pub parameters: &'a BTreeMap<String, f64>,
    /// The solver the scenario chose.
    pub solver: &'a SolverSpec,
    /// The model's source text, for models written in one (see [`ParameterList::FromSource`]).
    pub source: Option<&'a str>,
}

/// Where a model's settable parameters come from.
#[derive(Clone, Copy, Debug)]
pub enum ParameterList {
    /// A fixed list (parameters and state start values with units and defaults); the
    /// model takes no source.
    Fixed(fn() -> Vec<Variable>),
    /// The model is written in the scenario's `source`, which declares them.
    FromSource {
        /// The settable variables a source declares, or the first error in it.
        settable: fn(&str) -> Result<Vec<Variable>, String>,
        /// A source to use when none is given (the catalog's instance).
        example: &'static str,
    },
}

/// One built-in model.
#[derive(Clone, Copy, Debug)]
pub struct ModelEntry {
    /// Model id used in scenarios (`modules[].model`).
    pub id: &'static str,
    /// One-line summary.
    pub summary: &'static str,
    /// Parameters (causality `Parameter`) and state start values (causality `Local`) that
    /// a scenario may set by name.
    pub parameters: ParameterList,
    /// Allowed solvers, one entry per kind with its suggested settings.
    pub solvers: fn() -> Vec<SolverSpec>,
    /// Builds the module; names, values and the solver's kind are checked here (errors
    /// are `ModuleError::invalid` naming the offending entry). Call it through
    /// [`ModelEntry::build`], which checks the solver's settings first.
    pub construct: fn(&ModelArgs<'_>) -> Result<Box<dyn Module>, ModuleError>,
}

impl ModelEntry {
    /// Builds the module a scenario entry describes: the solver's settings are checked
    /// first (the same message for every model), then the model's constructor runs.
    pub fn build(&self, args: &ModelArgs<'_>) -> Result<Box<dyn Module>, ModuleError> {
        check_settings(args.solver)?;
        (self.construct)(args)
    }

    /// The entry as the catalog lists it (a model written in a source lists none).
    pub fn info(&self) -> ModelInfo {
        ModelInfo {
            id: self.id,
            summary: self.summary,
            parameters: match self.parameters {
                ParameterList::Fixed(list) => list(),
                ParameterList::FromSource { .. } => Vec::new(),
            },
            solvers: (self.solvers)(),
        }
    }
}

/// A built-in model as the page and the CLI list it.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelInfo {
    /// Model id used in scenarios (`modules[].model`).
    pub id: &'static str,
    /// One-line summary.
    pub summary: &'static str,
    /// Parameters (causality `Parameter`) and state start values (causality `Local`) that a
    /// scenario may set by name, with units, defaults (`start`) and descriptions.
    pub parameters: Vec<Variable>,
    /// Allowed solvers, one entry per kind with its suggested settings.
    pub solvers: Vec<SolverSpec>,
}

impl ModelInfo {
    /// True if the solver's kind is allowed for this model (settings are not checked).
    pub fn allows(&self, solver: &SolverSpec) -> bool {
        self.solvers
            .iter()
            .any(|s| core::mem::discriminant(s) == core::mem::discriminant(solver))
    }
}
