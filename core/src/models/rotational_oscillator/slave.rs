//! [`RotationalSlave`]: one slave of the rotational oscillator as a built-in module, stepped
//! by [`Method::Exact`] or [`Method::Euler`], with output derivatives up to order 2, input
//! derivatives up to order 2 and the midpoint output sample (docs/methods.md §15,
//! rotational two-mass example).
//!
//! What the master reads after a step `[t_k, t_{k+1}]` (the convention of pitfall P1: the
//! derivatives are samples of the *step just taken*, not FMI's "derivative at the current
//! time" of a fresh evaluation):
//! - `y = C x_{k+1} + D ũ(t_{k+1})`;
//! - `y^(j) = C x^(j) + D ũ^(j)(t_{k+1})` for `j = 1, 2`, with `ũ` the step's input
//!   polynomial shifted to `t_{k+1}` and `x^(j)` the state-derivative samples of the step
//!   (Euler: `x′ := f(x_k, ũ(t_k))`, `x″ := 0`; exact: `x^(i) = A x^(i−1) + B ũ^(i−1)(t_{k+1})`);
//! - the midpoint sample `C x(t_k + h/2) + D ũ(t_k + h/2)`.
//!
//! An input set after the step replaces the shifted polynomial in the `D` terms (it is
//! the input at the current point). Before the first step, after `fmi3Reset` and after
//! `fmi3SetFMUState` the state derivatives are the model's, `x^(i) = A x^(i−1) + B u^(i−1)`
//! with the inputs set, and there is no midpoint sample.

use super::stepping::{self, Method, StepResult};
use crate::models::builtin::{output_index, BuiltinModule};
use crate::models::instance::Instance;
use crate::models::linear_state_space::{
    linear_directional_derivative, Matrices, MatricesOf, StagedParameters,
};
use crate::module::{
    Derivatives, DirectionalDerivatives, JacobianProduct, MidpointOutputs, ModuleDescription,
    ModuleError, OutputDerivatives, ValueRef,
};
use crate::solvers::Discretization;
use alloc::format;
use alloc::vec::Vec;
use nalgebra::{DMatrix, DVector};

/// Highest output and input derivative order the slaves declare.
pub const MAX_DERIVATIVE_ORDER: u32 = 2;

/// Highest input order the exact integration uses (the declared one).
const INPUT_ORDER: usize = MAX_DERIVATIVE_ORDER as usize;

/// A rotational slave: `x′ = A x + B u`, `y = C x + D u`, stepped by `method`.
#[derive(Clone, Debug)]
pub struct RotationalSlave {
    pub(super) method: Method,
    pub(super) a: DMatrix<f64>,
    pub(super) b: DMatrix<f64>,
    pub(super) c: DMatrix<f64>,
    pub(super) d: DMatrix<f64>,
    pub(super) params: Vec<f64>,
    pub(super) start_params: Vec<f64>,
    pub(super) matrices_of: MatricesOf,
    pub(super) staged_params: StagedParameters,
    pub(super) desc: ModuleDescription,
    pub(super) inst: Instance,
    /// The exact method's discretisation over `h/2`, kept while `h` repeats.
    pub(super) half: Option<Discretization>,
    /// What the last step left behind; `None` before the first step.
    pub(super) last: Option<StepResult>,
    /// Per input: set since the last step (then its current value is the instance's).
    pub(super) set_since_step: Vec<bool>,
}

impl RotationalSlave {
    /// Which integrator the slave uses.
    pub fn method(&self) -> Method {
        self.method
    }

    /// `(A, B, C, D)`.
    pub fn matrices(&self) -> (&DMatrix<f64>, &DMatrix<f64>, &DMatrix<f64>, &DMatrix<f64>) {
        (&self.a, &self.b, &self.c, &self.d)
    }

    /// Current states.
    pub fn state(&self) -> &DVector<f64> {
        &self.inst.x
    }

