//! [`CouplingVariables`]: seed 002's coupling variables `u` in the module graph, their
//! history of consistent values `(T_i, u_i)`, the input polynomial handed to the modules over
//! a macro-step, and the update step (docs/methods.md §14.9).
//!
//! - **Dynamic and algebraic modules.** A module that exposes its equations
//!   (`x-exposesEquations`) with no state is *algebraic* (a coupling element: `y = g(t, u)`);
//!   every other module is *dynamic* and is integrated over the macro-step. Algebraic modules
//!   are never stepped: they are evaluated in the update step only.
//! - **Coupling variables** are the inputs of the dynamic modules (stacking order), whatever
//!   feeds them: an algebraic module's output or another dynamic module's output.
//! - **Input polynomial.** Over `[T_N, T_N + H]` every coupling variable follows the Lagrange
//!   polynomial of a chosen degree through the newest points of a [`Samples`] view (the
//!   history for an extrapolation; the history with a new end point in front for an
//!   interpolation, as ExMilne's comparative run and the implicit corrector use it). It is
//!   handed to each dynamic module in Taylor form anchored at `T_N`: the value through
//!   `set_float64`, derivatives `1..=degree` through `set_input_derivatives`.
//! - **Update step** (paper §3, full update): after the dynamic modules stepped, every output
//!   with direct feedthrough is re-evaluated with `g(T_{N+1}, x_{N+1}, u)` in the coupling
//!   graph's feedthrough order, its inputs taken from the outputs just made consistent, so
//!   `u_{N+1} = φ(T_{N+1}, z_{N+1}, u_{N+1})` holds exactly (algebraic loops are refused
//!   when the graph is built).

use crate::coupling::Port;
use crate::error::MasterError;
use crate::master::error_control::lagrange::MAX_POINTS;
use crate::master::error_control::{
    coupling_history, Newest, NewtonPolynomial, Samples, WithNewest,
};
use crate::master::{CoupledSystem, OutputHistory, RunStart};
use crate::module::ValueRef;
use alloc::format;
use alloc::vec;
use alloc::vec::Vec;

/// Highest degree of an input polynomial (ExLocal's comparative run at `k = 5`).
pub const MAX_POLYNOMIAL_DEGREE: usize = 6;

/// The coupling variables of a run and the buffers of the update step (allocated once).
#[derive(Clone, Debug)]
pub struct CouplingVariables {
    /// Stacked input index of each coupling variable.
    inputs: Vec<usize>,
    /// Whether module `m` is integrated over the macro-step.
    dynamic: Vec<bool>,
    /// Whether stacked output `o` depends directly on an input of its module.
    feedthrough: Vec<bool>,
    /// Stacked output feeding each stacked input.
    sources: Vec<usize>,
    /// Accepted consistent values `(T_i, u_i)`, newest first.
    history: OutputHistory,
    /// The oldest history point is the tangent start's point before `T_0`, dropped at the
    /// first commit.
    tangent_point: bool,
    /// `(T_0, u_0)` kept while the tangent point is dropped.
    first: Vec<f64>,
    /// Consistent `u_{N+1}` of the last attempt.
    updated: Vec<f64>,
    /// Update-step work: stacked inputs, one module's states and outputs.
    all_inputs: Vec<f64>,
    x: Vec<f64>,
    y: Vec<f64>,
    work: InputWork,
}

/// Buffers for one module's input polynomial: values and derivatives (order-major) and
/// their value references and orders, and the stacked inputs applied.
#[derive(Clone, Debug)]
struct InputWork {
    values: Vec<f64>,
    derivatives: Vec<f64>,
    vrs: Vec<ValueRef>,
    orders: Vec<u32>,
    applied: Vec<f64>,
    polynomial: NewtonPolynomial,
}

