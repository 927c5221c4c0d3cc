//! [`EquationModule`]: an equation source compiled once and run as an FMI-like module.
//! States are integrated across each communication step by RK4 or Dopri45 with the
//! polynomial input `ũ(t + s) = Σ_k u^(k) s^k / k!`, exactly like the built-in
//! [`OdeModule`](crate::models::OdeModule); Jacobians (`fmi3GetDirectionalDerivative`)
//! and the first output derivative come from forward-mode AD over the compiled tapes,
//! so they are exact (no finite-difference step).

use super::compile::{Program, Slots, Tape};
use super::pipeline::{compile_source, settable_variables, Compiled, EQUATIONS_ID, EXAMPLE_SOURCE};
use crate::models::builtin::{output_index, seed_direction, BuiltinModule, Stepper};
use crate::models::entry::{ModelEntry, ParameterList};
use crate::models::instance::Instance;
use crate::models::layout::VarKind;
use crate::models::parameters::{check, Range};
use crate::models::solver_choice::{integrator_for, numeric_solvers, DEFAULT_ATOL, DEFAULT_RTOL};
use crate::module::{
    Derivatives, DirectionalDerivatives, JacobianProduct, Module, ModuleDescription, ModuleError,
    OutputDerivatives,
};
use crate::solvers::SolverSpec;
use crate::solvers::{Dopri45, Integrator, OdeSystem, TaylorInput};
use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;
use nalgebra::DVector;

/// Builds an equation module for a scenario entry: `solver` `default` is Dopri45 with
/// the catalog's tolerances ([`DEFAULT_RTOL`], [`DEFAULT_ATOL`]); `exact` is refused
/// (equation modules always integrate numerically).
pub fn build(
    source: &str,
    overrides: &BTreeMap<String, f64>,
    solver: &SolverSpec,
) -> Result<Box<dyn Module>, ModuleError> {
    let integrator =
        match solver {
            SolverSpec::Default => Integrator::Dopri45(Dopri45 {
                rtol: DEFAULT_RTOL,
                atol: DEFAULT_ATOL,
            }),
            SolverSpec::Exact => return Err(ModuleError::invalid(
                "solver `exact` is only available for built-in linear models; equation modules \
                 integrate with `rk4` or `dopri45` (`default` is dopri45)",
            )),
            other => integrator_for(other)?
                .ok_or_else(|| ModuleError::invalid("no integrator for this solver"))?,
        };
    Ok(Box::new(EquationModule::new(
        source, overrides, integrator,
    )?))
}

/// Registry entry: written in the scenario's `source`; Dopri45 by default, or RK4.
pub(in crate::models) const ENTRY: ModelEntry = ModelEntry {
    id: EQUATIONS_ID,
    summary: "Equation module: parameters, inputs, states, der() equations and outputs written as \
              text (scenario field `source`); exact Jacobians by automatic differentiation.",
    parameters: ParameterList::FromSource {
        settable: settable_variables,
        example: EXAMPLE_SOURCE,
    },
    solvers: numeric_solvers,
    construct: |a| {
        let source = a.source.ok_or_else(|| {
            ModuleError::invalid("model `Equations` needs a `source` with its equations")
        })?;
        build(source, a.parameters, a.solver)
    },
};

/// A module defined by equations.
#[derive(Clone, Debug)]
pub struct EquationModule {
    program: Program,
    stepper: Stepper,
    desc: ModuleDescription,
    inst: Instance,
    /// Current parameter values.
    params: Vec<f64>,
    /// Parameter values at construction (restored by `reset`).
    params_start: Vec<f64>,
    /// Register files of the `der()` and output tapes.
    regs_rhs: Vec<f64>,
    regs_out: Vec<f64>,
    /// Tangent registers for AD.
    dots_rhs: Vec<f64>,
    dots_out: Vec<f64>,
}

/// The `der()` tape driven by the polynomial input of the current step.
struct Driven<'a> {
    tape: &'a Tape,
    slots: Slots,
    regs: &'a mut [f64],
    u: &'a TaylorInput,
    t0: f64,
}

impl OdeSystem for Driven<'_> {
    fn dim(&self) -> usize {
        self.slots.nx
    }
    fn rhs(&mut self, t: f64, x: &[f64], dx: &mut [f64]) {
        let s = self.slots;
        self.regs[Slots::TIME] = t;
        self.regs[s.state(0)..s.state(0) + s.nx].copy_from_slice(x);
        self.u
            .eval_into(t - self.t0, &mut self.regs[s.input(0)..s.input(0) + s.nu]);
        self.tape.eval(self.regs);
        for (i, d) in dx.iter_mut().enumerate() {
            *d = self.tape.target(self.regs, i);
        }
    }
}

