//! [`SteppedModule`]: an [`OdeModel`] that either takes exactly one step of its own method
//! per communication step ([`OwnStep`]: the symplectic Euler of the energy benchmarks,
//! docs/energy-benchmarks.md) or is integrated by RK4/Dopri45 like any [`OdeModule`]. Its
//! equations stay exposed either way, so the monolithic reference exists; a model with
//! an output `E` (unit J) declares `x-reportsEnergy`.
//!
//! The own step sees the inputs' values at the step start only (the seed's subsystems
//! integrate with the input they were given at `t_k`, `ũ = u_k`); input derivatives a
//! master sets are ignored by it.

use super::builtin::BuiltinModule;
use super::entry::ModelArgs;
use super::instance::Instance;
use super::ode_module::{OdeModel, OdeModule};
use super::solver_choice::{integrator_for, DEFAULT_ATOL, DEFAULT_RK4_STEP, DEFAULT_RTOL};
use crate::module::{
    Derivatives, DirectionalDerivatives, JacobianProduct, Module, ModuleDescription, ModuleError,
    OutputDerivatives,
};
use crate::solvers::{Integrator, OdeSystem, Rk4, SolverSpec, SymplecticEuler};
use alloc::boxed::Box;
use alloc::format;
use alloc::vec;
use alloc::vec::Vec;

#[cfg(test)]
mod tests;

/// Name and unit of the output a module reports its stored energy in (`x-reportsEnergy`).
pub const ENERGY_OUTPUT: (&str, &str) = ("E", "J");

/// A model with a one-step method of its own.
pub trait OwnStep: OdeModel {
    /// The solver name of the own method as a scenario writes it.
    const OWN_METHOD: OwnMethod;
    /// Advances `x` from `t` to `t + h` by one step, `u` held at its value at `t`.
    fn own_step(&self, t: f64, h: f64, x: &mut [f64], u: &[f64]);
}

/// Which one-step method a model calls its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OwnMethod {
    /// `symplectic_euler`: velocities first from the accelerations at the step start, then
    /// positions with the new velocities.
    SymplecticEuler,
    /// `euler`: forward Euler (first-order states, e.g. pressures).
    Euler,
}

impl OwnMethod {
    /// The scenario's name of the method.
    pub fn name(self) -> &'static str {
        match self {
            OwnMethod::SymplecticEuler => "symplectic_euler",
            OwnMethod::Euler => "euler",
        }
    }

    fn matches(self, solver: &SolverSpec) -> bool {
        match self {
            OwnMethod::SymplecticEuler => matches!(solver, SolverSpec::SymplecticEuler),
            OwnMethod::Euler => matches!(solver, SolverSpec::Euler),
        }
    }

    /// The solver spec naming this method.
    pub fn spec(self) -> SolverSpec {
        match self {
            OwnMethod::SymplecticEuler => SolverSpec::SymplecticEuler,
            OwnMethod::Euler => SolverSpec::Euler,
        }
    }
}

/// Symplectic Euler on states `[q (n), v (n)]` whose derivative is `[q̇, a]`: one step of
/// the solvers' [`SymplecticEuler`] (`v += h·a(t, q, v, u)`, then `q += h·q̇(t, q, v_new, u)`)
/// with `u` held at its value at `t`.
pub fn symplectic_euler<M: OdeModel>(model: &M, t: f64, h: f64, x: &mut [f64], u: &[f64]) {
    let (mut k1, mut k2) = (vec![0.0; x.len()], vec![0.0; x.len()]);
    let mut held = HeldInput {
        model,
        u,
        dim: x.len(),
    };
    SymplecticEuler {
        positions: x.len() / 2,
    }
    .step(&mut held, t, h, x, &mut k1, &mut k2);
}

/// A model as an ODE in its states alone, its input held at `u`.
struct HeldInput<'a, M> {
    model: &'a M,
    u: &'a [f64],
    dim: usize,
}

impl<M: OdeModel> OdeSystem for HeldInput<'_, M> {
    fn dim(&self) -> usize {
        self.dim
    }
    fn rhs(&mut self, t: f64, x: &[f64], dx: &mut [f64]) {
        self.model.rhs(t, x, self.u, dx);
    }
}

/// Forward Euler: `x += h·f(t, x, u)`.
pub fn forward_euler<M: OdeModel>(model: &M, t: f64, h: f64, x: &mut [f64], u: &[f64]) {
    let mut dx = vec![0.0; x.len()];
    model.rhs(t, x, u, &mut dx);
    for (x, d) in x.iter_mut().zip(&dx) {
        *x += h * d;
    }
}

/// Solvers of a model with an own method: its default (the own method), the own method,
/// and both integrators.
pub fn solvers_with(own: OwnMethod) -> Vec<SolverSpec> {
    vec![
        SolverSpec::Default,
        own.spec(),
        SolverSpec::Rk4 {
            step: DEFAULT_RK4_STEP,
        },
        SolverSpec::Dopri45 {
            rtol: DEFAULT_RTOL,
            atol: DEFAULT_ATOL,
        },
    ]
}

/// An [`OdeModule`] whose steps are the model's own method or an integrator's.
#[derive(Clone, Debug)]
pub struct SteppedModule<M: OwnStep> {
    inner: OdeModule<M>,
    /// The inner description, with `x-reportsEnergy` when the model has an energy output.
    desc: ModuleDescription,
    /// True: [`OwnStep::own_step`] once per communication step; false: the integrator.
    own: bool,
    x_work: Vec<f64>,
    u_work: Vec<f64>,
}