    /// `ũ_i^(k)` at the current point: the last step's polynomial shifted to its end, or
    /// what was set since (and before the first step).
    fn input(&self, i: usize, k: usize) -> f64 {
        match &self.last {
            Some(s) if !self.set_since_step[i] => s.u_end[(i, k)],
            _ => self.inst.u.get(i, k),
        }
    }

    /// `x^(k)` for `k = 1, 2` at the current point.
    fn state_derivative(&self, k: usize) -> DVector<f64> {
        match &self.last {
            Some(s) => s.x_derivatives[k - 1].clone(),
            None => {
                stepping::model_derivatives(&self.a, &self.b, &self.inst.x, self.inst.u.coeffs())
                    [k - 1]
                    .clone()
            }
        }
    }

    /// `C x + D u` for output `o`, with input coefficient `k` of [`Self::input`].
    fn output_with(&self, o: usize, x: &DVector<f64>, k: usize) -> f64 {
        let cx: f64 = self.c.row(o).iter().zip(x.iter()).map(|(c, x)| c * x).sum();
        let du: f64 = (0..self.d.ncols())
            .map(|i| self.d[(o, i)] * self.input(i, k))
            .sum();
        cx + du
    }

    /// Forgets what the last step left behind (after a reset or a restored state).
    fn forget_step(&mut self) {
        self.last = None;
        self.set_since_step.fill(false);
    }

    /// Matrices for `params`.
    fn rebuild(&mut self, params: Vec<f64>) -> Result<(), ModuleError> {
        let (a, b, c, d): Matrices = (self.matrices_of)(&params)?;
        (self.a, self.b, self.c, self.d) = (a, b, c, d);
        self.params = params;
        self.half = None;
        Ok(())
    }
}

impl BuiltinModule for RotationalSlave {
    fn module_description(&self) -> &ModuleDescription {
        &self.desc
    }

    fn instance(&self) -> &Instance {
        &self.inst
    }

    fn instance_mut(&mut self) -> &mut Instance {
        &mut self.inst
    }

    fn parameter(&self, index: usize) -> f64 {
        self.params[index]
    }

    /// Collected, so that `finish_set` rebuilds the matrices once per `set_float64` call.
    fn set_parameter(&mut self, index: usize, value: f64) -> Result<(), ModuleError> {
        self.staged_params.set(&self.params, index, value);
        Ok(())
    }

    fn finish_set(&mut self, values_set: Result<(), ModuleError>) -> Result<(), ModuleError> {
        match self.staged_params.finish(values_set)? {
            Some(p) => self.rebuild(p),
            None => Ok(()),
        }
    }

    fn reset_parameters(&mut self) -> Result<(), ModuleError> {
        self.forget_step();
        if self.params != self.start_params {
            self.rebuild(self.start_params.clone())?;
        }
        Ok(())
    }

    fn restore_parameters(&mut self, params: &[f64], _step_hint: f64) -> Result<(), ModuleError> {
        self.forget_step();
        if params == self.params.as_slice() {
            return Ok(());
        }
        self.rebuild(params.to_vec())
    }

    fn derivative(&self, index: usize) -> f64 {
        let x: f64 = (0..self.a.ncols())
            .map(|j| self.a[(index, j)] * self.inst.x[j])
            .sum();
        let u: f64 = (0..self.b.ncols())
            .map(|i| self.b[(index, i)] * self.input(i, 0))
            .sum();
        x + u
    }

    fn output(&self, index: usize) -> f64 {
        self.output_with(index, &self.inst.x, 0)
    }

