//! [`ExplicitWork`]: the buffers of one explicit run (allocated once in `prepare`, so the
//! macro-step loop does not allocate): the shared [`InputPredictor`] with its history, the
//! extrapolation and interpolation weights of the current attempt, and which modules
//! already stepped in it (Gauss-Seidel).

use super::sequence::StepOrder;
use crate::error::MasterError;
use crate::master::predictor::{HistoryGrid, InputPredictor, TaylorWeights, MAX_ORDER};
use crate::master::{CoupledSystem, ModuleSlot, RunStart};
use crate::module::{Status, StepReport};
use alloc::format;
use alloc::vec;
use alloc::vec::Vec;

/// Work buffers, allocated once in `prepare`.
#[derive(Clone, Debug)]
pub(super) struct ExplicitWork {
    predictor: InputPredictor,
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
    pub(super) fn new(sys: &CoupledSystem, predictor: InputPredictor, order: StepOrder) -> Self {
        ExplicitWork {
            predictor,
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
        self.predictor.start(sys, start, HistoryGrid::Increasing)
    }

    /// Weights for this step: extrapolation through the newest `q + 1` samples and, for
    /// Gauss-Seidel, interpolation through the new sample at `t + h` and the newest `q` old
    /// ones.
    pub(super) fn begin(&mut self, t: f64, h: f64) -> Result<(), MasterError> {
        let invalid = || {
            MasterError::InvalidSettings(format!(
                "macro-step at t = {t} s, h = {h} s: sample times coincide"
            ))
        };
        let history = self.predictor.history();
        if self.predictor.order() == 0 {
            // Order 0: both polynomials go through one sample, so both weight tables stay
            // the hold they were made as; only the checks `assign_through` makes remain.
            let interpolation_end = if self.order.interpolate { t + h } else { t };
            if !(t.is_finite() && history.time(0).is_finite() && interpolation_end.is_finite()) {
                return Err(invalid());
            }
            if self.order.interpolate {
                self.stepped.iter_mut().for_each(|s| *s = false);
            }
            return Ok(());
        }
        // Through the newest `q + 1` samples, `q` the order usable with the history held.
        let mut times = [0.0; MAX_ORDER + 1];
        let q = self.predictor.effective_order();
        for (j, tj) in times.iter_mut().enumerate().take(q + 1) {
            *tj = history.time(j);
        }
        if !self.extrapolation.assign_through(&times[..=q], t) {
            return Err(invalid());
        }
        if self.order.interpolate {
            let q = self.predictor.order().min(history.len());
            times[0] = t + h;
            for (j, tj) in times.iter_mut().enumerate().take(q + 1).skip(1) {
                *tj = history.time(j - 1);
            }
            if !self.interpolation.assign_through(&times[..=q], t) {
                return Err(invalid());
            }
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
        self.predict(sys, m);
        let early_return_allowed = sys.instantiate_options(m).early_return_allowed;
        let report = step_slot(
            &self.predictor,
            &mut sys.slot(m),
            t,
            h,
            early_return_allowed,
        )?;
        if report.is_some() {
            self.mark_stepped(m);
        }
        Ok(report)
    }

    /// Predicts module `m`'s inputs for this attempt (set later by [`step_slot`]).
    pub(super) fn predict(&mut self, sys: &CoupledSystem, m: usize) {
        let range = sys.graph().input_range(m);
        if !range.is_empty() {
            self.fill_inputs(sys, range);
        }
    }

    /// The input predictor (read-only, for stepping modules in a sweep).
    pub(super) fn predictor(&self) -> &InputPredictor {
        &self.predictor
    }

    fn fill_inputs(&mut self, sys: &CoupledSystem, range: core::ops::Range<usize>) {
        let outputs = sys.outputs();
        let offsets = sys.input_offsets();
        if self.predictor.order() == 0 {
            // Both weight tables are the hold ([`Self::begin`]): each input is one sample.
            let newest = self
                .order
                .interpolate
                .then_some((outputs, self.stepped.as_slice()));
            self.predictor.hold_inputs(range, newest, offsets);
            return;
        }
        for i in range {
            let from_new = self.order.interpolate && self.stepped[self.predictor.source_module(i)];
            // Interpolation: through the new output and the old samples.
            let (w, newest) = if from_new {
                (&self.interpolation, Some(outputs[self.predictor.source(i)]))
            } else {
                (&self.extrapolation, None)
            };
            self.predictor
                .predict_input(i, w, newest, offsets.map(|off| off[i]));
        }
    }

    /// Stores the outputs at the end of the accepted macro-step as the newest sample.
    pub(super) fn commit(&mut self, sys: &CoupledSystem, t_end: f64) {
        self.predictor.push(t_end, sys.outputs());
    }
}

/// Sets the predicted inputs of the slot's module, steps it over `[t, t + h]` and reads its
/// outputs: the step of one module, the same whether the modules of a sweep run one after
/// the other or at once. `None` if the module discarded the step.
#[inline]
pub(super) fn step_slot(
    predictor: &InputPredictor,
    slot: &mut ModuleSlot<'_>,
    t: f64,
    h: f64,
    early_return_allowed: bool,
) -> Result<Option<StepReport>, MasterError> {
    // Held inputs (no derivatives to set between) go with the step in one request.
    let range = slot.graph.input_range(slot.index);
    let held = predictor.order() == 0 || range.is_empty();
    // noSetFMUStatePriorToCurrentPoint: a rollback only ever returns to `t`.
    let (report, read) = match held {
        true => {
            let inputs = (!range.is_empty()).then(|| &predictor.values()[range]);
            slot.step_with_io(t, h, inputs, early_return_allowed)?
        }
        false => {
            predictor.apply(slot, t)?;
            (slot.do_step(t, h, true)?, false)
        }
    };
    if report.status == Status::Discard {
        return Ok(None);
    }
    if report.early_return && !early_return_allowed {
        return Err(MasterError::EarlyReturnNotAllowed {
            module: slot.name().into(),
            t: report.last_successful_time,
        });
    }
    if !read {
        slot.read_outputs(report.last_successful_time.min(t + h))?;
    }
    Ok(Some(report))
}
