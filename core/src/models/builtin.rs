//! [`BuiltinModule`]: what the three built-in module types (linear state space, ODE,
//! equations) differ in. One generic implementation makes each of them a [`Module`] with
//! state snapshots, input derivatives and exposed equations, doing the FMI bookkeeping on the shared
//! [`Instance`]; below it, the stepping and argument checks they share.

use super::instance::{Instance, Snapshot};
use super::layout::{Layout, VarKind};
use crate::module::{
    Derivatives, DirectionalDerivatives, ExposedEquations, InputDerivatives, JacobianProduct,
    Module, ModuleDescription, ModuleError, ModuleState, OutputDerivatives, StateSnapshot,
    StepReport, ValueRef,
};
use crate::solvers::{Integrator, OdeSystem, Workspace};
use alloc::format;
use alloc::vec;
use alloc::vec::Vec;
use nalgebra::DVector;

/// The part of a built-in module that is its own; [`Module`], [`StateSnapshot`] and
/// [`InputDerivatives`] follow from it. Directional and output derivatives are computed
/// differently by each type (exact, finite differences, AD), so each implements them.
pub(crate) trait BuiltinModule: DirectionalDerivatives + OutputDerivatives + Send {
    /// Static description (what [`Module::description`] returns).
    fn module_description(&self) -> &ModuleDescription;
    /// Time, states and inputs.
    fn instance(&self) -> &Instance;
    /// Time, states and inputs, to change.
    fn instance_mut(&mut self) -> &mut Instance;

    /// Current value of parameter `index`.
    fn parameter(&self, index: usize) -> f64;
    /// Sets parameter `index` as part of one `set_float64` call.
    fn set_parameter(&mut self, index: usize, value: f64) -> Result<(), ModuleError>;
    /// End of a `set_float64` call, given whether all its values were set: a module that
    /// collects parameter changes applies them here, or drops them after an error.
    fn finish_set(&mut self, values_set: Result<(), ModuleError>) -> Result<(), ModuleError> {
        values_set
    }
    /// `fmi3Reset` of the parameters and of what depends on them (adaptive step, caches).
    fn reset_parameters(&mut self) -> Result<(), ModuleError>;
    /// `fmi3SetFMUState` of what [`BuiltinModule::parameter`] and
    /// [`BuiltinModule::step_hint`] saved; the instance is already restored.
    fn restore_parameters(&mut self, params: &[f64], step_hint: f64) -> Result<(), ModuleError>;
    /// Adaptive step size saved with the state (0 without one).
    fn step_hint(&self) -> f64 {
        0.0
    }
    /// Whether the module integrates with a stiff method ([`ExposedEquations::stiff`]).
    fn stiff(&self) -> bool {
        false
    }

    /// Prepares [`BuiltinModule::derivative`] and [`BuiltinModule::output`] for the
    /// current point (called once per `get_float64`).
    fn evaluate(&mut self) {}
    /// `der(x_index)` at the current point.
    fn derivative(&self, index: usize) -> f64;
    /// Output `index` at the current point.
    fn output(&self, index: usize) -> f64;

    /// Advances the instance's states from `t` to `t + h` under its inputs; on failure
    /// the module is unchanged (FMI: the master may restore or reset).
    fn step(&mut self, t: f64, h: f64) -> Result<(), ModuleError>;

    /// `dx = f(t, x, u)` at any point, the instance unchanged (`x-exposesEquations`;
    /// lengths are checked by the caller).
    fn rhs_at(&mut self, t: f64, x: &[f64], u: &[f64], dx: &mut [f64]);
    /// `y = g(t, x, u)` at any point, the instance unchanged.
    fn outputs_at(&mut self, t: f64, x: &[f64], u: &[f64], y: &mut [f64]);
}

impl<T: BuiltinModule> Module for T {
    fn description(&self) -> &ModuleDescription {
        self.module_description()
    }

    fn enter_initialization_mode(
        &mut self,
        _tol: Option<f64>,
        start_time: f64,
        _stop: Option<f64>,
    ) -> Result<(), ModuleError> {
        let inst = self.instance_mut();
        inst.t_start = start_time;
        inst.t = start_time;
        Ok(())
    }

    fn exit_initialization_mode(&mut self) -> Result<(), ModuleError> {
        Ok(())
    }

