//! One error enum per layer, joined into [`CosimError`]. Variants carry the context a
//! person needs to fix the problem (module names, times, paths into the scenario).

use crate::module::ModuleError;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

/// Connection problems, found before a run starts.
#[derive(Clone, Debug, PartialEq)]
pub enum CouplingError {
    /// No module of this name.
    UnknownModule(String),
    /// `module.variable` does not exist.
    UnknownVariable {
        /// Module name.
        module: String,
        /// Variable name.
        variable: String,
    },
    /// The source of a connection is not an output.
    NotAnOutput(String),
    /// The target of a connection is not an input.
    NotAnInput(String),
    /// An input with no connection.
    UnconnectedInput(String),
    /// An input connected more than once.
    InputConnectedTwice(String),
    /// Source and target units differ.
    UnitMismatch {
        /// `module.output`.
        from: String,
        /// Its unit.
        from_unit: String,
        /// `module.input`.
        to: String,
        /// Its unit.
        to_unit: String,
    },
    /// Direct feedthrough around a cycle: the listed ports form an algebraic loop.
    AlgebraicLoop(Vec<String>),
}

impl fmt::Display for CouplingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CouplingError::UnknownModule(m) => write!(f, "no module named `{m}`"),
            CouplingError::UnknownVariable { module, variable } => {
                write!(f, "module `{module}` has no variable `{variable}`")
            }
            CouplingError::NotAnOutput(p) => write!(
                f,
                "`{p}` is not an output and cannot be a connection source"
            ),
            CouplingError::NotAnInput(p) => {
                write!(f, "`{p}` is not an input and cannot be a connection target")
            }
            CouplingError::UnconnectedInput(p) => write!(f, "input `{p}` is not connected"),
            CouplingError::InputConnectedTwice(p) => {
                write!(f, "input `{p}` is connected more than once")
            }
            CouplingError::UnitMismatch {
                from,
                from_unit,
                to,
                to_unit,
            } => write!(
                f,
                "unit mismatch: `{from}` is in `{from_unit}` but `{to}` expects `{to_unit}`"
            ),
            CouplingError::AlgebraicLoop(ports) => {
                write!(
                    f,
                    "algebraic loop through direct feedthrough: {}",
                    ports.join(" -> ")
                )
            }
        }
    }
}

/// Failures while a master algorithm runs.
#[derive(Clone, Debug, PartialEq)]
pub enum MasterError {
    /// A module call failed.
    Module {
        /// Module instance name.
        module: String,
        /// Communication point at which it failed, in s.
        t: f64,
        /// The module's error.
        error: ModuleError,
    },
    /// An algorithm needs a capability a module does not declare.
    MissingCapability {
        /// Module instance name.
        module: String,
        /// FMI (or `x-`) capability name.
        capability: &'static str,
        /// What needs it (e.g. "extrapolation order 2").
        needed_by: String,
    },
    /// Outputs became non-finite or exceeded the divergence bound.
    Diverged {
        /// Time in s.
        t: f64,
        /// `module.output` that diverged.
        signal: String,
    },
    /// A matrix the algorithm must factorise is singular.
    SingularMatrix {
        /// Time in s.
        t: f64,
        /// Which matrix.
        what: &'static str,
    },
    /// The module asked to terminate.
    Terminated {
        /// Time in s.
        t: f64,
        /// Module instance name.
        module: String,
    },
    /// Settings the algorithm cannot use.
    InvalidSettings(String),
}

impl fmt::Display for MasterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MasterError::Module { module, t, error } => {
                write!(f, "module `{module}` at t = {t} s: {error}")
            }
            MasterError::MissingCapability {
                module,
                capability,
                needed_by,
            } => write!(
                f,
                "{needed_by} needs `{capability}`, which module `{module}` does not provide"
            ),
            MasterError::Diverged { t, signal } => write!(
                f,
                "the co-simulation diverged at t = {t} s (`{signal}` is no longer finite); \
                 try a smaller macro-step or a lower extrapolation order"
            ),
            MasterError::SingularMatrix { t, what } => write!(f, "singular {what} at t = {t} s"),
            MasterError::Terminated { t, module } => {
                write!(f, "module `{module}` requested termination at t = {t} s")
            }
            MasterError::InvalidSettings(m) => f.write_str(m),
        }
    }
}

/// A scenario that cannot be used, with the JSON path of the offending field.
#[derive(Clone, Debug, PartialEq)]
pub struct ScenarioError {
    /// Path into the scenario, e.g. `modules[1].parameters.ck` (empty for the whole document).
    pub path: String,
    /// What is wrong and what is expected.
    pub message: String,
}

impl ScenarioError {
    /// An error at `path`.
    pub fn at(path: impl Into<String>, message: impl Into<String>) -> Self {
        ScenarioError {
            path: path.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

/// Any error of the core.
#[derive(Clone, Debug, PartialEq)]
pub enum CosimError {
    /// Bad scenario.
    Scenario(ScenarioError),
    /// Bad connections.
    Coupling(CouplingError),
    /// Failure during a run.
    Master(MasterError),
    /// A module call outside a run.
    Module(ModuleError),
}

impl fmt::Display for CosimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CosimError::Scenario(e) => e.fmt(f),
            CosimError::Coupling(e) => e.fmt(f),
            CosimError::Master(e) => e.fmt(f),
            CosimError::Module(e) => e.fmt(f),
        }
    }
}

impl From<ScenarioError> for CosimError {
    fn from(e: ScenarioError) -> Self {
        CosimError::Scenario(e)
    }
}
impl From<CouplingError> for CosimError {
    fn from(e: CouplingError) -> Self {
        CosimError::Coupling(e)
    }
}
impl From<MasterError> for CosimError {
    fn from(e: MasterError) -> Self {
        CosimError::Master(e)
    }
}
impl From<ModuleError> for CosimError {
    fn from(e: ModuleError) -> Self {
        CosimError::Module(e)
    }
}

#[cfg(feature = "std")]
impl std::error::Error for CosimError {}
