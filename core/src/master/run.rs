//! [`Run`]: the driver that owns time. It initialises the system, hands the start-up
//! history to the algorithm, calls it once per macro-step on the fixed grid
//! `t_n = t_start + n·h` (computed from the integer index, never accumulated) and notifies
//! the observer. The run can be advanced in chunks (the page's worker posts progress).

use super::{CoupledSystem, MacroStepOutcome, MasterAlgorithm, Observer, RunStart};
use crate::error::MasterError;
use crate::time::FixedGrid;
use alloc::boxed::Box;
use alloc::format;
use alloc::vec::Vec;

/// A co-simulation run on a fixed macro-step grid.
pub struct Run {
    system: CoupledSystem,
    algorithm: Box<dyn MasterAlgorithm>,
    grid: FixedGrid,
    steps_done: u32,
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
        while done < max_steps && self.steps_done < self.grid.steps {
            if let Err(e) = self.step_once() {
                self.failure = Some(e.clone());
                return Err(e);
            }
            done += 1;
            observer.on_macro_step(self.grid.time(self.steps_done), self.system.outputs());
        }
        Ok(self.finished())
    }

    fn step_once(&mut self) -> Result<(), MasterError> {
        let t = self.grid.time(self.steps_done);
        let h = self.grid.h;
        match self.algorithm.step(&mut self.system, t, h)? {
            MacroStepOutcome::Accepted { h_taken } if (h_taken - h).abs() <= 1e-12 * h => {
                self.steps_done += 1;
                Ok(())
            }
            MacroStepOutcome::Accepted { h_taken } => Err(MasterError::InvalidSettings(format!(
                "`{}` took a step of {h_taken} s at t = {t} s; the fixed-grid run needs {h} s",
                self.algorithm.name()
            ))),
            MacroStepOutcome::Rejected { h_retry } => Err(MasterError::InvalidSettings(format!(
                "`{}` rejected the step at t = {t} s (retry with {h_retry} s); the fixed-grid run cannot retry",
                self.algorithm.name()
            ))),
        }
    }

    /// Macro-steps completed.
    pub fn steps_done(&self) -> u32 {
        self.steps_done
    }

    /// True when every step of the grid is done.
    pub fn finished(&self) -> bool {
        self.steps_done >= self.grid.steps
    }

    /// The macro-step grid.
    pub fn grid(&self) -> &FixedGrid {
        &self.grid
    }

    /// Current communication point in s.
    pub fn time(&self) -> f64 {
        self.grid.time(self.steps_done)
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
