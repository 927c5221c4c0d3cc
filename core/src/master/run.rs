//! [`Run`]: the driver that owns time. It initialises the system, hands the start-up
//! history to the algorithm, calls it once per macro-step on the fixed grid
//! `t_n = t_start + n·h` (computed from the integer index, never accumulated) and notifies
//! the observer. The run can be advanced in chunks (the page's worker posts progress).
//!
//! Events move communication points off the grid: when a module returns early at
//! `t_e < t_n + h` (seed-004 digest §2.4), the algorithm brings every module to `t_e` and
//! reports the shorter step; the run records the point at its actual time and continues
//! from `t_e` (FMI: time advances from `lastSuccessfulTime`) to the next grid point
//! `t_{n+1}`, so the grid itself never drifts. A module asking to terminate ends the run
//! cleanly at that time: [`Run::finished`] is true and [`Run::terminated_early`] says
//! who and when.

use super::{CoupledSystem, MacroStepOutcome, MasterAlgorithm, Observer, RunStart};
use crate::error::MasterError;
use crate::time::FixedGrid;
use alloc::boxed::Box;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// A co-simulation run on a fixed macro-step grid.
pub struct Run {
    system: CoupledSystem,
    algorithm: Box<dyn MasterAlgorithm>,
    grid: FixedGrid,
    /// Grid steps completed: the next grid point is `grid.time(steps_done + 1)`.
    steps_done: u32,
    /// Current communication point in s (a grid point, or an event time between two).
    t: f64,
    /// Communication points reached off the grid (early returns at events).
    events: u32,
    terminated: Option<(f64, String)>,
    initial_reported: bool,
    failure: Option<MasterError>,
}

impl Run {
    /// Initialises `system` at `grid.t_start` (unless it already is), then prepares the
    /// algorithm. `history`: exact past output samples `(t, stacked outputs)` before the
    /// start time, oldest first, so extrapolation has its full order from the first step;
    /// `None` ramps the order up as samples accumulate (seed-000 digest §8 item 7).
    pub fn new(
        mut system: CoupledSystem,
        mut algorithm: Box<dyn MasterAlgorithm>,
        grid: FixedGrid,
        history: Option<Vec<(f64, Vec<f64>)>>,
    ) -> Result<Run, MasterError> {
        if !grid.t_start.is_finite() || !grid.h.is_finite() || grid.h <= 0.0 {
            return Err(MasterError::InvalidSettings(format!(
                "the macro-step must be finite and positive and the start time finite (h = {} s, start = {} s)",
                grid.h, grid.t_start
            )));
        }
        match system.initialized_at() {
            None => system.initialize(grid.t_start, grid.time(grid.steps))?,
            Some(t) if t == grid.t_start => {}
            Some(t) => {
                return Err(MasterError::InvalidSettings(format!(
                    "the system was initialised at t = {t} s but the run starts at {} s",
                    grid.t_start
                )))
            }
        }
        let history = history.unwrap_or_default();
        let start = RunStart {
            t_start: grid.t_start,
            h: grid.h,
            history: &history,
        };
        algorithm.prepare(&mut system, &start)?;
        Ok(Run {
            system,
            algorithm,
            grid,
            steps_done: 0,
            t: grid.t_start,
            events: 0,
            terminated: None,
            initial_reported: false,
            failure: None,
        })
    }

    /// Performs up to `max_steps` macro-steps; `Ok(true)` once the grid's last step is done.
    /// The first call also reports the initial outputs. After a failure every later call
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
            observer.on_initialized(self.grid.t_start, self.system.outputs());
            self.initial_reported = true;
        }
        let mut done = 0;
        while done < max_steps && !self.finished() {
            if let Err(e) = self.step_once() {
                self.failure = Some(e.clone());
                return Err(e);
            }
            done += 1;
            observer.on_macro_step(self.t, self.system.outputs());
        }
        Ok(self.finished())
    }

    fn step_once(&mut self) -> Result<(), MasterError> {
        let t = self.t;
        let target = self.grid.time(self.steps_done + 1);
        // On the grid the step is exactly h; after an event it is the rest up to t_{n+1}.
        let h = if t == self.grid.time(self.steps_done) {
            self.grid.h
        } else {
            target - t
        };
        let h_taken = match self.algorithm.step(&mut self.system, t, h)? {
            MacroStepOutcome::Accepted { h_taken } => h_taken,
            MacroStepOutcome::Terminated { h_taken, module } => {
                self.advance_time(t, h, h_taken, target)?;
                let name = self.system.names.get(module).cloned().unwrap_or_default();
                self.terminated = Some((self.t, name));
                return Ok(());
            }
            MacroStepOutcome::Rejected { h_retry } => {
                return Err(MasterError::InvalidSettings(format!(
                    "`{}` rejected the step at t = {t} s (retry with {h_retry} s); the fixed-grid run cannot retry",
                    self.algorithm.name()
                )))
            }
        };
        self.advance_time(t, h, h_taken, target)
    }

    /// Moves the clock after a step of `h_taken` out of the requested `h`: a full step lands
    /// exactly on the grid point `target`, a shorter one (early return) on `t + h_taken`.
    fn advance_time(
        &mut self,
        t: f64,
        h: f64,
        h_taken: f64,
        target: f64,
    ) -> Result<(), MasterError> {
        if (h_taken - h).abs() <= 1e-12 * self.grid.h {
            self.steps_done += 1;
            self.t = target;
            Ok(())
        } else if h_taken >= 0.0 && h_taken < h {
            self.events += 1;
            self.t = t + h_taken;
            Ok(())
        } else {
            Err(MasterError::InvalidSettings(format!(
                "`{}` took a step of {h_taken} s at t = {t} s; the run needs at most {h} s",
                self.algorithm.name()
            )))
        }
    }

    /// Grid steps completed (communication points reached early at events not counted).
    pub fn steps_done(&self) -> u32 {
        self.steps_done
    }

    /// Communication points reached off the grid, at events (early returns).
    pub fn events(&self) -> u32 {
        self.events
    }

    /// True when every step of the grid is done, or a module ended the run.
    pub fn finished(&self) -> bool {
        self.steps_done >= self.grid.steps || self.terminated.is_some()
    }

    /// `(time in s, module name)` if a module asked to terminate the simulation before the
    /// stop time (FMI `terminateSimulation`): the run finished early, not with an error.
    pub fn terminated_early(&self) -> Option<(f64, &str)> {
        self.terminated.as_ref().map(|(t, m)| (*t, m.as_str()))
    }

    /// The macro-step grid.
    pub fn grid(&self) -> &FixedGrid {
        &self.grid
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

    /// The algorithm's short name.
    pub fn algorithm_name(&self) -> &'static str {
        self.algorithm.name()
    }
}