    fn set_float64(&mut self, vrs: &[ValueRef], values: &[f64]) -> Result<(), ModuleError> {
        if vrs.len() != values.len() {
            return Err(ModuleError::invalid(
                "value references and values differ in length",
            ));
        }
        let values_set = vrs.iter().zip(values).try_for_each(|(vr, v)| {
            let kind = self.instance().layout.classify(*vr)?;
            match kind {
                VarKind::Parameter(i) => self.set_parameter(i, *v),
                _ => self.instance_mut().set(kind, *vr, *v).map(|_| ()),
            }
        });
        self.finish_set(values_set)
    }

    fn get_float64(&mut self, vrs: &[ValueRef], values: &mut [f64]) -> Result<(), ModuleError> {
        if vrs.len() != values.len() {
            return Err(ModuleError::invalid(
                "value references and values differ in length",
            ));
        }
        self.evaluate();
        let inst = self.instance();
        for (vr, out) in vrs.iter().zip(values.iter_mut()) {
            *out = match inst.layout.classify(*vr)? {
                VarKind::Parameter(i) => self.parameter(i),
                VarKind::State(i) => inst.x[i],
                VarKind::Derivative(i) => self.derivative(i),
                VarKind::Input(i) => inst.u.get(i, 0),
                VarKind::Output(i) => self.output(i),
            };
        }
        Ok(())
    }

    fn do_step(
        &mut self,
        t: f64,
        h: f64,
        _no_set_state_prior: bool,
    ) -> Result<StepReport, ModuleError> {
        self.step(t, h)?;
        self.instance_mut().finish_step(t, h);
        Ok(StepReport::completed(t + h))
    }

    fn reset(&mut self) -> Result<(), ModuleError> {
        self.reset_parameters()?;
        self.instance_mut().reset();
        Ok(())
    }

    fn state_snapshot(&mut self) -> Option<&mut dyn StateSnapshot> {
        Some(self)
    }

    fn directional_derivatives(&mut self) -> Option<&mut dyn DirectionalDerivatives> {
        Some(self)
    }

    fn output_derivatives(&mut self) -> Option<&mut dyn OutputDerivatives> {
        Some(self)
    }

    fn input_derivatives(&mut self) -> Option<&mut dyn InputDerivatives> {
        Some(self)
    }

    fn exposed_equations(&mut self) -> Option<&mut dyn ExposedEquations> {
        Some(self)
    }
}

/// Every built-in module is written as equations, so every one exposes them.
impl<T: BuiltinModule> ExposedEquations for T {
    fn state_count(&self) -> usize {
        self.instance().layout.nx
    }

    fn current_states(&self, x: &mut [f64]) {
        x.copy_from_slice(self.instance().x.as_slice());
    }

    fn rhs(&mut self, t: f64, x: &[f64], u: &[f64], dx: &mut [f64]) -> Result<(), ModuleError> {
        check_equation_lengths(self.instance().layout, x, u, dx.len(), |l| l.nx)?;
        self.rhs_at(t, x, u, dx);
        Ok(())
    }

    fn outputs(&mut self, t: f64, x: &[f64], u: &[f64], y: &mut [f64]) -> Result<(), ModuleError> {
        check_equation_lengths(self.instance().layout, x, u, y.len(), |l| l.ny)?;
        self.outputs_at(t, x, u, y);
        Ok(())
    }

    fn stiff(&self) -> bool {
        BuiltinModule::stiff(self)
    }
}

/// The lengths of an exposed-equation call: `x`, `u` and the result (`n_out(layout)`
/// values), so a module never indexes out of range even when called without a
/// [`crate::module::Subsystem`].
fn check_equation_lengths(
    layout: Layout,
    x: &[f64],
    u: &[f64],
    out: usize,
    n_out: fn(&Layout) -> usize,
) -> Result<(), ModuleError> {
    if x.len() == layout.nx && u.len() == layout.nu && out == n_out(&layout) {
        Ok(())
    } else {
        Err(ModuleError::invalid(
            "exposed equations: states, inputs or results of the wrong length",
        ))
    }
}

impl<T: BuiltinModule> StateSnapshot for T {
    fn get_state(&mut self) -> Result<ModuleState, ModuleError> {
        let mut slot = ModuleState::empty();
        self.save_state_into(&mut slot)?;
        Ok(slot)
    }

    /// Without allocating once `slot` holds a snapshot of a module of this shape.
    fn save_state_into(&mut self, slot: &mut ModuleState) -> Result<(), ModuleError> {
        self.instance()
            .save_into(slot, |i| self.parameter(i), self.step_hint());
        Ok(())
    }

    fn set_state(&mut self, state: &ModuleState) -> Result<(), ModuleError> {
        let saved = self.instance_mut().restore(state)?;
        self.restore_parameters(&saved.params, saved.step_hint)
    }

