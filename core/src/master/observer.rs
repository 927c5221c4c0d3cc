//! [`Observer`]: read-only notifications from [`super::Run`] through a [`SystemView`];
//! [`TimeSeriesRecorder`] keeps every output at every communication point, [`LastValues`]
//! only the newest. [`StepHook`] is the one way to act on a run from outside: it is called
//! before every attempted step and may set offsets on the exchanged inputs.

use super::{CoupledSystem, StepDiagnostics};
use crate::error::{MasterError, RejectReason};
use alloc::vec::Vec;

/// What an observer sees at a communication point: read-only.
#[derive(Clone, Copy)]
pub struct SystemView<'a> {
    /// Communication point in s.
    pub t: f64,
    /// The macro-step that ended here, in s (0 at the start).
    pub h: f64,
    /// Attempts rejected (and rolled back) before this step was accepted.
    pub rejected_attempts: u32,
    /// What the algorithm reported about the accepted step (default at the start).
    pub diagnostics: StepDiagnostics,
    /// The system: names, graph, module descriptions.
    pub system: &'a CoupledSystem,
}

impl SystemView<'_> {
    /// Stacked outputs exchanged at `t` (corrected ones where the algorithm corrects).
    pub fn outputs(&self) -> &[f64] {
        self.system.outputs()
    }

    /// Stacked input values applied at the start of the step that ended at `t` (the
    /// initial inputs at the start time).
    pub fn inputs(&self) -> &[f64] {
        self.system.inputs()
    }
}

/// Receives each communication point. `()` ignores everything.
pub trait Observer {
    /// After initialisation, at the start time.
    fn on_initialized(&mut self, view: &SystemView<'_>);
    /// After each accepted macro-step, at its end.
    fn on_macro_step(&mut self, view: &SystemView<'_>);
    /// After an attempt from `t` over `h` was rejected and every module restored to `t`.
    fn on_rejected(&mut self, _t: f64, _h: f64, _reason: &RejectReason) {}
}

impl Observer for () {
    fn on_initialized(&mut self, _view: &SystemView<'_>) {}
    fn on_macro_step(&mut self, _view: &SystemView<'_>) {}
}

/// Called by the driver before every attempted macro-step (libcosim's
/// `step_commencing`). `offsets` (one per stacked input, kept between steps) is added to
/// the value of every input the algorithm applies: this is how a correction from outside
/// the algorithm (e.g. an energy correction) changes what is exchanged.
pub trait StepHook: Send {
    /// Before the attempt from `view.t` over `h`.
    fn step_commencing(
        &mut self,
        view: &SystemView<'_>,
        h: f64,
        offsets: &mut [f64],
    ) -> Result<(), MasterError>;
}

/// Records the time and each stacked output as columns (one `Vec<f64>` per signal, in
/// the order of [`crate::coupling::CouplingGraph::output_names`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TimeSeriesRecorder {
    /// Communication points in s.
    pub time: Vec<f64>,
    /// `columns[signal][point]`.
    pub columns: Vec<Vec<f64>>,
}

impl TimeSeriesRecorder {
    /// An empty recorder; columns are created at the first notification.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty recorder with room for `points` samples of `signals` outputs, so recording
    /// does not reallocate during the run.
    pub fn with_capacity(signals: usize, points: usize) -> Self {
        TimeSeriesRecorder {
            time: Vec::with_capacity(points),
            columns: (0..signals).map(|_| Vec::with_capacity(points)).collect(),
        }
    }

    fn record(&mut self, t: f64, outputs: &[f64]) {
        if self.columns.len() < outputs.len() {
            self.columns.resize_with(outputs.len(), Vec::new);
        }
        self.time.push(t);
        for (c, &y) in self.columns.iter_mut().zip(outputs) {
            c.push(y);
        }
    }
}

impl Observer for TimeSeriesRecorder {
    fn on_initialized(&mut self, view: &SystemView<'_>) {
        self.record(view.t, view.outputs());
    }
    fn on_macro_step(&mut self, view: &SystemView<'_>) {
        self.record(view.t, view.outputs());
    }
}

/// Keeps only the newest communication point (for progress displays and long runs).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LastValues {
    /// Time of the newest point in s (`None` before the first notification).
    pub time: Option<f64>,
    /// Stacked outputs at that time.
    pub outputs: Vec<f64>,
}

impl LastValues {
    fn record(&mut self, t: f64, outputs: &[f64]) {
        self.time = Some(t);
        self.outputs.clear();
        self.outputs.extend_from_slice(outputs);
    }
}

impl Observer for LastValues {
    fn on_initialized(&mut self, view: &SystemView<'_>) {
        self.record(view.t, view.outputs());
    }
    fn on_macro_step(&mut self, view: &SystemView<'_>) {
        self.record(view.t, view.outputs());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recorders_keep_columns_and_last_values() {
        let mut rec = TimeSeriesRecorder::with_capacity(2, 3);
        let mut last = LastValues::default();
        // Through a real run in master/tests/driver.rs; here the column layout.
        rec.record(0.0, &[1.0, 2.0]);
        rec.record(0.5, &[3.0, 4.0]);
        last.record(0.0, &[1.0, 2.0]);
        last.record(0.5, &[3.0, 4.0]);
        assert_eq!(rec.time, [0.0, 0.5]);
        assert_eq!(rec.columns, [[1.0, 3.0], [2.0, 4.0]]);
        assert_eq!(
            (last.time, last.outputs.as_slice()),
            (Some(0.5), &[3.0, 4.0][..])
        );
    }
}