    fn step(&mut self, t: f64, h: f64) -> Result<(), ModuleError> {
        let result = match self.method {
            Method::Euler => stepping::euler(&self.a, &self.b, &self.inst.x, &self.inst.u, h),
            Method::Exact => {
                if self.half.as_ref().is_none_or(|d| d.h != h / 2.0) {
                    let d =
                        stepping::half_step(&self.a, &self.b, h, INPUT_ORDER).ok_or_else(|| {
                            ModuleError::numerical(format!(
                                "matrix exponential failed for h = {h} s"
                            ))
                        })?;
                    self.half = Some(d);
                }
                let half = self
                    .half
                    .as_ref()
                    .ok_or_else(|| ModuleError::numerical("no discretisation"))?;
                stepping::exact(&self.a, &self.b, half, &self.inst.x, &self.inst.u, h)
            }
        };
        if result.x_end.iter().any(|v| !v.is_finite()) {
            return Err(ModuleError::numerical(format!(
                "{}: state became non-finite at t = {} s",
                self.desc.model_name,
                t + h
            )));
        }
        self.inst.x.copy_from(&result.x_end);
        self.last = Some(result);
        self.set_since_step.fill(false);
        Ok(())
    }

    fn rhs_at(&mut self, _t: f64, x: &[f64], u: &[f64], dx: &mut [f64]) {
        let (x, u) = (DVector::from_row_slice(x), DVector::from_row_slice(u));
        dx.copy_from_slice((&self.a * x + &self.b * u).as_slice());
    }

    fn outputs_at(&mut self, _t: f64, x: &[f64], u: &[f64], y: &mut [f64]) {
        let (x, u) = (DVector::from_row_slice(x), DVector::from_row_slice(u));
        y.copy_from_slice((&self.c * x + &self.d * u).as_slice());
    }

    fn input_set(&mut self, index: usize) {
        if let Some(flag) = self.set_since_step.get_mut(index) {
            *flag = true;
        }
    }

    fn midpoint_samples(&mut self) -> Option<&mut dyn MidpointOutputs> {
        Some(self)
    }
}

impl MidpointOutputs for RotationalSlave {
    /// `C x(t_k + h/2) + D ũ(t_k + h/2)` of the last step.
    fn get_midpoint_outputs(
        &mut self,
        vrs: &[ValueRef],
        values: &mut [f64],
    ) -> Result<(), ModuleError> {
        let s = self.last.as_ref().ok_or_else(|| {
            ModuleError::invalid("no midpoint output: no step completed since the start, a reset or a restored state")
        })?;
        for (vr, out) in vrs.iter().zip(values.iter_mut()) {
            let o = output_index(&self.inst.layout, *vr)?;
            let cx: f64 = self
                .c
                .row(o)
                .iter()
                .zip(s.x_mid.iter())
                .map(|(c, x)| c * x)
                .sum();
            let du: f64 = (0..self.d.ncols())
                .map(|i| self.d[(o, i)] * s.u_mid[(i, 0)])
                .sum();
            *out = cx + du;
        }
        Ok(())
    }
}

impl OutputDerivatives for RotationalSlave {
    /// `y^(k) = C x^(k) + D ũ^(k)` at the current point (see the module docs).
    fn get_output_derivatives(
        &mut self,
        mut d: Derivatives<'_, &mut [f64]>,
    ) -> Result<(), ModuleError> {
        for (vr, k, out) in d.iter_mut() {
            if k == 0 || k > MAX_DERIVATIVE_ORDER {
                return Err(ModuleError::invalid(format!(
                    "output derivative order {k} not in 1..={MAX_DERIVATIVE_ORDER}"
                )));
            }
            let o = output_index(&self.inst.layout, vr)?;
            let xk = self.state_derivative(k as usize);
            *out = self.output_with(o, &xk, k as usize);
        }
        Ok(())
    }
}

impl DirectionalDerivatives for RotationalSlave {
    /// Exact: `∂der(x)/∂x = A`, `∂der(x)/∂u = B`, `∂y/∂x = C`, `∂y/∂u = D`.
    fn directional_derivative(&mut self, p: JacobianProduct<'_>) -> Result<(), ModuleError> {
        linear_directional_derivative(&self.inst.layout, self.matrices(), p)
    }
}
