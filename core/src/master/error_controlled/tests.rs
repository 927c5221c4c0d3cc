//! Tests of error-controlled coupling on the linear two-mass oscillator (exact modules):
//! the estimators against the true local error from the exact monolithic solution, with
//! an exact history on a uniform and a non-uniform grid (docs/methods.md §14.12).

mod convergence;
mod failure;
mod runs;
mod start;
pub(crate) mod support;
