//! [`MultiRateJacobi`]: Jacobi coupling where module `m` takes `n_m` equal steps per
//! macro-step `H` (its communication step `H/n_m`; docs/methods.md §13.6).
//!
//! Every module steps on inputs extrapolated from the outputs exchanged at the macro grid
//! (`t_k`, `t_{k−1}`, `t_{k−2}`, order 0 to 2 as the history allows), evaluated at the start
//! of each of its own steps: `ũ(t_k + βH)` with `β = j/n_m`. A module's output at each of
//! its steps is therefore computed with the input of its previous step (the seed's
//! `ũ_{k+1} = u_k` on the fine grid); the value for `t_{k+1}` is never set before the output
//! at `t_{k+1}` is read. Offsets of a step hook are added to every value set.
//! With every `n_m = 1` and order 0 this is plain Jacobi with zero-order hold.

use crate::error::MasterError;
use crate::master::algorithm::require_whole_step;
use crate::master::predictor::OutputHistory;
use crate::master::{CoupledSystem, MacroStepOutcome, MasterAlgorithm, RunStart};
use alloc::vec::Vec;

/// Multi-rate Jacobi with polynomial extrapolation of order 0 to 2.
#[derive(Clone, Debug)]
pub struct MultiRateJacobi {
    substeps: Vec<u32>,
    order: u32,
    /// Outputs at the last three macro points, newest first.
    history: OutputHistory,
    /// Source output of every input.
    sources: Vec<usize>,
    values: Vec<f64>,
}

impl MultiRateJacobi {
    /// Module `m` takes `substeps[m]` steps per macro-step; inputs are extrapolated with
    /// `order` (0 ZOH, 1 FOH, 2 SOH).
    pub fn new(substeps: Vec<u32>, order: u32) -> Self {
        MultiRateJacobi {
            substeps,
            order: order.min(2),
            history: OutputHistory::new(3, 0),
            sources: Vec::new(),
            values: Vec::new(),
        }
    }

    /// Input `i` extrapolated to `β` macro-steps after the newest sample.
    fn extrapolate(&self, i: usize, beta: f64) -> f64 {
        let o = self.sources[i];
        let y = |k: usize| self.history.sample(k)[o];
        match self.order.min(self.history.len() as u32 - 1) {
            0 => y(0),
            1 => y(0) + beta * (y(0) - y(1)),
            _ => {
                (beta + 1.0) * (beta + 2.0) / 2.0 * y(0) - beta * (beta + 2.0) * y(1)
                    + beta * (beta + 1.0) / 2.0 * y(2)
            }
        }
    }
}

impl MasterAlgorithm for MultiRateJacobi {
    fn name(&self) -> &'static str {
        "multirate_jacobi"
    }

    fn prepare(
        &mut self,
        sys: &mut CoupledSystem,
        start: &RunStart<'_>,
    ) -> Result<(), MasterError> {
        if self.substeps.len() != sys.n_modules() || self.substeps.contains(&0) {
            return Err(MasterError::InvalidSettings(alloc::format!(
                "multi-rate Jacobi needs a step count of at least 1 for each of the {} modules",
                sys.n_modules()
            )));
        }
        let graph = sys.graph();
        self.sources = (0..graph.n_inputs())
            .map(|i| graph.source_of_input(i))
            .collect();
        self.values = alloc::vec![0.0; graph.n_inputs()];
        self.history = OutputHistory::new(3, graph.n_outputs());
        self.history.push(start.t_start, sys.outputs());
        Ok(())
    }

    fn step(
        &mut self,
        sys: &mut CoupledSystem,
        t: f64,
        h: f64,
    ) -> Result<MacroStepOutcome, MasterError> {
        for m in 0..sys.n_modules() {
            let n = self.substeps[m];
            let range = sys.graph().input_range(m);
            for j in 0..n {
                let beta = f64::from(j) / f64::from(n);
                let (t0, t1) = (t + beta * h, t + f64::from(j + 1) / f64::from(n) * h);
                for i in range.clone() {
                    let offset = sys.input_offsets().map_or(0.0, |o| o[i]);
                    self.values[i] = self.extrapolate(i, beta) + offset;
                }
                let mut slot = sys.slot(m);
                if !range.is_empty() {
                    let values = &self.values[range.clone()];
                    match j {
                        // The inputs applied at the macro point are the ones recorded.
                        0 => slot.set_inputs(t0, values)?,
                        _ => slot.set_inputs_unrecorded(t0, values)?,
                    }
                }
                let t_end = if j + 1 == n { t + h } else { t1 };
                let report = slot.do_step(t0, t_end - t0, true)?;
                require_whole_step(slot.name(), t0, t_end - t0, &report, "multi-rate Jacobi")?;
                slot.read_outputs(t_end)?;
            }
        }
        Ok(MacroStepOutcome::accepted(h))
    }

    fn commit(&mut self, sys: &CoupledSystem, t_end: f64) {
        self.history.push(t_end, sys.outputs());
    }
}
