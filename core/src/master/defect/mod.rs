//! Defect-controlled variable-step Jacobi without rollback (seed 003, Algorithm 1;
//! docs/methods.md §15).
//!
//! - [`taylor`]: Taylor polynomials of one signal over a step: evaluation, the shift of
//!   the expansion point, differences, exact per-step RMS;
//! - [`defects`]: connection defect, Hermite output-defect estimate, the controlled defect
//!   `ε_k` (eqn 38) and run-wide RMS per port;
//! - [`DefectJacobi`]: the [`super::MasterAlgorithm`] that exchanges Taylor polynomials,
//!   steps every module once per macro-step and measures the defects;
//! - [`DefectControl`]: the PI [`super::StepController`] of eqn 39, which never rejects.
//!
//! With [`super::FixedStep`] instead of [`DefectControl`], [`DefectJacobi`] is the
//! fixed-step variant that only measures the defects.

mod control;
pub mod defects;
mod jacobi;
mod ports;
mod start;
pub mod taylor;

pub use control::{DefectControl, PiLaw, DEFECT_FLOOR, K_I, K_P, MAX_GROWTH};
pub use defects::{Monitored, RunDefects};
pub use jacobi::{DefectJacobi, DefectSettings, MAX_DEFECT_ORDER};
pub use start::Initialisation;

#[cfg(test)]
mod tests;
