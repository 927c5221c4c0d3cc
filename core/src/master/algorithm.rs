//! The [`MasterAlgorithm`] trait: one narrow call per attempted macro-step, so explicit,
//! corrected, implicit and variable-step masters all fit the same [`super::Run`] driver.
//!
//! The contract, in the order the driver calls it:
//! 1. [`MasterAlgorithm::prepare`] once, after initialisation;
//! 2. per attempt, [`MasterAlgorithm::step`] from `t` over `h`. It leaves the modules at the
//!    end of the step and the exchanged outputs in [`super::CoupledSystem::outputs`], but
//!    changes none of its own history: the attempt may still be rejected;
//! 3. [`MasterAlgorithm::commit`] once the driver accepted the attempt (histories, offsets),
//!    or [`MasterAlgorithm::discard`] after it restored every module to `t`.
//!
//! Rollback is the driver's: an algorithm that needs a step repeated returns
//! [`MacroStepOutcome::Rejected`] and never restores module states itself.

use super::CoupledSystem;
use crate::error::{MasterError, RejectReason};
use crate::module::{Status, StepReport};
use alloc::vec::Vec;

/// What the algorithm knows about the quality of an accepted attempt, for step
/// controllers and observers.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StepDiagnostics {
    /// Normalised local error estimate (≤ 1 meets the tolerance), if the algorithm
    /// estimates one.
    pub error: Option<f64>,
    /// Iterations an iterative scheme needed (0 for explicit schemes).
    pub iterations: u32,
    /// Polynomial degree k of the coupling-variable approximation used, if the algorithm
    /// varies it (order control, docs/methods.md §14).
    pub order: Option<u32>,
    /// The controlled defect ε_k of the step (docs/methods.md §15), if the algorithm
    /// measures defects.
    pub defect: Option<f64>,
}

/// A rejected attempt: why, and the step to retry with if the algorithm knows it (an early
/// return knows its event time; an error estimate leaves it to the step controller).
#[derive(Clone, Debug, PartialEq)]
pub struct Rejection {
    /// Why the attempt was rejected.
    pub reason: RejectReason,
    /// Step to retry with, in s.
    pub h_retry: Option<f64>,
}

/// What one attempted macro-step produced.
#[derive(Clone, Debug, PartialEq)]
pub enum MacroStepOutcome {
    /// The system advanced by `h_taken` (s); its outputs are the new communication point's.
    /// `h_taken < h` when a module returned early at an event (FMI `earlyReturn`): every
    /// module was brought to that time, events were handled, and the next step starts there.
    Accepted {
        /// Step actually taken, in s (the requested `h` unless a module returned early).
        h_taken: f64,
        /// Error estimate and iteration count of the attempt.
        diagnostics: StepDiagnostics,
    },
    /// The attempt must be repeated: the driver restores the modules to the step start.
    Rejected(Rejection),
    /// The system advanced by `h_taken` (s) and module `module` (index) asked to end the
    /// simulation (FMI `terminateSimulation`): the run finishes there, cleanly.
    Terminated {
        /// Step actually taken, in s.
        h_taken: f64,
        /// Index of the module that asked to terminate.
        module: usize,
    },
}

impl MacroStepOutcome {
    /// A plain accepted step of `h_taken` without diagnostics.
    pub fn accepted(h_taken: f64) -> Self {
        MacroStepOutcome::Accepted {
            h_taken,
            diagnostics: StepDiagnostics::default(),
        }
    }
}

/// Everything an algorithm may need once, before the first macro-step.
#[derive(Clone, Copy, Debug)]
pub struct RunStart<'a> {
    /// Start time in s; the system is initialised and its outputs are `y(t_start)`.
    pub t_start: f64,
    /// Nominal (first) macro-step in s.
    pub h: f64,
    /// Whether the step controller may change the step size during the run.
    pub variable_steps: bool,
    /// Exact past output samples `(t, stacked outputs)` before `t_start`, oldest first;
    /// empty for a ramp-up start.
    pub history: &'a [(f64, Vec<f64>)],
}

/// A coupling scheme. Implementations are values holding their settings and work
/// buffers; they never add or remove modules.
pub trait MasterAlgorithm: Send {
    /// Short name for messages and plots (e.g. `jacobi`).
    fn name(&self) -> &'static str;

    /// Called once by [`super::Run`] after initialisation: check module capabilities
    /// (refusing with [`MasterError::MissingCapability`] before any step), allocate work
    /// buffers, and take the start-up history. The caller hands over a system initialised
    /// at `start.t_start` (`Run` initialises it itself; other callers check it with
    /// `check_initialized`).
    fn prepare(&mut self, sys: &mut CoupledSystem, start: &RunStart<'_>)
        -> Result<(), MasterError>;

    /// Whether [`Self::step`] may return [`MacroStepOutcome::Rejected`] (known after
    /// `prepare`): the driver then saves a checkpoint at every step start.
    fn may_reject(&self) -> bool {
        false
    }

    /// Attempts a macro-step of every module from communication point `t` over `h`.
    fn step(
        &mut self,
        sys: &mut CoupledSystem,
        t: f64,
        h: f64,
    ) -> Result<MacroStepOutcome, MasterError>;

    /// The driver accepted the last attempt, which ended at `t_end` with the outputs now in
    /// `sys`: update histories and offsets.
    fn commit(&mut self, sys: &CoupledSystem, t_end: f64);

    /// The driver rejected the last attempt and restored every module to its start.
    fn discard(&mut self) {}

    /// Run-wide defects per port, for an algorithm that measures them
    /// ([`super::DefectJacobi`]); `None` for the others.
    fn defects(&self) -> Option<&super::RunDefects> {
        None
    }
}

/// For a caller of [`MasterAlgorithm::prepare`] other than [`super::Run`] (which initialises
/// the system itself): the system must be initialised at the run's start time.
pub(crate) fn check_initialized(
    sys: &CoupledSystem,
    start: &RunStart<'_>,
) -> Result<(), MasterError> {
    if sys.initialized_at() != Some(start.t_start) {
        return Err(MasterError::InvalidSettings(
            "the coupled system must be initialised at the start time".into(),
        ));
    }
    Ok(())
}

/// For masters that take every module step whole and never roll back (the model-based
/// corrector, multi-rate Jacobi): a discarded step, a request to terminate or an early
/// return of `module`'s step from `t` over `h` is an error naming it (and `algorithm`).
pub(crate) fn require_whole_step(
    module: &str,
    t: f64,
    h: f64,
    report: &StepReport,
    algorithm: &'static str,
) -> Result<(), MasterError> {
    if report.status == Status::Discard {
        return Err(MasterError::StepDiscarded {
            module: module.into(),
            t,
            h,
        });
    }
    if report.terminate_simulation {
        return Err(MasterError::Terminated {
            t: report.last_successful_time,
            module: module.into(),
        });
    }
    if report.early_return || report.last_successful_time < t + h - 1e-9 * h {
        return Err(MasterError::EarlyReturnUnsupported {
            module: module.into(),
            t: report.last_successful_time,
            t_end: t + h,
            algorithm,
        });
    }
    Ok(())
}
