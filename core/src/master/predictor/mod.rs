//! [`InputPredictor`]: what every extrapolating master hands its modules (docs/methods.md
//! §4, §5.3). It keeps the history of exchanged outputs, and turns a polynomial through
//! them ([`TaylorWeights`], non-uniform sample times or the uniform rows) into each input's
//! value at the step start and its derivatives `1..=p`, which it sets through
//! `set_float64` and `set_input_derivatives` (`x-maxInputDerivativeOrder`).
//!
//! Shared by the explicit schemes and the model-based corrector, so the derivative tables,
//! the capability check and the start-up history are written once. The history holds up to
//! `p + 2` samples: one more than a polynomial of order `p` needs, so an order controller can
//! compare orders `p` and `p + 1` without a second history.

mod extrapolation;
mod history;

pub use extrapolation::{Extrapolation, TaylorWeights, MAX_ORDER};
pub use history::OutputHistory;

use super::{CoupledSystem, ModuleSlot, RunStart};
use crate::error::MasterError;
use crate::module::ValueRef;
use alloc::format;
use alloc::vec;
use alloc::vec::Vec;
use core::ops::Range;

/// `x-maxInputDerivativeOrder ≥ p`, as static text for [`MasterError::MissingCapability`].
const INPUT_ORDER_NEEDED: [&str; MAX_ORDER + 1] = [
    "x-maxInputDerivativeOrder ≥ 0",
    "x-maxInputDerivativeOrder ≥ 1",
    "x-maxInputDerivativeOrder ≥ 2",
    "x-maxInputDerivativeOrder ≥ 3",
    "x-maxInputDerivativeOrder ≥ 4",
];

/// How the start-up history must be spaced.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum HistoryGrid {
    /// Any increasing times before the start.
    Increasing,
    /// Exactly `t_start − kΔT` (the corrector's tables are for one step size).
    Uniform,
}

/// The output history and the predicted inputs of one run (allocated once).
#[derive(Clone, Debug)]
pub struct InputPredictor {
    extrapolation: Extrapolation,
    history: OutputHistory,
    /// Stacked output feeding each stacked input.
    source: Vec<usize>,
    /// Module owning that output.
    source_module: Vec<usize>,
    /// First stacked input and input count of the module owning each input.
    input_block: Vec<(usize, usize)>,
    /// Input values at the step start, stacked.
    u: Vec<f64>,
    /// Input derivatives, module blocks at `p·input_start`, order-major inside a block.
    du: Vec<f64>,
    du_vrs: Vec<ValueRef>,
    du_orders: Vec<u32>,
}

/// Extrapolation of `order`, or the settings error naming the supported range.
pub fn extrapolation(order: u32) -> Result<Extrapolation, MasterError> {
    Extrapolation::new(order).ok_or_else(|| {
        MasterError::InvalidSettings(format!(
            "extrapolation order {order} is not supported (0 to {MAX_ORDER})"
        ))
    })
}

/// Extrapolation of order `p` needs `x-maxInputDerivativeOrder ≥ p` from every module with
/// inputs (checked before the first step).
pub fn check_input_order(sys: &CoupledSystem, p: usize) -> Result<(), MasterError> {
    for m in 0..sys.n_modules() {
        if sys.graph().input_range(m).is_empty() {
            continue;
        }
        let provided = sys
            .subsystem(m)
            .description()
            .capabilities
            .x_max_input_derivative_order;
        if (provided as usize) < p {
            return Err(MasterError::MissingCapability {
                module: sys.name(m).into(),
                capability: INPUT_ORDER_NEEDED[p],
                needed_by: format!("extrapolation order {p} (module provides order {provided})"),
            });
        }
    }
    Ok(())
}

impl InputPredictor {
    /// Checks the order and the modules' input-derivative capability, then allocates.
    pub fn new(sys: &CoupledSystem, order: u32) -> Result<Self, MasterError> {
        let extrapolation = extrapolation(order)?;
        let p = extrapolation.order();
        check_input_order(sys, p)?;
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
        Ok(InputPredictor {
            extrapolation,
            history: OutputHistory::new(p + 2, n_y),
            source: (0..n_u).map(|i| g.source_of_input(i)).collect(),
            source_module: (0..n_u)
                .map(|i| g.output_module(g.source_of_input(i)))
                .collect(),
            input_block: (0..n_u)
                .map(|i| {
                    let r = g.input_range(g.input_module(i));
                    (r.start, r.len())
                })
                .collect(),
            u: vec![0.0; n_u],
            du: vec![0.0; n_u * p],
            du_vrs,
            du_orders,
        })
    }

