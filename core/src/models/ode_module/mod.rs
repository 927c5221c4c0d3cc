//! [`OdeModule`]: a general ODE module `x' = f(t, x, u), y = g(t, x, u)` over an
//! [`OdeModel`], integrated across each communication step by [`Rk4`](crate::solvers::Rk4)
//! or [`Dopri45`](crate::solvers::Dopri45) with the polynomial input
//! `ũ(t + s) = Σ_k u^(k) s^k / k!` evaluated at the integrator's internal times.
//!
//! Directional derivatives and the first output derivative are central finite differences
//! (step [`FD_REL_STEP`] relative to the point), exact up to rounding for linear models.

use super::builtin::{output_index, seed_direction, BuiltinModule, Stepper};
use super::instance::Instance;
use super::layout::{describe, PortSpec, Signature, VarKind};
use super::parameters::ParameterSet;
use crate::module::{
    DependencyKind, Derivatives, DirectionalDerivatives, JacobianProduct, ModuleDescription,
    ModuleError, OutputDerivatives,
};
use crate::solvers::{BandMatrix, Integrator, OdeSystem, TaylorInput, FD_REL_STEP};
use alloc::vec;
use alloc::vec::Vec;
use nalgebra::DVector;

#[cfg(test)]
mod tests;

/// The equations of an ODE module over its parameters and state start values, which are
/// a [`ParameterSet`] (name, ports, checked setting); `Send`, as every
/// [`crate::module::Module`] is.
pub trait OdeModel: ParameterSet + Send {
    /// Inputs with start values.
    fn inputs(&self) -> Vec<PortSpec>;
    /// Outputs (`start` unused).
    fn outputs(&self) -> Vec<PortSpec>;
    /// Direct feedthrough `(output, input, kind)`: `g` depends on `u` directly.
    fn feedthrough(&self) -> Vec<(usize, usize, DependencyKind)>;
    /// `dx = f(t, x, u)`.
    fn rhs(&self, t: f64, x: &[f64], u: &[f64], dx: &mut [f64]);
    /// `y = g(t, x, u)`.
    fn output(&self, t: f64, x: &[f64], u: &[f64], y: &mut [f64]);
    /// Whether the output `E` (unit `J`) is the energy the module stores: the module then
    /// declares `x-reportsEnergy` (docs/methods.md §13).
    fn reports_energy(&self) -> bool {
        false
    }

    /// `(kl, ku)` when the model writes `∂f/∂x` analytically in a band
    /// ([`OdeModel::banded_jacobian`]); `None` (default): stiff solvers use dense finite
    /// differences.
    fn band(&self) -> Option<(usize, usize)> {
        None
    }
    /// `∂f/∂x` at `(t, x, u)` into `jac` (zeroed, bandwidths from [`OdeModel::band`]).
    fn banded_jacobian(&self, _t: f64, _x: &[f64], _u: &[f64], _jac: &mut BandMatrix) {}
}

/// An [`OdeModel`] driven by the polynomial input of the current step.
struct Driven<'a, M: OdeModel> {
    model: &'a M,
    n: usize,
    u: &'a TaylorInput,
    t0: f64,
    u_buf: &'a mut [f64],
}

impl<M: OdeModel> OdeSystem for Driven<'_, M> {
    fn dim(&self) -> usize {
        self.n
    }
    fn rhs(&mut self, t: f64, x: &[f64], dx: &mut [f64]) {
        self.u.eval_into(t - self.t0, self.u_buf);
        self.model.rhs(t, x, self.u_buf, dx);
    }
    fn band(&self) -> Option<(usize, usize)> {
        self.model.band()
    }
    fn banded_jacobian(&mut self, t: f64, x: &[f64], jac: &mut BandMatrix) {
        self.u.eval_into(t - self.t0, self.u_buf);
        self.model.banded_jacobian(t, x, self.u_buf, jac);
    }
}

/// Finite-difference work vectors.
#[derive(Clone, Debug)]
struct FdBuffers {
    x: Vec<f64>,
    u: Vec<f64>,
    f_plus: Vec<f64>,
    f_minus: Vec<f64>,
    y_plus: Vec<f64>,
    y_minus: Vec<f64>,
}

/// A general ODE module.
#[derive(Clone, Debug)]
pub struct OdeModule<M: OdeModel> {
    model: M,
    stepper: Stepper,
    desc: ModuleDescription,
    inst: Instance,
    fd: FdBuffers,
    nx: usize,
    /// Parameter values at construction (restored by `reset`).
    params_start: Vec<f64>,
}

