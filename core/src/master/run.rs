//! [`Run`]: the driver that owns time, steps and rollback. It initialises the system,
//! hands the start-up history to the algorithm, and then, per macro-step:
//! 1. asks the [`StepController`] for a step from the current communication point and
//!    clips it at the stop time;
//! 2. saves a [`Checkpoint`] when the attempt may be rejected (by the algorithm, e.g. an
//!    early return after other modules stepped, or by the controller);
//! 3. calls the [`StepHook`], then the [`MasterAlgorithm`];
//! 4. lets the controller judge the attempt; on a rejection restores every module that
//!    changed, tells the algorithm to discard the attempt, notifies the observer and
//!    retries with the step it was given;
//! 5. on acceptance lets the algorithm commit, moves the clock to the communication point
//!    the controller names (a grid point is computed from its index, never accumulated) and
//!    notifies the [`Observer`] with a read-only [`SystemView`].
//!
//! Events move communication points off the grid: when a module returns early at
//! `t_e < t_n + h` (docs/methods.md, FMI early return), the algorithm brings every module
//! to `t_e` and reports the shorter step; the run records the point at its actual time and
//! continues from `t_e` to the next grid point. A module asking to terminate ends the run
//! cleanly at that time: [`Run::finished`] is true and [`Run::terminated_early`] says who
//! and when. The run can be advanced in chunks (the page's worker posts progress).

use super::checkpoint::first_without_state;
use super::step_control::{FixedStep, StepDecision, StepProposal};
use super::{
    Checkpoint, CoupledSystem, MacroStepOutcome, MasterAlgorithm, Observer, Rejection, RunStart,
    StepController, StepDiagnostics, StepHook, SystemView,
};
use crate::error::{MasterError, RejectReason};
use crate::time::FixedGrid;
use alloc::boxed::Box;
use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

/// Steps within this fraction of the proposed step count as full steps.
const FULL_STEP_TOLERANCE: f64 = 1e-12;

/// Attempts of one macro-step before the run gives up (a controller that keeps rejecting).
pub const MAX_ATTEMPTS: u32 = 64;

/// Counters of a run, for summaries.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RunStats {
    /// Accepted macro-steps (full and shortened).
    pub accepted: u32,
    /// Accepted steps shortened by an event (early return): off-grid communication points.
    pub events: u32,
    /// Attempts rejected and rolled back.
    pub rejected: u32,
    /// Module states restored in those rollbacks.
    pub modules_restored: u32,
}

/// A co-simulation run: system, algorithm and step controller.
pub struct Run {
    system: CoupledSystem,
    algorithm: Box<dyn MasterAlgorithm>,
    controller: Box<dyn StepController>,
    hook: Option<Box<dyn StepHook>>,
    /// Offsets the hook sets on the applied inputs (empty without a hook).
    offsets: Vec<f64>,
    checkpoint: Option<Checkpoint>,
    /// Current communication point in s.
    t: f64,
    /// The controller's stop time (fixed for a run).
    t_stop: f64,
    stats: RunStats,
    terminated: Option<(f64, String)>,
    initial_reported: bool,
    failure: Option<MasterError>,
}

impl Run {
    /// A run on the fixed macro-step grid `grid` ([`FixedStep`]); see [`Self::with_controller`].
    pub fn new(
        system: CoupledSystem,
        algorithm: Box<dyn MasterAlgorithm>,
        grid: FixedGrid,
        history: Option<Vec<(f64, Vec<f64>)>>,
    ) -> Result<Run, MasterError> {
        Self::with_controller(system, algorithm, Box::new(FixedStep::new(grid)), history)
    }

    /// Initialises `system` at the controller's start time (unless it already is), refuses
    /// a controller that may reject when a module cannot save its state (naming the module),
    /// then prepares the algorithm. `history`: exact past output samples `(t, stacked
    /// outputs)` before the start time, oldest first, so extrapolation has its full order
    /// from the first step; `None` ramps the order up as samples accumulate.
    pub fn with_controller(
        mut system: CoupledSystem,
        mut algorithm: Box<dyn MasterAlgorithm>,
        controller: Box<dyn StepController>,
        history: Option<Vec<(f64, Vec<f64>)>>,
    ) -> Result<Run, MasterError> {
        let (t_start, h) = (controller.t_start(), controller.nominal_step());
        if !t_start.is_finite() || !h.is_finite() || h <= 0.0 {
            return Err(MasterError::InvalidSettings(format!(
                "the macro-step must be finite and positive and the start time finite (h = {h} s, start = {t_start} s)"
            )));
        }
        match system.initialized_at() {
            None => system.initialize(t_start, controller.t_stop())?,
            Some(t) if t == t_start => {}
            Some(t) => {
                return Err(MasterError::InvalidSettings(format!(
                    "the system was initialised at t = {t} s but the run starts at {t_start} s"
                )))
            }
        }
        if controller.may_reject() {
            if let Some(m) = first_without_state(&system) {
                return Err(MasterError::MissingCapability {
                    module: system.name(m).into(),
                    capability: "canGetAndSetFMUState",
                    needed_by: format!(
                        "step controller `{}` (it may reject a step; the run then rolls every module back)",
                        controller.name()
                    ),
                });
            }
        }
        let history = history.unwrap_or_default();
        let start = RunStart {
            t_start,
            h,
            variable_steps: controller.variable_steps(),
            history: &history,
        };
        algorithm.prepare(&mut system, &start)?;
        let checkpoint =
            (algorithm.may_reject() || controller.may_reject()).then(|| Checkpoint::new(&system));
        let t_stop = controller.t_stop();
        Ok(Run {
            system,
            algorithm,
            controller,
            hook: None,
            offsets: Vec::new(),
            checkpoint,
            t: t_start,
            t_stop,
            stats: RunStats::default(),
            terminated: None,
            initial_reported: false,
            failure: None,
        })
    }

