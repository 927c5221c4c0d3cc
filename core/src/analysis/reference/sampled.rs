//! [`Reference`]: the monolithic reference of a run, exact (linear scenarios) or
//! integrated (every module exposes its equations), asked for outputs at each recorded
//! communication point in turn.

use super::{IntegratedReference, ReferenceError, SampledLinearReference};
use alloc::boxed::Box;
use alloc::string::String;

/// A monolithic reference advancing with the run.
pub enum Reference {
    /// The exact solution of linear time-invariant modules (docs/methods.md §10.1).
    Exact(SampledLinearReference),
    /// The coupled equations integrated as one system (docs/methods.md §10.7).
    Integrated(IntegratedReference),
    /// A reference a scenario kind brings itself (a mass chain integrated as one banded
    /// system, docs/methods.md §16.4), giving the recorded outputs in their order.
    Custom(Box<dyn CustomReference>),
}

/// A monolithic reference written for one kind of scenario.
pub trait CustomReference: Send {
    /// The recorded outputs at `t` (not before the last time asked).
    fn advance_to(&mut self, t: f64) -> Result<&[f64], ReferenceError>;
    /// How it is computed, for reports.
    fn method(&self) -> String;
}

impl Reference {
    /// The stacked outputs `y*(t)`; `t` must not precede the last time asked. After an
    /// error the reference cannot be used further.
    pub fn advance_to(&mut self, t: f64) -> Result<&[f64], ReferenceError> {
        match self {
            Reference::Exact(r) => r.advance_to(t),
            Reference::Integrated(r) => r.advance_to(t),
            Reference::Custom(r) => r.advance_to(t),
        }
    }

    /// How it is computed, for reports: `exact` or the integrator with its tolerances.
    pub fn method(&self) -> String {
        match self {
            Reference::Exact(_) => String::from("exact (matrix exponential)"),
            Reference::Integrated(r) => r.integrator(),
            Reference::Custom(r) => r.method(),
        }
    }
}