impl CouplingVariables {
    /// Classifies the modules, finds the coupling variables and checks that every output
    /// with direct feedthrough can be re-evaluated (`x-exposesEquations`).
    pub fn new(sys: &mut CoupledSystem) -> Result<Self, MasterError> {
        let n = sys.n_modules();
        let mut dynamic = vec![true; n];
        for (m, d) in dynamic.iter_mut().enumerate() {
            if sys
                .subsystem(m)
                .description()
                .capabilities
                .x_exposes_equations
            {
                let count = sys.subsystem_mut(m).equation_state_count();
                *d = count.map_err(|e| sys.module_error(m, f64::NAN, e))? > 0;
            }
        }
        let g = sys.graph();
        let mut feedthrough = vec![false; g.n_outputs()];
        for (o, f) in feedthrough.iter_mut().enumerate() {
            let m = g.output_module(o);
            let desc = sys.subsystem(m).description();
            let out = g.output_value_ref(o);
            *f = g
                .input_value_refs(m)
                .iter()
                .any(|&i| desc.has_feedthrough(out, i));
            if *f && !desc.capabilities.x_exposes_equations {
                return Err(MasterError::MissingCapability {
                    module: sys.name(m).into(),
                    capability: "x-exposesEquations",
                    needed_by: format!(
                        "the update step of error-controlled coupling (output `{}` depends \
                         directly on an input and must be re-evaluated at T_(N+1))",
                        g.output_name(o)
                    ),
                });
            }
        }
        let inputs: Vec<usize> = (0..n)
            .filter(|&m| dynamic[m])
            .flat_map(|m| g.input_range(m))
            .collect();
        let widest = (0..n).map(|m| g.input_range(m).len()).max().unwrap_or(0);
        let n_c = inputs.len();
        Ok(CouplingVariables {
            inputs,
            dynamic,
            feedthrough,
            sources: (0..g.n_inputs()).map(|i| g.source_of_input(i)).collect(),
            history: coupling_history(n_c),
            tangent_point: false,
            first: vec![0.0; n_c],
            updated: vec![0.0; n_c],
            all_inputs: vec![0.0; g.n_inputs()],
            x: Vec::new(),
            y: Vec::new(),
            work: InputWork {
                values: vec![0.0; widest],
                derivatives: vec![0.0; widest * MAX_POLYNOMIAL_DEGREE],
                vrs: Vec::with_capacity(widest * MAX_POLYNOMIAL_DEGREE),
                orders: Vec::with_capacity(widest * MAX_POLYNOMIAL_DEGREE),
                applied: vec![0.0; g.n_inputs()],
                polynomial: NewtonPolynomial::new(n_c),
            },
        })
    }

    /// Number of coupling variables `n_c`.
    pub fn len(&self) -> usize {
        self.inputs.len()
    }

    /// True when no dynamic module has an input.
    pub fn is_empty(&self) -> bool {
        self.inputs.is_empty()
    }

    /// Whether module `m` is integrated over the macro-step (not a coupling element).
    pub fn is_dynamic(&self, m: usize) -> bool {
        self.dynamic[m]
    }

    /// Whether each module is dynamic (integrated over the macro-step).
    pub fn dynamic(&self) -> &[bool] {
        &self.dynamic
    }

    /// Stacked input index of each coupling variable.
    pub fn input_indices(&self) -> &[usize] {
        &self.inputs
    }

    /// The accepted consistent values, newest first.
    pub fn history(&self) -> &OutputHistory {
        &self.history
    }

