//! [`ExplicitWork`]: the buffers of one explicit run (allocated once in `prepare`, so the
//! macro-step loop does not allocate): the output history, the extrapolation and
//! interpolation weights of the current step, and the stacked input values and
//! derivatives handed to the modules.

use super::sequence::StepOrder;
use crate::error::MasterError;
use crate::master::extrapolation::{Extrapolation, TaylorWeights, MAX_ORDER};
use crate::master::history::OutputHistory;
use crate::master::{CoupledSystem, RunStart};
use crate::module::{Status, StepReport, ValueRef};
use alloc::format;
use alloc::vec;
use alloc::vec::Vec;

/// Work buffers, allocated once in `prepare`.
#[derive(Clone, Debug)]
pub(super) struct ExplicitWork {
    /// Extrapolation order `p`.
    p: usize,
    history: OutputHistory,
    /// Input values at `t_n`, stacked.
    u: Vec<f64>,
    /// Input derivatives, module blocks at `p·input_start`, order-major inside a block.
    du: Vec<f64>,
    du_vrs: Vec<ValueRef>,
    du_orders: Vec<u32>,
    /// Module owning the source output of each stacked input.
    source_module: Vec<usize>,
    /// Modules already stepped in this macro-step (Gauss-Seidel only).
    stepped: Vec<bool>,
    extrapolation: TaylorWeights,
    interpolation: TaylorWeights,
    /// Stepping order and what early return needs.
    pub(super) order: StepOrder,
    /// Step reports of the modules stepped in the current attempt.
    pub(super) reports: Vec<Option<StepReport>>,
}

impl ExplicitWork {
    pub(super) fn new(sys: &CoupledSystem, p: usize, order: StepOrder) -> Self {
        let g = sys.graph();
        let (n_u, n_y) = (g.n_inputs(), g.n_outputs());
        let mut du_vrs = Vec::with_capacity(n_u * p);
        let mut du_orders = Vec::with_capacity(n_u * p);
        for m in 0..sys.n_modules() {
            for k in 1..=p {
                for &vr in g.input_value_refs(m) {
                    du_vrs.push(vr);
                    du_orders.push(k as u32);
                }
            }
        }
        ExplicitWork {
            p,
            history: OutputHistory::new(p + 1, n_y),
            u: vec![0.0; n_u],
            du: vec![0.0; n_u * p],
            du_vrs,
            du_orders,
            source_module: (0..n_u)
                .map(|i| g.output_module(g.source_of_input(i)))
                .collect(),
            stepped: vec![false; sys.n_modules()],
            extrapolation: TaylorWeights::hold(),
            interpolation: TaylorWeights::hold(),
            order,
            reports: vec![None; sys.n_modules()],
        }
    }

    /// Exact past samples (checked), then the initial outputs at `t_start`.
    pub(super) fn start_history(
        &mut self,
        sys: &CoupledSystem,
        start: &RunStart<'_>,
    ) -> Result<(), MasterError> {
        self.history.clear();
        let mut previous = f64::NEG_INFINITY;
        for (k, (t, y)) in start.history.iter().enumerate() {
            let bad = |why: &str| {
                MasterError::InvalidSettings(format!(
                    "start-up history sample {k} (t = {t} s): {why}"
                ))
            };
            if y.len() != sys.graph().n_outputs() {
                return Err(bad("wrong number of outputs"));
            }
            if !t.is_finite() || *t <= previous || *t >= start.t_start {
                return Err(bad(
                    "times must be finite, increasing and before the start time",
                ));
            }
            if y.iter().any(|v| !v.is_finite()) {
                return Err(bad("non-finite value"));
            }
            previous = *t;
            self.history.push(*t, y);
        }
        self.history.push(start.t_start, sys.outputs());
        Ok(())
    }