impl EquationModule {
    /// Compiles `source`; entries of `overrides` replace the default of the parameter or
    /// the start value of the state of that name. Source errors read
    /// `line L, column C: message`; override errors name the parameter.
    pub fn new(
        source: &str,
        overrides: &BTreeMap<String, f64>,
        integrator: Integrator,
    ) -> Result<Self, ModuleError> {
        let compiled = compile_source(source).map_err(|e| ModuleError::invalid(e.to_string()))?;
        Self::from_compiled(compiled, overrides, integrator)
    }

    fn from_compiled(
        c: Compiled,
        overrides: &BTreeMap<String, f64>,
        integrator: Integrator,
    ) -> Result<Self, ModuleError> {
        let m = &c.model;
        let mut params: Vec<f64> = m.params.iter().map(|p| p.start).collect();
        let mut starts: Vec<f64> = m.states.iter().map(|s| s.start).collect();
        for (name, value) in overrides {
            let slot = if let Some(i) = m.params.iter().position(|p| p.name == *name) {
                &mut params[i]
            } else if let Some(i) = m.states.iter().position(|s| s.name == *name) {
                &mut starts[i]
            } else {
                let known: Vec<&str> = m
                    .params
                    .iter()
                    .chain(&m.states)
                    .map(|d| d.name.as_str())
                    .collect();
                return Err(ModuleError::invalid(format!(
                    "parameter `{name}`: the equations declare no parameter or state of this name (known: {})",
                    known.join(", ")
                )));
            };
            *slot = check(name, *value, Range::Finite)?;
        }
        let (desc, layout) = c
            .describe(&params, &starts)
            .map_err(|e| ModuleError::invalid(e.to_string()))?;
        let u0: Vec<f64> = m.inputs.iter().map(|i| i.start).collect();
        let program = c.program;
        let nx = layout.nx;
        let mut module = EquationModule {
            stepper: Stepper::new(integrator, nx),
            desc,
            inst: Instance::new(layout, DVector::from_vec(starts), u0),
            params_start: params.clone(),
            params,
            regs_rhs: vec![0.0; program.rhs.registers()],
            regs_out: vec![0.0; program.out.registers()],
            dots_rhs: vec![0.0; program.rhs.registers()],
            dots_out: vec![0.0; program.out.registers()],
            program,
        };
        module.load_params();
        Ok(module)
    }

    /// The compiled tapes (evaluated on every call; the source is not kept).
    pub fn program(&self) -> &Program {
        &self.program
    }

    /// The integrator.
    pub fn integrator(&self) -> &Integrator {
        &self.stepper.integrator
    }

    /// Current states.
    pub fn state(&self) -> &[f64] {
        self.inst.x.as_slice()
    }

    fn load_params(&mut self) {
        let s = self.program.slots;
        for regs in [&mut self.regs_rhs, &mut self.regs_out] {
            regs[s.param(0)..s.param(0) + s.np].copy_from_slice(&self.params);
        }
    }

    /// Loads time, states and input values of the current communication point into both
    /// register files and evaluates both tapes.
    fn eval_point(&mut self) {
        let s = self.program.slots;
        for regs in [&mut self.regs_rhs, &mut self.regs_out] {
            regs[Slots::TIME] = self.inst.t;
            regs[s.state(0)..s.state(0) + s.nx].copy_from_slice(self.inst.x.as_slice());
            for i in 0..s.nu {
                regs[s.input(i)] = self.inst.u.get(i, 0);
            }
        }
        self.program.rhs.eval(&mut self.regs_rhs);
        self.program.out.eval(&mut self.regs_out);
    }

    /// Writes the seed (time, states, inputs; parameters 0) into both tangent files.
    fn seed(&mut self, dt: f64, dx: &[f64], du: &[f64]) {
        let s = self.program.slots;
        for dots in [&mut self.dots_rhs, &mut self.dots_out] {
            dots[..s.lead()].fill(0.0);
            dots[Slots::TIME] = dt;
            dots[s.state(0)..s.state(0) + s.nx].copy_from_slice(dx);
            dots[s.input(0)..s.input(0) + s.nu].copy_from_slice(du);
        }
    }
}

impl BuiltinModule for EquationModule {
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

    fn set_parameter(&mut self, index: usize, value: f64) -> Result<(), ModuleError> {
        let name = &self.desc.variables[index].name;
        self.params[index] = check(name, value, Range::Finite)?;
        self.load_params();
        // Parameters change the model; forget the adaptive step.
        self.stepper.ws.step_hint = 0.0;
        Ok(())
    }

    fn reset_parameters(&mut self) -> Result<(), ModuleError> {
        self.params.copy_from_slice(&self.params_start);
        self.load_params();
        self.stepper.ws.step_hint = 0.0;
        Ok(())
    }

    fn restore_parameters(&mut self, params: &[f64], step_hint: f64) -> Result<(), ModuleError> {
        if params.len() != self.params.len() {
            return Err(ModuleError::invalid(
                "the state was saved by a module of another shape",
            ));
        }
        self.params.copy_from_slice(params);
        self.stepper.ws.step_hint = step_hint;
        self.load_params();
        Ok(())
    }