    /// The history that remains after the next commit, before its point joins: without
    /// the tangent start's point before `T_0`.
    pub fn kept_history(&self) -> Newest<'_, OutputHistory> {
        let len = self.history.len() - usize::from(self.tangent_point);
        Newest::new(&self.history, len)
    }

    /// The consistent `u_{N+1}` of the last update step.
    pub fn updated(&self) -> &[f64] {
        &self.updated
    }

    /// Starts the history: the coupling variables of exact past output samples (each input
    /// takes its source output), then the consistent values at the start (the initialised
    /// system's outputs are consistent: initialisation propagates in feedthrough order).
    pub fn start(&mut self, sys: &CoupledSystem, start: &RunStart<'_>) -> Result<(), MasterError> {
        self.history.clear();
        self.tangent_point = false;
        let g = sys.graph();
        let mut previous = f64::NEG_INFINITY;
        for (j, (t, y)) in start.history.iter().enumerate() {
            let ok = y.len() == g.n_outputs()
                && t.is_finite()
                && *t > previous
                && *t < start.t_start
                && y.iter().all(|v| v.is_finite());
            if !ok {
                return Err(MasterError::InvalidSettings(format!(
                    "start-up history sample {j} (t = {t} s): finite outputs at increasing \
                     times before the start are needed"
                )));
            }
            previous = *t;
            self.gather(y);
            self.history.push(*t, &self.updated);
        }
        self.gather(sys.outputs());
        self.history.push(start.t_start, &self.updated);
        Ok(())
    }

    /// `updated[c]` = the output feeding coupling variable `c`.
    fn gather(&mut self, outputs: &[f64]) {
        for (c, &i) in self.inputs.iter().enumerate() {
            self.updated[c] = outputs[self.sources[i]];
        }
    }

    /// Sets every dynamic module's inputs over `[t, t + h]` to the degree-`degree`
    /// extrapolation through the newest `degree + 1` accepted points (`p^ext`, ExLocal's
    /// `p̂^ext`); see [`Self::apply_polynomial`].
    pub fn apply_extrapolation(
        &mut self,
        sys: &mut CoupledSystem,
        degree: usize,
        t: f64,
    ) -> Result<(), MasterError> {
        self.work
            .apply(sys, &self.dynamic, &self.history, degree, t)
    }

    /// The degree-`degree` interpolation through `(t_new, u_new)` and the newest `degree`
    /// accepted points (ExMilne's comparative run; the implicit corrector's `p*`).
    pub fn apply_interpolation(
        &mut self,
        sys: &mut CoupledSystem,
        t_new: f64,
        u_new: &[f64],
        degree: usize,
        t: f64,
    ) -> Result<(), MasterError> {
        let view = WithNewest::new(t_new, u_new, &self.history);
        self.work.apply(sys, &self.dynamic, &view, degree, t)
    }

    /// [`Self::apply_interpolation`] through the consistent values of the last update step.
    pub fn apply_through_updated(
        &mut self,
        sys: &mut CoupledSystem,
        t_new: f64,
        degree: usize,
        t: f64,
    ) -> Result<(), MasterError> {
        let view = WithNewest::new(t_new, &self.updated, &self.history);
        self.work.apply(sys, &self.dynamic, &view, degree, t)
    }

    /// Sets every dynamic module's inputs over `[t, t + h]` to the degree-`degree` Lagrange
    /// polynomial through the newest `degree + 1` points of `samples` (coupling variables in
    /// stacking order), in Taylor form at `t`, and records the values at `t` as the inputs
    /// applied. `samples` must hold `degree + 1` points.
    pub fn apply_polynomial<S: Samples + ?Sized>(
        &mut self,
        sys: &mut CoupledSystem,
        samples: &S,
        degree: usize,
        t: f64,
    ) -> Result<(), MasterError> {
        self.work.apply(sys, &self.dynamic, samples, degree, t)
    }

    /// The update step at `t_end = T_{N+1}` after the dynamic modules stepped and their
    /// outputs were read: re-evaluates every output with direct feedthrough with
    /// `g(t_end, x, u)` in feedthrough order, exchanges the consistent outputs and keeps
    /// the consistent coupling variables ([`Self::updated`]).
    pub fn update(&mut self, sys: &mut CoupledSystem, t_end: f64) -> Result<(), MasterError> {
        let mut outputs = sys.outputs().to_vec();
        for p in 0..sys.graph().propagation_order().len() {
            match sys.graph().propagation_order()[p] {
                Port::Input(i) => self.all_inputs[i] = outputs[self.sources[i]],
                Port::Output(o) if self.feedthrough[o] => {
                    let m = sys.graph().output_module(o);
                    let (ins, outs) = (sys.graph().input_range(m), sys.graph().output_range(m));
                    let sub = sys.subsystem_mut(m);
                    let n = sub.equation_state_count();
                    let n = n.map_err(|e| sys.module_error(m, t_end, e))?;
                    self.x.resize(n, 0.0);
                    self.y.resize(outs.len(), 0.0);
                    let sub = sys.subsystem_mut(m);
                    let r = sub.equation_states(&mut self.x).and_then(|_| {
                        sub.equation_outputs(t_end, &self.x, &self.all_inputs[ins], &mut self.y)
                    });
                    r.map_err(|e| sys.module_error(m, t_end, e))?;
                    let value = self.y[o - outs.start];
                    if !value.is_finite() {
                        return Err(MasterError::Diverged {
                            t: t_end,
                            signal: sys.graph().output_name(o).into(),
                        });
                    }
                    outputs[o] = value;
                }
                Port::Output(_) => {}
            }
        }
        sys.exchange_outputs(&outputs);
        self.gather(&outputs);
        Ok(())
    }

    /// The driver accepted the attempt ending at `t_end`: its consistent values join the
    /// history.
    pub fn commit(&mut self, t_end: f64) {
        if self.tangent_point {
            // The tangent point served the first step only: from here on every point used
            // is a consistent value the run computed.
            let t0 = self.history.time(0);
            self.first.copy_from_slice(self.history.sample(0));
            self.history.clear();
            self.history.push(t0, &self.first);
            self.tangent_point = false;
        }
        self.history.push(t_end, &self.updated);
    }

    /// The tangent start (docs/methods.md §14.10): puts the point `(T_0 − h, u_0 − h·u'_0)`
    /// before the only history point `(T_0, u_0)`, `u'_0` the initial derivative of the
    /// coupling variables ([`Self::initial_derivative`]), so the first step can use the
    /// degree-1 extrapolation, which is then the tangent `u_0 + (t − T_0)·u'_0` whatever
    /// `h`. The point is dropped at the first commit. `false` (nothing changed) when the
    /// history holds past samples or a module does not expose its equations.
    pub fn start_on_tangent(
        &mut self,
        sys: &mut CoupledSystem,
        h: f64,
    ) -> Result<bool, MasterError> {
        if self.history.len() != 1 || !(h.is_finite() && h > 0.0) {
            return Ok(false);
        }
        let t0 = self.history.time(0);
        let Some(du) = self.initial_derivative(sys, t0)? else {
            return Ok(false);
        };
        self.first.copy_from_slice(self.history.sample(0));
        let before: Vec<f64> = self.first.iter().zip(&du).map(|(u, d)| u - h * d).collect();
        self.history.clear();
        self.history.push(t0 - h, &before);
        self.history.push(t0, &self.first);
        self.tangent_point = true;
        Ok(true)
    }

    /// `du/dt` of every coupling variable at `t` (the initialised system), or `None` when a
    /// module does not expose its equations. In feedthrough order, each output's derivative
    /// is the central difference of its equation `g(t, x, u)` along `(1, f(t, x, u), u')`,
    /// with the step `1e-6 / max(1, |f|, |u'|)` s (rounding and truncation both far below
    /// the `O(H)` the first step's extrapolation error allows).
    pub fn initial_derivative(
        &mut self,
        sys: &mut CoupledSystem,
        t: f64,
    ) -> Result<Option<Vec<f64>>, MasterError> {
        let n = sys.n_modules();
        let exposes = |m: usize| {
            sys.subsystem(m)
                .description()
                .capabilities
                .x_exposes_equations
        };
        if !(0..n).all(exposes) {
            return Ok(None);
        }
        let outputs = sys.outputs().to_vec();
        let order = sys.graph().propagation_order().to_vec();
        let inputs: Vec<f64> = self.sources.iter().map(|&o| outputs[o]).collect();
        let mut d_out = vec![0.0; outputs.len()];
        let mut d_in = vec![0.0; inputs.len()];
        let (mut dx, mut xs, mut us, mut yp, mut ym) = (vec![], vec![], vec![], vec![], vec![]);
        for port in order {
            let o = match port {
                Port::Input(i) => {
                    d_in[i] = d_out[self.sources[i]];
                    continue;
                }
                Port::Output(o) => o,
            };
            let g = sys.graph();
            let m = g.output_module(o);
            let (ins, outs) = (g.input_range(m), g.output_range(m));
            let sub = sys.subsystem_mut(m);
            let r = sub.equation_state_count().and_then(|nx| {
                self.x.resize(nx, 0.0);
                dx.resize(nx, 0.0);
                sub.equation_states(&mut self.x)?;
                if nx > 0 {
                    sub.equation_rhs(t, &self.x, &inputs[ins.clone()], &mut dx)?;
                }
                let du = &d_in[ins.clone()];
                let scale = dx
                    .iter()
                    .chain(du)
                    .fold(1.0f64, |a, v| a.max(libm::fabs(*v)));
                let delta = 1e-6 / scale;
                yp.resize(outs.len(), 0.0);
                ym.resize(outs.len(), 0.0);
                for (sign, y) in [(1.0, &mut yp), (-1.0, &mut ym)] {
                    let s = sign * delta;
                    xs.clear();
                    xs.extend(self.x.iter().zip(&dx).map(|(x, d)| x + s * d));
                    us.clear();
                    us.extend(inputs[ins.clone()].iter().zip(du).map(|(u, d)| u + s * d));
                    sub.equation_outputs(t + s, &xs, &us, y)?;
                }
                Ok((yp[o - outs.start] - ym[o - outs.start]) / (2.0 * delta))
            });
            d_out[o] = r.map_err(|e| sys.module_error(m, t, e))?;
        }
        Ok(Some(
            self.inputs
                .iter()
                .map(|&i| d_out[self.sources[i]])
                .collect(),
        ))
    }
}

