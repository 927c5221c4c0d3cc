//! [`Observer`]: read-only notifications from [`super::Run`], and [`TimeSeriesRecorder`],
//! which keeps every output at every communication point.

use alloc::vec::Vec;

/// Receives the stacked outputs at each communication point. `()` ignores everything.
pub trait Observer {
    /// After initialisation, with the outputs at the start time.
    fn on_initialized(&mut self, t: f64, outputs: &[f64]);
    /// After each accepted macro-step, with the outputs at its end `t`.
    fn on_macro_step(&mut self, t: f64, outputs: &[f64]);
}

impl Observer for () {
    fn on_initialized(&mut self, _t: f64, _outputs: &[f64]) {}
    fn on_macro_step(&mut self, _t: f64, _outputs: &[f64]) {}
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
    fn on_initialized(&mut self, t: f64, outputs: &[f64]) {
        self.record(t, outputs);
    }
    fn on_macro_step(&mut self, t: f64, outputs: &[f64]) {
        self.record(t, outputs);
    }
}
