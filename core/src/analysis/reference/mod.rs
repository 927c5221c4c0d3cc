//! Monolithic references sampled at the communication points a run records
//! (docs/methods.md §10.1, §10.7): the exact linear one, and the coupled equations of
//! modules that expose them integrated as one system at tight tolerance.
//!
//! - [`Reference`]: either, behind one `advance_to(t) -> outputs`.
//! - [`SampledLinearReference`]: [`super::MonolithicReference`] at any increasing times,
//!   byte-identical to the precomputed rows on its grid.
//! - [`CoupledEquations`]: `x' = F(t, x)`, `y = G(t, x)` from every module's
//!   `x-exposesEquations`, inputs resolved in feedthrough order.
//! - [`IntegratedReference`]: those integrated by a [`ReferenceIntegrator`]
//!   ([`TightDopri45`] by default; the seam for a stiff method).

mod coupled_equations;
mod error;
mod integrated;
mod integrator;
mod linear;
mod sampled;

#[cfg(test)]
mod tests;

pub use coupled_equations::CoupledEquations;
pub use error::ReferenceError;
pub use integrated::IntegratedReference;
pub use integrator::{
    ReferenceIntegrator, TightBdf, TightDopri45, REFERENCE_ATOL, REFERENCE_RTOL,
    STIFF_REFERENCE_RTOL,
};
pub use linear::SampledLinearReference;
pub use sampled::{CustomReference, Reference};