impl<M: OdeModel> OdeModule<M> {
    /// Wraps `model` with the integrator.
    pub fn new(model: M, integrator: Integrator) -> Result<Self, ModuleError> {
        let (params, states) = model.ports();
        let inputs = model.inputs();
        let outputs = model.outputs();
        let feedthrough = model.feedthrough();
        let sig = Signature {
            model_name: M::MODEL_ID,
            parameters: &params,
            states: &states,
            inputs: &inputs,
            outputs: &outputs,
            feedthrough: &feedthrough,
            max_output_derivative_order: 1,
            linear_time_invariant: false,
        };
        let (mut desc, layout) = describe(&sig)?;
        if model.reports_energy() {
            let energy = outputs.iter().any(|o| o.name == "E" && o.unit == "J");
            if !energy {
                return Err(ModuleError::invalid(alloc::format!(
                    "{}: x-reportsEnergy needs an output `E` in J",
                    M::MODEL_ID
                )));
            }
            desc.capabilities.x_reports_energy = true;
        }
        let (nx, nu, ny) = (layout.nx, layout.nu, layout.ny);
        if let Integrator::Bdf(bdf) = &integrator {
            // Per-state tolerances must match the states (before any step finds out).
            bdf.check(nx).map_err(|e| {
                ModuleError::invalid(alloc::format!("{}: {e} ({nx} states)", M::MODEL_ID))
            })?;
        }
        let x0 = DVector::from_iterator(nx, states.iter().map(|s| s.start));
        let u0 = inputs.iter().map(|s| s.start).collect();
        let params_start = params.iter().map(|p| p.start).collect();
        let fd = FdBuffers {
            x: vec![0.0; nx],
            u: vec![0.0; nu],
            f_plus: vec![0.0; nx],
            f_minus: vec![0.0; nx],
            y_plus: vec![0.0; ny],
            y_minus: vec![0.0; ny],
        };
        Ok(OdeModule {
            model,
            stepper: Stepper::new(integrator, nx),
            desc,
            inst: Instance::new(layout, x0, u0),
            fd,
            nx,
            params_start,
        })
    }

    /// The model.
    pub fn model(&self) -> &M {
        &self.model
    }

    /// The integrator.
    pub fn integrator(&self) -> &Integrator {
        &self.stepper.integrator
    }

    /// Current states.
    pub fn state(&self) -> &[f64] {
        self.inst.x.as_slice()
    }

    /// Evaluates `f` and `g` at `(t, x + e·dx, u + e·du)` into the `plus` (or `minus`) buffers.
    fn eval_shifted(&mut self, t: f64, e: f64, dx: &[f64], du: &[f64], plus: bool) {
        let u0 = self.inst.u.coeffs().column(0);
        for ((xs, x), d) in self.fd.x.iter_mut().zip(self.inst.x.iter()).zip(dx) {
            *xs = x + e * d;
        }
        for ((us, u), d) in self.fd.u.iter_mut().zip(u0.iter()).zip(du) {
            *us = u + e * d;
        }
        let (f, y) = if plus {
            (&mut self.fd.f_plus, &mut self.fd.y_plus)
        } else {
            (&mut self.fd.f_minus, &mut self.fd.y_minus)
        };
        self.model.rhs(t, &self.fd.x, &self.fd.u, f);
        self.model.output(t, &self.fd.x, &self.fd.u, y);
    }

    /// Step `e` for a central difference along `(dx, du)` at the current point:
    /// `e·max|d| = FD_REL_STEP · max(1, |z_j| over the seeded components j)`, so the
    /// perturbation is relative to the values actually moved (not to unrelated large ones).
    fn fd_step(&self, dx: &[f64], du: &[f64]) -> Option<f64> {
        let dir = dx
            .iter()
            .chain(du)
            .fold(0.0f64, |m, v| m.max(libm::fabs(*v)));
        if dir == 0.0 {
            return None;
        }
        let u0 = self.inst.u.coeffs().column(0);
        let values = self.inst.x.iter().chain(u0.iter());
        let scale = values
            .zip(dx.iter().chain(du))
            .filter(|(_, d)| **d != 0.0)
            .fold(1.0f64, |m, (v, _)| m.max(libm::fabs(*v)));
        Some(FD_REL_STEP * scale / dir)
    }
}