    fn step_hint(&self) -> f64 {
        self.stepper.ws.step_hint
    }

    fn evaluate(&mut self) {
        self.eval_point();
    }

    fn derivative(&self, index: usize) -> f64 {
        self.program.rhs.target(&self.regs_rhs, index)
    }

    fn output(&self, index: usize) -> f64 {
        self.program.out.target(&self.regs_out, index)
    }

    fn step(&mut self, t: f64, h: f64) -> Result<(), ModuleError> {
        let mut system = Driven {
            tape: &self.program.rhs,
            slots: self.program.slots,
            regs: &mut self.regs_rhs,
            u: &self.inst.u,
            t0: t,
        };
        let name = &self.desc.model_name;
        self.stepper.step(&mut system, &mut self.inst.x, t, h, name)
    }

    /// The `der()` tape at `(t, x, u)`; its registers are scratch (every read loads them).
    fn rhs_at(&mut self, t: f64, x: &[f64], u: &[f64], dx: &mut [f64]) {
        let tape = &self.program.rhs;
        load_point(self.program.slots, &mut self.regs_rhs, (t, x, u));
        tape.eval(&mut self.regs_rhs);
        for (i, d) in dx.iter_mut().enumerate() {
            *d = tape.target(&self.regs_rhs, i);
        }
    }

    /// The output tape at `(t, x, u)`.
    fn outputs_at(&mut self, t: f64, x: &[f64], u: &[f64], y: &mut [f64]) {
        let tape = &self.program.out;
        load_point(self.program.slots, &mut self.regs_out, (t, x, u));
        tape.eval(&mut self.regs_out);
        for (i, out) in y.iter_mut().enumerate() {
            *out = tape.target(&self.regs_out, i);
        }
    }
}

/// Writes time, states and input values into a register file (parameters stay loaded).
fn load_point(s: Slots, regs: &mut [f64], (t, x, u): (f64, &[f64], &[f64])) {
    regs[Slots::TIME] = t;
    regs[s.state(0)..s.state(0) + s.nx].copy_from_slice(x);
    regs[s.input(0)..s.input(0) + s.nu].copy_from_slice(u);
}

impl DirectionalDerivatives for EquationModule {
    /// Exact `J · seed` by one forward-mode AD pass over each tape that an unknown needs.
    fn directional_derivative(&mut self, p: JacobianProduct<'_>) -> Result<(), ModuleError> {
        let layout = self.inst.layout;
        let (dx, du) = seed_direction(&layout, &p)?;
        let kinds = p.unknowns.iter().map(|u| layout.classify(*u));
        let need_rhs = kinds
            .clone()
            .any(|k| matches!(k, Ok(VarKind::Derivative(_))));
        let need_out = kinds.clone().any(|k| matches!(k, Ok(VarKind::Output(_))));
        self.eval_point();
        self.seed(0.0, &dx, &du);
        if need_rhs {
            self.program.rhs.tangent(&self.regs_rhs, &mut self.dots_rhs);
        }
        if need_out {
            self.program.out.tangent(&self.regs_out, &mut self.dots_out);
        }
        for (u, s) in p.unknowns.iter().zip(p.sensitivity.iter_mut()) {
            *s = match layout.classify(*u)? {
                VarKind::Derivative(i) => self.program.rhs.target(&self.dots_rhs, i),
                VarKind::Output(i) => self.program.out.target(&self.dots_out, i),
                _ => 0.0,
            };
        }
        Ok(())
    }
}

impl OutputDerivatives for EquationModule {
    /// Order 1, exact: `dy/dt = ∂g/∂t + ∂g/∂x · f + ∂g/∂u · u'`, one AD pass along
    /// `(1, f, u')` with `u'` the input derivative set for the next step.
    fn get_output_derivatives(
        &mut self,
        mut d: Derivatives<'_, &mut [f64]>,
    ) -> Result<(), ModuleError> {
        if d.orders.iter().any(|&k| k != 1) {
            return Err(ModuleError::invalid(
                "equation modules provide output derivatives of order 1 only",
            ));
        }
        self.eval_point();
        let layout = self.inst.layout;
        let f: Vec<f64> = (0..layout.nx)
            .map(|i| self.program.rhs.target(&self.regs_rhs, i))
            .collect();
        let du: Vec<f64> = (0..layout.nu).map(|i| self.inst.u.get(i, 1)).collect();
        self.seed(1.0, &f, &du);
        self.program.out.tangent(&self.regs_out, &mut self.dots_out);
        for (vr, _, out) in d.iter_mut() {
            let i = output_index(&layout, vr)?;
            *out = self.program.out.target(&self.dots_out, i);
        }
        Ok(())
    }
}