    /// The extrapolation order `p`.
    pub fn order(&self) -> usize {
        self.extrapolation.order()
    }

    /// The order usable now: `min(p, samples − 1)` (ramp-up start).
    pub fn effective_order(&self) -> usize {
        self.extrapolation.effective_order(self.history.len())
    }

    /// The exchanged outputs, newest first.
    pub fn history(&self) -> &OutputHistory {
        &self.history
    }

    /// Stacked output feeding stacked input `i`.
    #[inline]
    pub fn source(&self, i: usize) -> usize {
        self.source[i]
    }

    /// Module owning the output feeding stacked input `i`.
    #[inline]
    pub fn source_module(&self, i: usize) -> usize {
        self.source_module[i]
    }

    /// Input values last predicted, stacked.
    pub fn values(&self) -> &[f64] {
        &self.u
    }

    /// Input derivatives last predicted (module blocks at `p·input_start`, order-major).
    pub fn derivatives(&self) -> &[f64] {
        &self.du
    }

    /// Exact past samples (checked against `grid`), then the initial outputs at `t_start`.
    pub fn start(
        &mut self,
        sys: &CoupledSystem,
        start: &RunStart<'_>,
        grid: HistoryGrid,
    ) -> Result<(), MasterError> {
        self.history.clear();
        let count = start.history.len();
        let mut previous = f64::NEG_INFINITY;
        for (k, (t, y)) in start.history.iter().enumerate() {
            let bad = |why: &str| {
                MasterError::InvalidSettings(format!(
                    "start-up history sample {k} (t = {t} s): {why}"
                ))
            };
            match grid {
                HistoryGrid::Increasing => {
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
                }
                HistoryGrid::Uniform => {
                    let expected = start.t_start - (count - k) as f64 * start.h;
                    let uniform = (t - expected).abs() <= 1e-9 * start.h.max(start.t_start.abs());
                    if y.len() != sys.graph().n_outputs()
                        || !uniform
                        || y.iter().any(|v| !v.is_finite())
                    {
                        return Err(bad(&format!(
                            "model-based correction needs finite samples of every output at \
                             t_start − k·ΔT ({expected} s)"
                        )));
                    }
                }
            }
            previous = *t;
            self.history.push(*t, y);
        }
        self.history.push(start.t_start, sys.outputs());
        Ok(())
    }

    /// Adds the exchanged outputs of an accepted step as the newest sample.
    pub fn push(&mut self, t: f64, y: &[f64]) {
        self.history.push(t, y);
    }

    /// Predicts stacked input `i` from the polynomial `w` through the history of its source
    /// output (after `newest`, a sample not yet in the history, for Gauss-Seidel's
    /// interpolation): its value (plus `offset`, if any) and derivatives `1..=p` (zero above
    /// the polynomial's degree).
    #[inline]
    pub fn predict_input(
        &mut self,
        i: usize,
        w: &TaylorWeights,
        newest: Option<f64>,
        offset: Option<f64>,
    ) {
        let p = self.order();
        let (o, history) = (self.source[i], &self.history);
        // The samples the polynomial goes through, read from the history once for the value
        // and all the derivatives.
        let mut samples = [0.0; MAX_ORDER + 1];
        for (j, y) in samples.iter_mut().enumerate().take(w.degree() + 1) {
            *y = match (newest, j) {
                (Some(y), 0) => y,
                (Some(_), j) => history.sample(j - 1)[o],
                (None, j) => history.sample(j)[o],
            };
        }
        let sample = |j: usize| samples[j];
        let value = w.derivative(0, sample);
        self.u[i] = match offset {
            Some(off) => value + off,
            None => value,
        };
        let (first, len) = self.input_block[i];
        for k in 1..=p {
            self.du[p * first + (k - 1) * len + (i - first)] = w.derivative(k, sample);
        }
    }

    /// [`Self::predict_input`] for order `p = 0` with the hold's weights (one sample,
    /// weight 1), for the stacked inputs `inputs`: each is the newest sample of its source
    /// output, plus its offset (if any). With `newest = Some((outputs, stepped))` an input
    /// whose source module has `stepped` takes the new value in `outputs` instead
    /// (Gauss-Seidel). The same bits: `1·y` is `y`, and the sum of one term is that term.
    #[inline]
    pub fn hold_inputs(
        &mut self,
        inputs: Range<usize>,
        newest: Option<(&[f64], &[bool])>,
        offsets: Option<&[f64]>,
    ) {
        let sample = self.history.sample(0);
        for i in inputs {
            let o = self.source[i];
            let y = match newest {
                Some((outputs, stepped)) if stepped[self.source_module[i]] => outputs[o],
                _ => sample[o],
            };
            self.u[i] = match offsets {
                Some(off) => y + off[i],
                None => y,
            };
        }
    }