    fn serialize_state(&mut self, state: &ModuleState) -> Result<Vec<u8>, ModuleError> {
        Ok(Snapshot::of(state)?.to_bytes())
    }

    fn deserialize_state(&mut self, bytes: &[u8]) -> Result<ModuleState, ModuleError> {
        let inst = self.instance();
        let s = Snapshot::from_bytes(bytes, inst.shape(), inst.layout.np)?;
        Ok(ModuleState::new(s))
    }
}

impl<T: BuiltinModule> InputDerivatives for T {
    fn set_input_derivatives(&mut self, d: Derivatives<'_, &[f64]>) -> Result<(), ModuleError> {
        self.instance_mut().set_input_derivatives(&d)
    }
}

/// How the ODE and equation modules step: an integrator, its workspace (which keeps the
/// adaptive step size) and the candidate state.
#[derive(Clone, Debug)]
pub(crate) struct Stepper {
    pub integrator: Integrator,
    pub ws: Workspace,
    /// Candidate state during a step (committed only on success).
    x_work: Vec<f64>,
}

impl Stepper {
    pub fn new(integrator: Integrator, nx: usize) -> Self {
        Stepper {
            integrator,
            ws: Workspace::new(nx),
            x_work: vec![0.0; nx],
        }
    }

    /// Integrates `system` from `x` over `[t, t + h]`; `x` and the adaptive step change
    /// only on success. Errors name the model.
    pub fn step(
        &mut self,
        system: &mut impl OdeSystem,
        x: &mut DVector<f64>,
        t: f64,
        h: f64,
        model_name: &str,
    ) -> Result<(), ModuleError> {
        self.x_work.copy_from_slice(x.as_slice());
        let hint = self.ws.step_hint;
        let r = self
            .integrator
            .integrate(system, t, t + h, &mut self.x_work, &mut self.ws);
        if let Err(e) = r {
            self.ws.step_hint = hint;
            return Err(ModuleError::numerical(format!("{model_name}: {e}")));
        }
        x.copy_from_slice(&self.x_work);
        Ok(())
    }
}

/// The role of `vr` if `accepts` it; otherwise an error naming it as the `side` of a
/// directional derivative that is not `expected`.
fn role_of(
    layout: &Layout,
    vr: ValueRef,
    accepts: fn(&VarKind) -> bool,
    (side, expected): (&str, &str),
) -> Result<VarKind, ModuleError> {
    let kind = layout.classify(vr)?;
    if accepts(&kind) {
        return Ok(kind);
    }
    Err(ModuleError::invalid(format!(
        "{side} {} is not {expected}",
        vr.0
    )))
}

/// The role of a known of a directional derivative: a state or an input.
pub(crate) fn known_kind(layout: &Layout, vr: ValueRef) -> Result<VarKind, ModuleError> {
    let accepts = |k: &VarKind| matches!(k, VarKind::State(_) | VarKind::Input(_));
    role_of(layout, vr, accepts, ("known", "a state or an input"))
}

/// The role of an unknown of a directional derivative: `der(state)` or an output.
pub(crate) fn unknown_kind(layout: &Layout, vr: ValueRef) -> Result<VarKind, ModuleError> {
    let accepts = |k: &VarKind| matches!(k, VarKind::Derivative(_) | VarKind::Output(_));
    role_of(layout, vr, accepts, ("unknown", "an output or der(state)"))
}

/// Checks the unknowns and knowns of a directional derivative and sums the seed into a
/// direction `(dx, du)` in states and inputs.
pub(crate) fn seed_direction(
    layout: &Layout,
    p: &JacobianProduct<'_>,
) -> Result<(Vec<f64>, Vec<f64>), ModuleError> {
    let mut dx = vec![0.0; layout.nx];
    let mut du = vec![0.0; layout.nu];
    for (k, s) in p.knowns.iter().zip(p.seed) {
        match known_kind(layout, *k)? {
            VarKind::State(j) => dx[j] += s,
            VarKind::Input(j) => du[j] += s,
            _ => {}
        }
    }
    for u in p.unknowns {
        unknown_kind(layout, *u)?;
    }
    Ok((dx, du))
}

/// The index of output `vr` for `fmi3GetOutputDerivatives`.
pub(crate) fn output_index(layout: &Layout, vr: ValueRef) -> Result<usize, ModuleError> {
    match layout.classify(vr)? {
        VarKind::Output(i) => Ok(i),
        _ => Err(ModuleError::invalid(format!("{} is not an output", vr.0))),
    }
}