    /// Installs a hook called before every attempted step; its input offsets start at 0.
    pub fn set_hook(&mut self, hook: Box<dyn StepHook>) {
        self.offsets = vec![0.0; self.system.inputs().len()];
        self.system.set_input_offsets(true);
        self.hook = Some(hook);
    }

    /// Performs up to `max_steps` accepted macro-steps; `Ok(true)` once the run is finished.
    /// The first call also reports the initial point. After a failure every later call
    /// returns the same error.
    pub fn advance(
        &mut self,
        max_steps: u32,
        observer: &mut dyn Observer,
    ) -> Result<bool, MasterError> {
        if let Some(e) = &self.failure {
            return Err(e.clone());
        }
        if !self.initial_reported {
            observer.on_initialized(&SystemView {
                t: self.t,
                h: 0.0,
                rejected_attempts: 0,
                diagnostics: StepDiagnostics::default(),
                system: &self.system,
            });
            self.initial_reported = true;
        }
        let mut done = 0;
        while done < max_steps && !self.finished() {
            match self.step_once(observer) {
                Ok((h_taken, rejected_attempts, diagnostics)) => {
                    observer.on_macro_step(&SystemView {
                        t: self.t,
                        h: h_taken,
                        rejected_attempts,
                        diagnostics,
                        system: &self.system,
                    })
                }
                Err(e) => {
                    self.failure = Some(e.clone());
                    return Err(e);
                }
            }
            done += 1;
        }
        Ok(self.finished())
    }

    /// One accepted macro-step, with as many rejected attempts before it as it takes.
    /// Returns the step taken, the number of rejected attempts and the step's diagnostics.
    fn step_once(
        &mut self,
        observer: &mut dyn Observer,
    ) -> Result<(f64, u32, StepDiagnostics), MasterError> {
        let t = self.t;
        let mut proposal = self.controller.propose(t);
        let t_stop = self.t_stop;
        // Clip at the stop time (a grid's last step is never clipped: its rounding is inside
        // the tolerance).
        let beyond = t_stop + FULL_STEP_TOLERANCE * proposal.h;
        if proposal.t_end > t_stop || t + proposal.h > beyond {
            proposal = StepProposal {
                h: t_stop - t,
                t_end: t_stop,
            };
        }
        // `h_target`: the step the controller asks for now; `h`: the attempt, shorter after
        // an early return.
        let mut h_target = proposal.h;
        let mut h = h_target;
        if let Some(cp) = self.checkpoint.as_mut() {
            cp.save(&mut self.system, t)?;
        }
        for rejected in 0..MAX_ATTEMPTS {
            if let Some(hook) = self.hook.as_mut() {
                let view = SystemView {
                    t,
                    h: 0.0,
                    rejected_attempts: rejected,
                    diagnostics: StepDiagnostics::default(),
                    system: &self.system,
                };
                hook.step_commencing(&view, h, &mut self.offsets)?;
                self.system
                    .input_offsets_mut()
                    .copy_from_slice(&self.offsets);
            }
            let outcome = self.algorithm.step(&mut self.system, t, h)?;
            let (h_taken, diagnostics, terminated) = match outcome {
                MacroStepOutcome::Accepted {
                    h_taken,
                    diagnostics,
                } => (h_taken, diagnostics, None),
                MacroStepOutcome::Terminated { h_taken, module } => {
                    (h_taken, Default::default(), Some(module))
                }
                MacroStepOutcome::Rejected(Rejection { reason, h_retry }) => {
                    let retry = match h_retry {
                        Some(h_event) => Some(h_event),
                        None => self
                            .controller
                            .retry(t, h, &reason)
                            .inspect(|&h| h_target = h),
                    };
                    let Some(h_retry) = retry else {
                        return Err(cannot_retry(t, h, reason));
                    };
                    self.roll_back(t, h, &reason, observer)?;
                    h = h_retry;
                    continue;
                }
            };
            if !(h_taken >= 0.0 && h_taken <= h + FULL_STEP_TOLERANCE * h) {
                return Err(MasterError::StepOutOfRange {
                    algorithm: self.algorithm.name(),
                    t,
                    h_taken,
                    h,
                });
            }
            let asked = StepProposal {
                h: h_target,
                t_end: proposal.t_end,
            };
            let mut decision = self.controller.judge(t, &asked, h_taken, &diagnostics)?;
            if terminated.is_some() {
                // A module that asked to terminate stays in Event Mode: its step ends the run
                // and cannot be repeated, whatever the controller thinks of it.
                if let StepDecision::Reject { .. } = decision {
                    decision = StepDecision::Accept {
                        t_next: t + h_taken,
                    };
                }
            }
            match decision {
                StepDecision::Accept { t_next } => {
                    // Histories keep `t + h_taken`, as the algorithms' own time arithmetic.
                    self.algorithm.commit(&self.system, t + h_taken);
                    self.stats.accepted += 1;
                    if (h_taken - h_target).abs() > FULL_STEP_TOLERANCE * h_target {
                        self.stats.events += 1;
                    }
                    self.t = t_next;
                    if let Some(m) = terminated {
                        self.terminated = Some((t_next, self.system.name(m).into()));
                    }
                    return Ok((h_taken, rejected, diagnostics));
                }
                StepDecision::Reject { h_retry, reason } => {
                    self.roll_back(t, h, &reason, observer)?;
                    h_target = h_retry;
                    h = h_retry;
                }
            }
        }
        Err(MasterError::StepRejected {
            t,
            h,
            reason: RejectReason::Controller("too many rejected attempts in a row"),
        })
    }

