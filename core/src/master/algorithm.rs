//! The [`MasterAlgorithm`] trait: one narrow call per macro-step, so explicit, corrected,
//! implicit (with rollback) and variable-step masters all fit the same [`super::Run`] driver.

use super::CoupledSystem;
use crate::error::MasterError;
use alloc::vec::Vec;

/// What one attempted macro-step produced.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum MacroStepOutcome {
    /// The system advanced by `h_taken` (s); its outputs are the new communication point's.
    /// `h_taken < h` when a module returned early at an event (FMI `earlyReturn`): every
    /// module was brought to that time, events were handled, and the next step starts there.
    Accepted {
        /// Step actually taken, in s (the requested `h` unless a module returned early).
        h_taken: f64,
    },
    /// The step must be repeated with `h_retry` (s); the algorithm has restored the
    /// modules to the start of the step.
    Rejected {
        /// Suggested retry step, in s.
        h_retry: f64,
    },
    /// The system advanced by `h_taken` (s) and module `module` (index) asked to end the
    /// simulation (FMI `terminateSimulation`): the run finishes there, cleanly.
    Terminated {
        /// Step actually taken, in s.
        h_taken: f64,
        /// Index of the module that asked to terminate.
        module: usize,
    },
}

/// Everything an algorithm may need once, before the first macro-step.
#[derive(Clone, Copy, Debug)]
pub struct RunStart<'a> {
    /// Start time in s; the system is initialised and its outputs are `y(t_start)`.
    pub t_start: f64,
    /// Nominal macro-step in s.
    pub h: f64,
    /// Exact past output samples `(t, stacked outputs)` before `t_start`, oldest first;
    /// empty for a ramp-up start.
    pub history: &'a [(f64, Vec<f64>)],
}

/// A coupling scheme. Implementations are values holding their settings and work
/// buffers; they never add or remove modules.
pub trait MasterAlgorithm {
    /// Short name for messages and plots (e.g. `jacobi`).
    fn name(&self) -> &'static str;

    /// Called once by [`super::Run::new`] after initialisation: check module capabilities
    /// (refusing with [`MasterError::MissingCapability`] before any step), allocate work
    /// buffers, and take the start-up history.
    fn prepare(&mut self, sys: &mut CoupledSystem, start: &RunStart<'_>)
        -> Result<(), MasterError>;

    /// Advances every module from communication point `t` by `h` and leaves the new
    /// outputs in [`CoupledSystem::outputs`].
    fn step(
        &mut self,
        sys: &mut CoupledSystem,
        t: f64,
        h: f64,
    ) -> Result<MacroStepOutcome, MasterError>;
}
