//! [`Reference`]: the monolithic reference of a run, exact (linear scenarios) or
//! integrated (every module exposes its equations), asked for outputs at each recorded
//! communication point in turn.

use super::{IntegratedReference, ReferenceError, SampledLinearReference};
use alloc::string::String;

/// A monolithic reference advancing with the run.
pub enum Reference {
    /// The exact solution of linear time-invariant modules (docs/methods.md §10.1).
    Exact(SampledLinearReference),
    /// The coupled equations integrated as one system (docs/methods.md §10.7).
    Integrated(IntegratedReference),
}

impl Reference {
    /// The stacked outputs `y*(t)`; `t` must not precede the last time asked. After an
    /// error the reference cannot be used further.
    pub fn advance_to(&mut self, t: f64) -> Result<&[f64], ReferenceError> {
        match self {
            Reference::Exact(r) => r.advance_to(t),
            Reference::Integrated(r) => r.advance_to(t),
        }
    }

    /// How it is computed, for reports: `exact` or the integrator with its tolerances.
    pub fn method(&self) -> String {
        match self {
            Reference::Exact(_) => String::from("exact (matrix exponential)"),
            Reference::Integrated(r) => r.integrator(),
        }
    }
}
