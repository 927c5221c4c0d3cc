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
//!   [`ModelBasedCorrection`] adds the model-based corrector to Jacobi; [`DefectJacobi`]
//!   measures the defects of seed 003, and [`DefectControl`] steps by them without rollback.
//! - [`ErrorControlledCoupling`]: seed 002's explicit coupling with the update step, the
//!   explicit error estimators and macro-step size and order control, driven through
//!   [`ErrorStepControl`].
//! - [`energy`]: seed 001's energy-based monitoring and correction on power bonds, and
//!   multi-rate Jacobi ([`energy::MultiRateJacobi`]).
//! - [`error_control`]: seed 002's macro-step size and order control as numbers only
//!   (Lagrange history polynomials, error constants, WRMS norms, [`MacroStepControl`]).

mod algorithm;
mod checkpoint;
pub mod correction_tables;
mod coupled_system;
pub mod defect;
pub mod energy;
pub mod error_control;
mod error_controlled;
mod executor;
mod explicit;
mod implicit;
mod jacobians;
mod model_based_correction;
mod module_slot;
mod observer;
pub mod predictor;
mod run;
mod state_space_reader;
mod step_control;
mod step_sensitivity;

pub(crate) use algorithm::check_initialized;
pub use algorithm::{MacroStepOutcome, MasterAlgorithm, Rejection, RunStart, StepDiagnostics};
pub use checkpoint::Checkpoint;
pub use correction_tables::STATE_CORRECTION_WEIGHTS;
pub use coupled_system::{CoupledSystem, MAX_EVENT_ITERATIONS};
pub use defect::{
    DefectControl, DefectJacobi, DefectSettings, Initialisation, Monitored, RunDefects,
};
pub use error_control::{ErrorControlSettings, EstimatorKind, MacroStepControl};
pub use error_controlled::{
    Bookkeeping, ControlLink, CouplingVariables, ErrorControlledCoupling, ErrorStepControl,
    StateGroups,
};
pub use executor::{Executor, Sequential, SlotTask, Sweep};
pub use explicit::{ExplicitCoupling, Scheme};
pub use implicit::{CorrectorSettings, ImplicitCoupling, InterfaceJacobian, NewtonIteration};
pub use jacobians::{jacobian_source_for, JacobianRequest, JacobianSource};
pub use model_based_correction::ModelBasedCorrection;
pub use module_slot::ModuleSlot;
pub use observer::{LastValues, Observer, StepHook, SystemView, TimeSeriesRecorder};
pub use predictor::{Extrapolation, InputPredictor, OutputHistory, TaylorWeights, MAX_ORDER};
pub use run::{Run, RunStats, MAX_ATTEMPTS};
pub use state_space_reader::StateSpaceReader;
pub use step_control::{FixedStep, StepController, StepDecision, StepProposal};
pub use step_sensitivity::{Perturbation, StepSensitivity};

#[cfg(test)]
pub(crate) mod tests;