    /// The derivative block of the module whose stacked inputs are `inputs`.
    #[inline]
    pub fn derivative_block(&self, inputs: &Range<usize>) -> Range<usize> {
        let p = self.order();
        p * inputs.start..p * inputs.end
    }

    /// Sets the slot's module's predicted inputs and derivatives. The caller records the
    /// prediction as the inputs applied once all modules are set ([`Self::record`]).
    #[inline]
    pub fn apply(&self, slot: &mut ModuleSlot<'_>, t: f64) -> Result<(), MasterError> {
        let range = slot.graph.input_range(slot.index);
        if range.is_empty() {
            return Ok(());
        }
        slot.set_inputs_unrecorded(t, &self.u[range.clone()])?;
        if self.order() == 0 {
            // No derivatives to set (checked here, where the call is saved, not inside it).
            return Ok(());
        }
        let block = self.derivative_block(&range);
        self.apply_derivatives(slot, t, &range, &self.du[block])
    }

    /// Records the predicted inputs as the inputs applied in this attempt.
    pub fn record(&self, sys: &mut CoupledSystem) {
        sys.record_inputs(&self.u);
    }

    /// Sets the slot's module's inputs to `u` and derivatives to `du` (its block layout),
    /// e.g. a perturbed copy of the prediction.
    #[inline]
    pub fn apply_values(
        &self,
        slot: &mut ModuleSlot<'_>,
        t: f64,
        u: &[f64],
        du: &[f64],
    ) -> Result<(), MasterError> {
        let range = slot.graph.input_range(slot.index);
        if range.is_empty() {
            return Ok(());
        }
        slot.set_inputs(t, u)?;
        self.apply_derivatives(slot, t, &range, du)
    }

    #[inline]
    fn apply_derivatives(
        &self,
        slot: &mut ModuleSlot<'_>,
        t: f64,
        range: &Range<usize>,
        du: &[f64],
    ) -> Result<(), MasterError> {
        if self.order() > 0 {
            let b = self.derivative_block(range);
            slot.set_input_derivatives(t, &self.du_vrs[b.clone()], &self.du_orders[b], du)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::master::tests::two_mass;

    /// `hold_inputs` gives the bits `predict_input` gives with the hold's weights, from the
    /// history or (Gauss-Seidel) the new outputs, with and without offsets, signed zeros
    /// and subnormals included.
    #[test]
    fn held_inputs_have_the_bits_of_the_hold_polynomial() {
        let mut sys = two_mass();
        sys.initialize(0.0, 1.0).unwrap();
        let start = RunStart {
            t_start: 0.0,
            h: 0.1,
            variable_steps: false,
            history: &[],
        };
        let mut held = InputPredictor::new(&sys, 0).unwrap();
        held.start(&sys, &start, HistoryGrid::Increasing).unwrap();
        held.push(0.1, &[-0.0, 1e-310, 0.0]);
        let mut predicted = held.clone();
        let n_u = sys.graph().n_inputs();
        let new_outputs = [2.5, -0.0, -3e-320];
        let offsets: Vec<f64> = (0..n_u).map(|i| [-0.0, 0.0, 1e-300][i % 3]).collect();
        for stepped in [None, Some([true, false]), Some([false, true])] {
            for offsets in [None, Some(offsets.as_slice())] {
                let newest = stepped.as_ref().map(|s| (&new_outputs[..], &s[..]));
                held.hold_inputs(0..n_u, newest, offsets);
                for i in 0..n_u {
                    let from_new = stepped.is_some_and(|s| s[predicted.source_module(i)]);
                    let y = from_new.then(|| new_outputs[predicted.source(i)]);
                    let offset = offsets.map(|off| off[i]);
                    predicted.predict_input(i, &TaylorWeights::hold(), y, offset);
                }
                let bits = |p: &InputPredictor| p.values().iter().map(|v| v.to_bits()).collect();
                let (got, want): (Vec<u64>, Vec<u64>) = (bits(&held), bits(&predicted));
                assert_eq!(got, want, "stepped {stepped:?}, offsets {offsets:?}");
            }
        }
    }
}