impl<M: OwnStep> SteppedModule<M> {
    /// Wraps `model`, stepped as `solver` says (`default` is the own method).
    pub fn new(model: M, solver: &SolverSpec) -> Result<Self, ModuleError> {
        let own_method = M::OWN_METHOD;
        let (own, integrator) = match solver {
            SolverSpec::Default => (true, None),
            s if own_method.matches(s) => (true, None),
            SolverSpec::Rk4 { .. } | SolverSpec::Dopri45 { .. } => (false, integrator_for(solver)?),
            _ => {
                return Err(ModuleError::invalid(format!(
                    "{} steps itself: its solver is `{}` (the default), `rk4` or `dopri45`",
                    M::MODEL_ID,
                    own_method.name()
                )))
            }
        };
        // The own method never calls the integrator; an RK4 placeholder keeps the type.
        let integrator = integrator.unwrap_or(Integrator::Rk4(Rk4 { max_step: f64::MAX }));
        let inner = OdeModule::new(model, integrator)?;
        let mut desc = inner.module_description().clone();
        desc.capabilities.x_reports_energy = reports_energy(&desc);
        let nx = inner.state().len();
        let nu = inner.instance().layout.nu;
        Ok(SteppedModule {
            inner,
            desc,
            own,
            x_work: vec![0.0; nx],
            u_work: vec![0.0; nu],
        })
    }

    /// The model.
    pub fn model(&self) -> &M {
        self.inner.model()
    }

    /// Current states.
    pub fn state(&self) -> &[f64] {
        self.inner.state()
    }

    /// Whether the module steps by its own method.
    pub fn steps_itself(&self) -> bool {
        self.own
    }
}

/// True if the description has a `Float64` output `E` in J.
fn reports_energy(desc: &ModuleDescription) -> bool {
    desc.variables.iter().any(|v| {
        v.causality == crate::module::Causality::Output
            && v.name == ENERGY_OUTPUT.0
            && v.unit == ENERGY_OUTPUT.1
    })
}

/// Builds `model` from a scenario entry as a boxed module.
pub fn build<M: OwnStep + 'static>(
    model: M,
    args: &ModelArgs<'_>,
) -> Result<Box<dyn Module>, ModuleError> {
    Ok(Box::new(SteppedModule::new(model, args.solver)?))
}

impl<M: OwnStep> BuiltinModule for SteppedModule<M> {
    fn module_description(&self) -> &ModuleDescription {
        &self.desc
    }
    fn instance(&self) -> &Instance {
        self.inner.instance()
    }
    fn instance_mut(&mut self) -> &mut Instance {
        self.inner.instance_mut()
    }
    fn parameter(&self, index: usize) -> f64 {
        self.inner.parameter(index)
    }
    fn set_parameter(&mut self, index: usize, value: f64) -> Result<(), ModuleError> {
        self.inner.set_parameter(index, value)
    }
    fn reset_parameters(&mut self) -> Result<(), ModuleError> {
        self.inner.reset_parameters()
    }
    fn restore_parameters(&mut self, params: &[f64], step_hint: f64) -> Result<(), ModuleError> {
        self.inner.restore_parameters(params, step_hint)
    }
    fn step_hint(&self) -> f64 {
        self.inner.step_hint()
    }
    fn evaluate(&mut self) {
        self.inner.evaluate()
    }
    fn derivative(&self, index: usize) -> f64 {
        BuiltinModule::derivative(&self.inner, index)
    }
    fn output(&self, index: usize) -> f64 {
        BuiltinModule::output(&self.inner, index)
    }

    fn step(&mut self, t: f64, h: f64) -> Result<(), ModuleError> {
        if !self.own {
            return self.inner.step(t, h);
        }
        let inst = self.inner.instance();
        self.x_work.copy_from_slice(inst.x.as_slice());
        inst.u.eval_into(0.0, &mut self.u_work);
        self.inner
            .model()
            .own_step(t, h, &mut self.x_work, &self.u_work);
        if self.x_work.iter().any(|v| !v.is_finite()) {
            return Err(ModuleError::numerical(format!(
                "{}: state became non-finite at t = {} s",
                M::MODEL_ID,
                t + h
            )));
        }
        self.inner.instance_mut().x.copy_from_slice(&self.x_work);
        Ok(())
    }

    fn rhs_at(&mut self, t: f64, x: &[f64], u: &[f64], dx: &mut [f64]) {
        self.inner.rhs_at(t, x, u, dx)
    }
    fn outputs_at(&mut self, t: f64, x: &[f64], u: &[f64], y: &mut [f64]) {
        self.inner.outputs_at(t, x, u, y)
    }
}

impl<M: OwnStep> DirectionalDerivatives for SteppedModule<M> {
    fn directional_derivative(&mut self, p: JacobianProduct<'_>) -> Result<(), ModuleError> {
        self.inner.directional_derivative(p)
    }
}

impl<M: OwnStep> OutputDerivatives for SteppedModule<M> {
    fn get_output_derivatives(
        &mut self,
        d: Derivatives<'_, &mut [f64]>,
    ) -> Result<(), ModuleError> {
        self.inner.get_output_derivatives(d)
    }
}