    /// Weights for this step: extrapolation through the newest `q + 1` samples and, for
    /// Gauss-Seidel, interpolation through the new sample at `t + h` and the newest `q` old
    /// ones.
    pub(super) fn begin(&mut self, t: f64, h: f64) -> Result<(), MasterError> {
        let mut times = [0.0; MAX_ORDER + 1];
        let q = self.p.min(self.history.len().saturating_sub(1));
        for (j, tj) in times.iter_mut().enumerate().take(q + 1) {
            *tj = self.history.time(j);
        }
        let invalid = || {
            MasterError::InvalidSettings(format!(
                "macro-step at t = {t} s, h = {h} s: sample times coincide"
            ))
        };
        self.extrapolation = Extrapolation::weights(&times[..=q], t).ok_or_else(invalid)?;
        if self.order.interpolate {
            let q = self.p.min(self.history.len());
            times[0] = t + h;
            for (j, tj) in times.iter_mut().enumerate().take(q + 1).skip(1) {
                *tj = self.history.time(j - 1);
            }
            self.interpolation = Extrapolation::weights(&times[..=q], t).ok_or_else(invalid)?;
            self.stepped.iter_mut().for_each(|s| *s = false);
        }
        Ok(())
    }

    /// Marks module `m` as stepped in this macro-step (Gauss-Seidel: its new outputs feed
    /// the modules after it).
    pub(super) fn mark_stepped(&mut self, m: usize) {
        if self.order.interpolate {
            self.stepped[m] = true;
        }
    }

    /// Sets module `m`'s input polynomial, steps it and reads its new outputs; returns its
    /// step report (early return, events and termination are for the caller), or `None`
    /// if the module discarded the step.
    pub(super) fn advance_module(
        &mut self,
        sys: &mut CoupledSystem,
        m: usize,
        t: f64,
        h: f64,
    ) -> Result<Option<StepReport>, MasterError> {
        let range = sys.graph().input_range(m);
        if !range.is_empty() {
            self.fill_inputs(sys, range.clone());
            sys.set_inputs(m, t, &self.u[range.clone()])?;
            let p = self.p;
            if p > 0 {
                let b = p * range.start..p * range.end;
                sys.set_input_derivatives(
                    m,
                    t,
                    &self.du_vrs[b.clone()],
                    &self.du_orders[b.clone()],
                    &self.du[b],
                )?;
            }
        }
        // noSetFMUStatePriorToCurrentPoint: a rollback only ever returns to `t`.
        let report = sys.do_step(m, t, h, true)?;
        if report.status == Status::Discard {
            return Ok(None);
        }
        if report.early_return && !sys.instantiate_options(m).early_return_allowed {
            return Err(MasterError::EarlyReturnNotAllowed {
                module: sys.name(m).into(),
                t: report.last_successful_time,
            });
        }
        sys.read_outputs(m, report.last_successful_time.min(t + h))?;
        self.mark_stepped(m);
        Ok(Some(report))
    }

    fn fill_inputs(&mut self, sys: &CoupledSystem, range: core::ops::Range<usize>) {
        let p = self.p;
        let n_local = range.len();
        let outputs = sys.outputs();
        let graph = sys.graph();
        for (local, i) in range.clone().enumerate() {
            let o = graph.source_of_input(i);
            let from_new = self.order.interpolate && self.stepped[self.source_module[i]];
            let history = &self.history;
            // Interpolation: sample 0 is the new output, then the old samples.
            let sample = |j: usize| -> f64 {
                match (from_new, j) {
                    (true, 0) => outputs[o],
                    (true, j) => history.sample(j - 1)[o],
                    (false, j) => history.sample(j)[o],
                }
            };
            let w = if from_new {
                &self.interpolation
            } else {
                &self.extrapolation
            };
            self.u[i] = w.derivative(0, sample);
            for k in 1..=p {
                self.du[p * range.start + (k - 1) * n_local + local] = w.derivative(k, sample);
            }
        }
        if let Some(offsets) = sys.input_offsets() {
            for i in range {
                self.u[i] += offsets[i];
            }
        }
    }

    /// Stores the outputs at the end of the accepted macro-step as the newest sample.
    pub(super) fn commit(&mut self, sys: &CoupledSystem, t_end: f64) {
        self.history.push(t_end, sys.outputs());
    }
}
