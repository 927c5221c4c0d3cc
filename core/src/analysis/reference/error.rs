//! [`ReferenceError`]: why a scenario has no monolithic reference, or why computing it
//! stopped. Never an error of the co-simulation run itself: the run goes on without it.

use crate::error::{CosimError, MasterError};
use crate::module::ModuleError;
use crate::solvers::SolverError;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

/// Why the monolithic reference is unavailable or stopped.
#[derive(Clone, Debug, PartialEq)]
pub enum ReferenceError {
    /// A module does not declare `x-exposesEquations` (e.g. a binary module).
    NotExposed {
        /// Module instance name.
        module: String,
    },
    /// The connections close a loop through direct feedthrough: `u = L g(x, u)` has no
    /// explicit evaluation order.
    AlgebraicLoop(Vec<String>),
    /// Building or initialising the reference's own module instances failed.
    Setup(CosimError),
    /// A module's exposed equations failed.
    Module {
        /// Module instance name.
        module: String,
        /// Time in s.
        t: f64,
        /// The module's error.
        error: ModuleError,
    },
    /// The integrator of the coupled equations failed.
    Integration(SolverError),
    /// The exact linear reference failed (matrix exponential, singular `I − D L`).
    Linear(MasterError),
    /// A time before the one already reached was asked for.
    TimeBackwards {
        /// Time asked, in s.
        t: f64,
        /// Time already reached, in s.
        reached: f64,
    },
}

impl fmt::Display for ReferenceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReferenceError::NotExposed { module } => {
                write!(f, "module `{module}` does not expose its equations")
            }
            ReferenceError::AlgebraicLoop(ports) => write!(
                f,
                "algebraic loop through direct feedthrough ({}): the coupled outputs have no explicit evaluation order",
                ports.join(" -> ")
            ),
            ReferenceError::Setup(e) => write!(f, "{e}"),
            ReferenceError::Module { module, t, error } => {
                write!(f, "module `{module}` at t = {t} s: {error}")
            }
            ReferenceError::Integration(e) => write!(f, "integration failed: {e}"),
            ReferenceError::Linear(e) => write!(f, "{e}"),
            ReferenceError::TimeBackwards { t, reached } => write!(
                f,
                "asked for t = {t} s after reaching t = {reached} s (the reference only advances)"
            ),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for ReferenceError {}