impl<M: OdeModel> BuiltinModule for OdeModule<M> {
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
        self.model.parameter(index)
    }

    fn set_parameter(&mut self, index: usize, value: f64) -> Result<(), ModuleError> {
        self.model.set_parameter(index, value)?;
        // Parameters change the model; forget the adaptive step.
        self.stepper.ws.step_hint = 0.0;
        Ok(())
    }

    fn reset_parameters(&mut self) -> Result<(), ModuleError> {
        for (i, p) in self.params_start.iter().enumerate() {
            self.model.set_parameter(i, *p)?;
        }
        self.stepper.ws.step_hint = 0.0;
        Ok(())
    }

    fn restore_parameters(&mut self, params: &[f64], step_hint: f64) -> Result<(), ModuleError> {
        for (i, p) in params.iter().enumerate() {
            if self.model.parameter(i) != *p {
                self.model.set_parameter(i, *p)?;
            }
        }
        self.stepper.ws.step_hint = step_hint;
        Ok(())
    }

    fn step_hint(&self) -> f64 {
        self.stepper.ws.step_hint
    }

    fn stiff(&self) -> bool {
        matches!(self.stepper.integrator, Integrator::Bdf(_))
    }

    /// `f` and `g` at the current point into the `plus` buffers.
    fn evaluate(&mut self) {
        let t = self.inst.t;
        self.inst.u.eval_into(0.0, &mut self.fd.u);
        self.model
            .rhs(t, self.inst.x.as_slice(), &self.fd.u, &mut self.fd.f_plus);
        self.model
            .output(t, self.inst.x.as_slice(), &self.fd.u, &mut self.fd.y_plus);
    }

    fn derivative(&self, index: usize) -> f64 {
        self.fd.f_plus[index]
    }

    fn output(&self, index: usize) -> f64 {
        self.fd.y_plus[index]
    }

    fn step(&mut self, t: f64, h: f64) -> Result<(), ModuleError> {
        let mut system = Driven {
            model: &self.model,
            n: self.nx,
            u: &self.inst.u,
            t0: t,
            u_buf: &mut self.inst.u_scratch,
        };
        let name = &self.desc.model_name;
        self.stepper.step(&mut system, &mut self.inst.x, t, h, name)
    }

    fn rhs_at(&mut self, t: f64, x: &[f64], u: &[f64], dx: &mut [f64]) {
        self.model.rhs(t, x, u, dx);
    }

    fn outputs_at(&mut self, t: f64, x: &[f64], u: &[f64], y: &mut [f64]) {
        self.model.output(t, x, u, y);
    }
}

impl<M: OdeModel> DirectionalDerivatives for OdeModule<M> {
    /// Central difference of `f` and `g` along the seeded direction in `(x, u)`.
    fn directional_derivative(&mut self, p: JacobianProduct<'_>) -> Result<(), ModuleError> {
        let layout = self.inst.layout;
        let (dx, du) = seed_direction(&layout, &p)?;
        let Some(e) = self.fd_step(&dx, &du) else {
            p.sensitivity.fill(0.0);
            return Ok(());
        };
        let t = self.inst.t;
        self.eval_shifted(t, e, &dx, &du, true);
        self.eval_shifted(t, -e, &dx, &du, false);
        for (u, s) in p.unknowns.iter().zip(p.sensitivity.iter_mut()) {
            *s = match layout.classify(*u)? {
                VarKind::Derivative(i) => (self.fd.f_plus[i] - self.fd.f_minus[i]) / (2.0 * e),
                VarKind::Output(i) => (self.fd.y_plus[i] - self.fd.y_minus[i]) / (2.0 * e),
                _ => 0.0,
            };
        }
        Ok(())
    }
}

impl<M: OdeModel> OutputDerivatives for OdeModule<M> {
    /// Order 1 only: central difference of `g` along `(1, f, u')` in `(t, x, u)`.
    fn get_output_derivatives(
        &mut self,
        mut d: Derivatives<'_, &mut [f64]>,
    ) -> Result<(), ModuleError> {
        if d.orders.iter().any(|&k| k != 1) {
            return Err(ModuleError::invalid(
                "only output derivative order 1 is provided",
            ));
        }
        let t = self.inst.t;
        let mut du = vec![0.0; self.inst.layout.nu];
        self.inst.u.eval_derivative_into(1, 0.0, &mut du);
        self.inst.u.eval_into(0.0, &mut self.fd.u);
        let mut dx = vec![0.0; self.nx];
        self.model
            .rhs(t, self.inst.x.as_slice(), &self.fd.u, &mut dx);
        // Direction (1, f, u') in (t, x, u): the time component is 1, its scale |t|.
        let dir = dx
            .iter()
            .chain(&du)
            .fold(1.0f64, |m, v| m.max(libm::fabs(*v)));
        let u0 = self.inst.u.coeffs().column(0);
        let scale = self
            .inst
            .x
            .iter()
            .chain(u0.iter())
            .fold(libm::fabs(t).max(1.0), |m, v| m.max(libm::fabs(*v)));
        let e = FD_REL_STEP * scale / dir;
        self.eval_shifted(t + e, e, &dx, &du, true);
        self.eval_shifted(t - e, -e, &dx, &du, false);
        let layout = self.inst.layout;
        for (vr, _, out) in d.iter_mut() {
            let i = output_index(&layout, vr)?;
            *out = (self.fd.y_plus[i] - self.fd.y_minus[i]) / (2.0 * e);
        }
        Ok(())
    }
}
