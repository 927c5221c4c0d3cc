//! Master algorithms and the run driver.
//!
//! - [`CoupledSystem`]: the modules as FMI-checked subsystems plus their coupling graph.
//! - [`MasterAlgorithm`]: one macro-step at a time; [`ExplicitCoupling`] implements
//!   Jacobi and Gauss-Seidel with polynomial extrapolation ([`Extrapolation`]);
//!   [`ModelBasedCorrection`] adds seed 000's model-based corrector to Jacobi.
//! - [`Run`]: owns time, calls the algorithm, notifies an [`Observer`]
//!   (e.g. [`TimeSeriesRecorder`]).

mod algorithm;
mod coupled_system;
mod events;
mod explicit;
mod extrapolation;
mod gauss_seidel;
mod history;
mod jacobi;
mod jacobians;
mod model_based_correction;
mod observer;
mod run;

pub use algorithm::{MacroStepOutcome, MasterAlgorithm, RunStart};
pub use coupled_system::CoupledSystem;
pub use explicit::{ExplicitCoupling, Scheme};
pub use extrapolation::{Extrapolation, TaylorWeights, MAX_ORDER};
pub use history::OutputHistory;
pub use jacobians::{jacobian_source_for, JacobianRequest, JacobianSource};
pub use model_based_correction::{ModelBasedCorrection, STATE_CORRECTION_WEIGHTS};
pub use observer::{LastValues, Observer, TimeSeriesRecorder};
pub use run::Run;

#[cfg(test)]
mod mock;
#[cfg(test)]
mod tests;
