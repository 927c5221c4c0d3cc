//! The run's time grid from `run.start`, `run.stop` and `master.macro_step`. A run ends
//! exactly on its stop time: when the interval is not a whole number of macro-steps (within
//! [`crate::time::WHOLE_STEP_TOLERANCE`]) the last step is shorter. Methods that need every
//! step to be the macro-step refuse such a stop time, naming the two nearest that work.

use super::super::schema::{AnalysisView, Scenario};
use super::Purpose;
use crate::error::ScenarioError;
use crate::time::{FixedGrid, MAX_MACRO_STEPS};
use alloc::format;

impl Scenario {
    /// The grid of the run, its step count checked against [`MAX_MACRO_STEPS`].
    pub(super) fn grid(&self, purpose: Purpose) -> Result<FixedGrid, ScenarioError> {
        let (start, stop, h) = (self.run.start, self.run.stop, self.master.macro_step);
        if !start.is_finite() {
            return Err(ScenarioError::at(
                "run.start",
                format!("expected a finite time, got {start}"),
            ));
        }
        if !(stop.is_finite() && stop > start) {
            return Err(ScenarioError::at(
                "run.stop",
                format!("expected a time after run.start ({start} s), got {stop}"),
            ));
        }
        let count = (stop - start) / h;
        let grid = FixedGrid::covering(start, stop, h);
        // The grid's count (a shorter last step counts), so an interval of exactly the limit
        // passes; a count beyond u32 is reported as computed.
        let steps = match count > f64::from(MAX_MACRO_STEPS) + 1.0 {
            true => count,
            false => f64::from(grid.steps),
        };
        if steps > f64::from(MAX_MACRO_STEPS) {
            return Err(ScenarioError::at(
                "master.macro_step",
                format!(
                    "{h} s over {} s is {steps:.0} macro-steps; at most {MAX_MACRO_STEPS} are allowed",
                    stop - start
                ),
            ));
        }
        if grid.steps == 0 || (grid.steps == 1 && !grid.is_uniform()) {
            return Err(ScenarioError::at(
                "master.macro_step",
                format!(
                    "{h} s is longer than the simulated interval of {} s",
                    stop - start
                ),
            ));
        }
        if let Some(needs) = self.uniform_grid_needed_by(purpose) {
            whole_steps_needed(&grid, needs)?;
        }
        Ok(grid)
    }

    /// What in this scenario needs every step to be the macro-step, if anything.
    fn uniform_grid_needed_by(&self, purpose: Purpose) -> Option<&'static str> {
        let m = &self.master;
        // An analysis studies one step's propagation matrix over whole steps of every
        // macro-step it sweeps (docs/methods.md §2.4): it never runs to the stop time.
        if purpose == Purpose::Analysis
            || self
                .analysis
                .as_ref()
                .is_some_and(|a| a.view != AnalysisView::TimeResponse)
        {
            None
        } else if m.correction.is_some() {
            Some("model-based correction (master.correction) has gains and difference tables for one step size")
        } else if !m.module_steps.is_empty() {
            Some("multi-rate Jacobi (master.module_steps) steps each module a whole number of times per macro-step")
        } else {
            None
        }
    }
}

/// Refuses `grid` at `run.stop` unless every step is the macro-step: `needs` says what needs
/// it and why; the message names the nearest stop times that are whole numbers of steps.
pub fn whole_steps_needed(grid: &FixedGrid, needs: &str) -> Result<(), ScenarioError> {
    if grid.is_uniform() {
        return Ok(());
    }
    let (start, stop, h) = (grid.t_start, grid.t_stop, grid.h);
    let (below, above) = FixedGrid::whole_step_stops(start, stop, h);
    let nearest = match below {
        Some(b) => format!("{b} s or {above} s"),
        None => format!("{above} s"),
    };
    Err(ScenarioError::at(
        "run.stop",
        format!(
            "{stop} s is not a whole number of macro-steps of {h} s from {start} s ({:.4} steps), and \
             {needs}, so the run cannot end with a shorter step; stop at {nearest}",
            (stop - start) / h
        ),
    ))
}
