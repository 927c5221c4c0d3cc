//! Master algorithms and the run driver.
//!
//! - [`CoupledSystem`]: the modules as FMI-checked subsystems, their coupling graph, and
//!   the inputs applied and outputs read at the current communication point.
//! - [`Run`]: the driver. It owns time, asks a [`StepController`] (e.g. [`FixedStep`]) for
//!   each step, saves and restores [`Checkpoint`]s around attempts that may be rejected,
//!   calls the [`StepHook`] and the algorithm, and notifies an [`Observer`] (e.g.
//!   [`TimeSeriesRecorder`]) with a read-only [`SystemView`].
//! - [`MasterAlgorithm`]: one attempted macro-step at a time; [`ExplicitCoupling`]
//!   implements Jacobi and Gauss-Seidel with polynomial extrapolation ([`Extrapolation`]);
//!   [`ModelBasedCorrection`] adds the model-based corrector to Jacobi.

mod algorithm;
mod checkpoint;
mod coupled_system;
mod explicit;
mod extrapolation;
mod history;
mod jacobians;
mod model_based_correction;
mod observer;
mod run;
mod step_control;

pub use algorithm::{MacroStepOutcome, MasterAlgorithm, Rejection, RunStart, StepDiagnostics};
pub use checkpoint::Checkpoint;
pub use coupled_system::{CoupledSystem, MAX_EVENT_ITERATIONS};
pub use explicit::{ExplicitCoupling, Scheme};
pub use extrapolation::{Extrapolation, TaylorWeights, MAX_ORDER};
pub use history::OutputHistory;
pub use jacobians::{jacobian_source_for, JacobianRequest, JacobianSource};
pub use model_based_correction::{ModelBasedCorrection, STATE_CORRECTION_WEIGHTS};
pub use observer::{LastValues, Observer, StepHook, SystemView, TimeSeriesRecorder};
pub use run::{Run, RunStats, MAX_ATTEMPTS};
pub use step_control::{FixedStep, StepController, StepDecision, StepProposal};

#[cfg(test)]
mod mock;
#[cfg(test)]
mod tests;