impl InputWork {
    fn apply<S: Samples + ?Sized>(
        &mut self,
        sys: &mut CoupledSystem,
        dynamic: &[bool],
        samples: &S,
        degree: usize,
        t: f64,
    ) -> Result<(), MasterError> {
        debug_assert!(degree <= MAX_POLYNOMIAL_DEGREE && degree < samples.len());
        self.polynomial.fit(samples, degree);
        let mut c = 0;
        self.applied.copy_from_slice(sys.inputs());
        for (m, &is_dynamic) in dynamic.iter().enumerate() {
            let range = sys.graph().input_range(m);
            if !is_dynamic || range.is_empty() {
                continue;
            }
            let len = range.len();
            self.vrs.clear();
            self.orders.clear();
            for (local, i) in range.clone().enumerate() {
                let mut taylor = [0.0; MAX_POINTS];
                self.polynomial.derivatives(c, t, &mut taylor);
                self.values[local] = taylor[0];
                self.applied[i] = taylor[0];
                for (k, d) in taylor.iter().enumerate().take(degree + 1).skip(1) {
                    self.derivatives[(k - 1) * len + local] = *d;
                }
                c += 1;
            }
            for k in 1..=degree {
                for &vr in sys.graph().input_value_refs(m) {
                    self.vrs.push(vr);
                    self.orders.push(k as u32);
                }
            }
            sys.set_inputs(m, t, &self.values[..len])?;
            if degree > 0 {
                let d = &self.derivatives[..degree * len];
                sys.set_input_derivatives(m, t, &self.vrs, &self.orders, d)?;
            }
        }
        sys.record_inputs(&self.applied);
        Ok(())
    }
}
