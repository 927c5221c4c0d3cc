//! [`Observer`]: read-only notifications from [`super::Run`]; [`TimeSeriesRecorder`]
//! keeps every output at every communication point, [`LastValues`] only the newest.

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
    fn on_initialized(&mut self, t: f64, outputs: &[f64]) {
        self.record(t, outputs);
    }
    fn on_macro_step(&mut self, t: f64, outputs: &[f64]) {
        self.record(t, outputs);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recorders_keep_columns_and_last_values() {
        let mut rec = TimeSeriesRecorder::with_capacity(2, 3);
        let mut last = LastValues::default();
        for obs in [&mut rec as &mut dyn Observer, &mut last, &mut ()] {
            obs.on_initialized(0.0, &[1.0, 2.0]);
            obs.on_macro_step(0.5, &[3.0, 4.0]);
        }
        assert_eq!(rec.time, [0.0, 0.5]);
        assert_eq!(rec.columns, [[1.0, 3.0], [2.0, 4.0]]);
        assert_eq!(
            (last.time, last.outputs.as_slice()),
            (Some(0.5), &[3.0, 4.0][..])
        );
    }
}