    /// Restores the checkpoint after an attempt from `t` over `h` was rejected.
    fn roll_back(
        &mut self,
        t: f64,
        h: f64,
        reason: &RejectReason,
        observer: &mut dyn Observer,
    ) -> Result<(), MasterError> {
        let restored = match self.checkpoint.as_mut() {
            Some(cp) => cp.restore(&mut self.system, reason)?,
            // Nothing saved: only an attempt in which no module changed can be repeated.
            None => Checkpoint::new(&self.system).restore(&mut self.system, reason)?,
        };
        self.algorithm.discard();
        self.stats.rejected += 1;
        self.stats.modules_restored += restored;
        observer.on_rejected(t, h, reason);
        Ok(())
    }

    /// Grid steps completed: accepted steps not shortened by an event.
    pub fn steps_done(&self) -> u32 {
        self.stats.accepted - self.stats.events
    }

    /// Communication points reached off the grid, at events (early returns).
    pub fn events(&self) -> u32 {
        self.stats.events
    }

    /// Start time of the run in s.
    pub fn t_start(&self) -> f64 {
        self.controller.t_start()
    }

    /// Stop time of the run in s.
    pub fn t_stop(&self) -> f64 {
        self.t_stop
    }

    /// Whether the step controller varies the macro-step.
    pub fn variable_steps(&self) -> bool {
        self.controller.variable_steps()
    }

    /// Accepted, event and rejected steps and restored module states so far.
    pub fn stats(&self) -> RunStats {
        self.stats
    }

    /// True when the controller reached the stop time, or a module ended the run.
    pub fn finished(&self) -> bool {
        self.terminated.is_some() || self.controller.finished(self.t)
    }

    /// `(time in s, module name)` if a module asked to terminate the simulation before the
    /// stop time (FMI `terminateSimulation`): the run finished early, not with an error.
    pub fn terminated_early(&self) -> Option<(f64, &str)> {
        self.terminated.as_ref().map(|(t, m)| (*t, m.as_str()))
    }

    /// Current communication point in s (off the grid right after an event).
    pub fn time(&self) -> f64 {
        self.t
    }

    /// The coupled system (outputs at the current communication point, call counts).
    pub fn system(&self) -> &CoupledSystem {
        &self.system
    }

    /// Ends the run and returns the system (e.g. to terminate it or inspect modules).
    pub fn into_system(self) -> CoupledSystem {
        self.system
    }

    /// The algorithm (e.g. to read the run-wide defects it measured).
    pub fn algorithm(&self) -> &dyn MasterAlgorithm {
        self.algorithm.as_ref()
    }

    /// The algorithm's short name.
    pub fn algorithm_name(&self) -> &'static str {
        self.algorithm.name()
    }

    /// The step controller's short name.
    pub fn controller_name(&self) -> &'static str {
        self.controller.name()
    }
}

/// The error when an attempt was rejected and no step to retry with is known.
fn cannot_retry(t: f64, h: f64, reason: RejectReason) -> MasterError {
    match reason {
        RejectReason::Discarded { module } => MasterError::StepDiscarded { module, t, h },
        reason => MasterError::StepRejected { t, h, reason },
    }
}
