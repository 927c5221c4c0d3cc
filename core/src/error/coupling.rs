//! Connection problems ([`CouplingError`]), found before a run starts.

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
    /// Source and target differ in FMI type or shape (scalar, array extents).
    PortMismatch {
        /// `type` or `dimension`.
        kind: &'static str,
        /// `module.output` (as the connection writes it, for shapes).
        from: String,
        /// What it is, e.g. `Int32` or `an array [3]`.
        from_is: String,
        /// `module.input`.
        to: String,
        /// What it is.
        to_is: String,
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
            CouplingError::PortMismatch {
                kind,
                from,
                from_is,
                to,
                to_is,
            } => write!(
                f,
                "{kind} mismatch: `{from}` is {from_is} but `{to}` is {to_is}"
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
