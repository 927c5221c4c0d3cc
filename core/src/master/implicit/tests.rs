//! Tests of the implicit predictor/corrector coupling on the linear two-mass oscillator.

mod convergence;
mod runs;
