//! [`RefFmu`]: the co-simulation wrapper every Reference FMU shares, re-implemented from
//! `modelica/Reference-FMUs` `src/cosimulation.c` (`doFixedStep`) and `src/fmi3Functions.c`
//! (`fmi3DoStep`, docs/methods.md §11.3): forward Euler with the fixed step
//! `FIXED_SOLVER_STEP` (= `fixedInternalStepSize`), internal time `startTime + n·step`
//! from an integer count, a sign check of the event indicators and a time-event check after
//! every internal step, and the same early-return / event-mode branches. Only the
//! arithmetic order matters for reproducing the published `*_out.csv` bit for bit, so the
//! per-model equations ([`RefModel`]) are written in the C code's operation order.
//!
//! Values live in one `Vec<f64>` parallel to the description's variables (slot `k` is
//! variable `k`), so a saved state is that vector plus the wrapper's few scalars.

use super::{base_capabilities, describe, variables_of, VarRow};
use crate::module::{
    Capabilities, Causality, Derivatives, DirectionalDerivatives, DiscreteStatesUpdate, EventMode,
    ExposedEquations, InstantiateOptions, JacobianProduct, Module, ModuleDescription, ModuleError,
    ModuleErrorKind, OutputDerivatives, StateSnapshot, Status, StepReport, ValueRef, Variability,
    Variable,
};
use alloc::format;
use alloc::vec::Vec;
use core::marker::PhantomData;

mod equations;
mod state;

/// Most continuous states / event indicators of any Reference FMU here (StateSpace: 3).
const MAX_N: usize = 3;

/// What an event update may change besides the model's values (`fmi3UpdateDiscreteStates`
/// out-arguments and `comp->nextEventTime`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct EventCtx {
    /// Internal time of the event in s.
    pub time: f64,
    /// Next time event (`nextEventTimeDefined` / `nextEventTime`).
    pub next_event_time: Option<f64>,
    /// `terminateSimulation`.
    pub terminate: bool,
}

/// One Reference FMU's equations, as associated functions over the value slots.
pub(super) trait RefModel: Send + 'static {
    /// `FIXED_SOLVER_STEP` of the model's `config.h`, in s.
    const FIXED_SOLVER_STEP: f64;
    /// Number of continuous states.
    const NX: usize = 0;
    /// Number of event indicators.
    const NZ: usize = 0;
    /// `modelName`: the model's registry id.
    const MODEL_NAME: &'static str;
    /// The variables after `time`, one row each (slot `k + 1` = row `k`).
    const VARIABLES: &'static [VarRow] = &[];
    /// Direct feedthrough `(output, input)` by value reference, all `constant`.
    const FEEDTHROUGH: &'static [(u32, u32)] = &[];
    /// `<CoSimulation>` flags: those every Reference FMU declares, plus the model's own.
    fn capabilities() -> Capabilities {
        base_capabilities(Self::FIXED_SOLVER_STEP)
    }
    /// Variables (slot `k` = variable `k`): `time`, then [`RefModel::VARIABLES`].
    fn variables() -> Vec<Variable> {
        variables_of(Self::VARIABLES)
    }
    /// Variables, capabilities and feedthrough structure.
    fn description() -> ModuleDescription {
        describe(
            Self::MODEL_NAME,
            Self::variables(),
            Self::capabilities(),
            Self::FEEDTHROUGH,
        )
    }
    /// Called when Initialization Mode is left, before the first `calculateValues`.
    fn initialize(_v: &mut [f64]) {}
    /// `calculateValues`: recompute calculated slots (derivatives, outputs) from the rest.
    fn calculate(_v: &mut [f64]) {}
    /// `getContinuousStates`.
    fn states(_v: &[f64], _x: &mut [f64]) {}
    /// `setContinuousStates`.
    fn set_states(_v: &mut [f64], _x: &[f64]) {}
    /// `getDerivatives`.
    fn derivatives(_v: &mut [f64], _dx: &mut [f64]) {}
    /// `getEventIndicators`.
    fn event_indicators(_v: &[f64], _z: &mut [f64]) {}
    /// `eventUpdate`.
    fn event_update(_v: &mut [f64], _ctx: &mut EventCtx) -> Result<(), ModuleError> {
        Ok(())
    }
    /// `nextEventTime` set by `setStartValues`, relative to the start time.
    fn first_time_event() -> Option<f64> {
        None
    }
    /// `getOutputDerivative` (only with `maxOutputDerivativeOrder > 0`).
    fn output_derivative(_v: &[f64], _vr: ValueRef, _order: u32) -> Option<f64> {
        None
    }
    /// `x-exposesEquations`: the model is continuous equations only (no event indicators,
    /// time events or discrete states), so `f` and `g` describe it fully (the forward-Euler
    /// wrapper only approximates them).
    const EXPOSES_EQUATIONS: bool = false;
    /// `getPartialDerivative` ∂unknown/∂known (only with `providesDirectionalDerivatives`).
    fn partial_derivative(_v: &[f64], _unknown: ValueRef, _known: ValueRef) -> Option<f64> {
        None
    }
}

/// `isClose` of `cosimulation.c`: equal within 1e-5 absolute or relative. (The C helper
/// declares `fmiAbs`/`fmiMax` as returning `bool`, which degrades it to exact equality;
/// we keep the evident intent. The published outputs do not distinguish the two: every
/// comparison there is between exactly equal or clearly different numbers.)
pub(super) fn is_close(a: f64, b: f64) -> bool {
    const EPSILON: f64 = 1.0e-5;
    if !a.is_finite() || !b.is_finite() {
        return false;
    }
    let d = libm::fabs(a - b);
    d <= EPSILON || d <= EPSILON * libm::fmax(libm::fabs(a), libm::fabs(b))
}

/// Everything that changes during a run: the saved FMU state.
#[derive(Debug, PartialEq)]
struct Core {
    values: Vec<f64>,
    time: f64,
    start_time: f64,
    stop_time: Option<f64>,
    n_steps: u64,
    next_communication_point: f64,
    prez: [f64; MAX_N],
    next_event_time: Option<f64>,
    terminate: bool,
}

/// A Reference FMU equivalent as a [`Module`].
pub(super) struct RefFmu<M: RefModel> {
    desc: ModuleDescription,
    start: Vec<f64>,
    core: Core,
    options: InstantiateOptions,
    /// Value slots for evaluating the exposed equations at a point other than the current.
    scratch: Vec<f64>,
    _model: PhantomData<M>,
}

impl<M: RefModel> RefFmu<M> {
    /// With start values, then `overrides` (slot, value) applied on top.
    pub fn new(overrides: &[(usize, f64)]) -> Self {
        let mut desc = M::description();
        // States are readable (outputs or locals) with `der(...)` companions.
        desc.capabilities.x_exposes_states = !desc.states().is_empty();
        desc.capabilities.x_exposes_equations = M::EXPOSES_EQUATIONS;
        let mut start: Vec<f64> = desc
            .variables
            .iter()
            .map(|v| v.start.unwrap_or(0.0))
            .collect();
        for &(slot, value) in overrides {
            start[slot] = value;
        }
        let mut values = start.clone();
        M::calculate(&mut values);
        RefFmu {
            desc,
            core: Core {
                values,
                time: 0.0,
                start_time: 0.0,
                stop_time: None,
                n_steps: 0,
                next_communication_point: 0.0,
                prez: [0.0; MAX_N],
                next_event_time: None,
                terminate: false,
            },
            scratch: start.clone(),
            start,
            options: InstantiateOptions::default(),
            _model: PhantomData,
        }
    }

    fn slot(&self, vr: ValueRef) -> Result<usize, ModuleError> {
        self.desc
            .variables
            .iter()
            .position(|v| v.value_ref == vr)
            .ok_or(ModuleError::error(ModuleErrorKind::UnknownValueRef(vr)))
    }

    /// `doFixedStep`: one forward-Euler step, then the state- and time-event checks.
    fn do_fixed_step(&mut self) -> (bool, bool) {
        let c = &mut self.core;
        if M::NX > 0 {
            let (mut x, mut dx) = ([0.0; MAX_N], [0.0; MAX_N]);
            M::states(&c.values, &mut x[..M::NX]);
            M::derivatives(&mut c.values, &mut dx[..M::NX]);
            for i in 0..M::NX {
                x[i] += M::FIXED_SOLVER_STEP * dx[i];
            }
            M::set_states(&mut c.values, &x[..M::NX]);
        }
        c.n_steps += 1;
        c.time = c.start_time + c.n_steps as f64 * M::FIXED_SOLVER_STEP;
        let mut state_event = false;
        if M::NZ > 0 {
            let mut z = [0.0; MAX_N];
            M::event_indicators(&c.values, &mut z[..M::NZ]);
            for i in 0..M::NZ {
                let (p, z) = (c.prez[i], z[i]);
                state_event |= (p <= 0.0 && z > 0.0) || (p > 0.0 && z <= 0.0);
            }
            c.prez = z;
        }
        let time_event = c.next_event_time.is_some_and(|te| c.time >= te);
        (state_event, time_event)
    }

    /// `eventUpdate` with the wrapper's event context.
    fn event_update(&mut self) -> Result<(), ModuleError> {
        let c = &mut self.core;
        let mut ctx = EventCtx {
            time: c.time,
            next_event_time: c.next_event_time,
            terminate: c.terminate,
        };
        M::event_update(&mut c.values, &mut ctx)?;
        c.next_event_time = ctx.next_event_time;
        c.terminate = ctx.terminate;
        M::calculate(&mut c.values);
        Ok(())
    }

    fn refresh_indicators(&mut self) {
        if M::NZ > 0 {
            M::event_indicators(&self.core.values, &mut self.core.prez[..M::NZ]);
        }
    }
}

impl<M: RefModel> Module for RefFmu<M> {
    fn description(&self) -> &ModuleDescription {
        &self.desc
    }

    fn instantiate(&mut self, options: InstantiateOptions) -> Result<(), ModuleError> {
        self.options = options;
        Ok(())
    }

    fn enter_initialization_mode(
        &mut self,
        _tol: Option<f64>,
        start: f64,
        stop: Option<f64>,
    ) -> Result<(), ModuleError> {
        let c = &mut self.core;
        c.start_time = start;
        c.time = start;
        c.stop_time = stop;
        c.n_steps = 0;
        c.next_communication_point = start;
        c.next_event_time = M::first_time_event().map(|dt| start + dt);
        Ok(())
    }

    fn exit_initialization_mode(&mut self) -> Result<(), ModuleError> {
        M::initialize(&mut self.core.values);
        M::calculate(&mut self.core.values);
        self.refresh_indicators();
        Ok(())
    }

    fn set_float64(&mut self, vrs: &[ValueRef], values: &[f64]) -> Result<(), ModuleError> {
        for (vr, value) in vrs.iter().zip(values) {
            let slot = self.slot(*vr)?;
            let v = &self.desc.variables[slot];
            let settable = v.start.is_some()
                && v.variability != Variability::Constant
                && v.causality != Causality::Independent;
            if !settable {
                return Err(ModuleError::error(ModuleErrorKind::NotSettable(*vr)));
            }
            if !value.is_finite() {
                return Err(ModuleError::invalid(format!(
                    "{} must be finite, got {value}",
                    v.name
                )));
            }
            self.core.values[slot] = *value;
        }
        M::calculate(&mut self.core.values);
        Ok(())
    }

    fn get_float64(&mut self, vrs: &[ValueRef], values: &mut [f64]) -> Result<(), ModuleError> {
        M::calculate(&mut self.core.values);
        for (vr, out) in vrs.iter().zip(values.iter_mut()) {
            let slot = self.slot(*vr)?;
            *out = if self.desc.variables[slot].causality == Causality::Independent {
                self.core.time
            } else {
                self.core.values[slot]
            };
        }
        Ok(())
    }

    /// `fmi3DoStep` as in `src/fmi3Functions.c`.
    fn do_step(&mut self, t: f64, h: f64, _no_set_prior: bool) -> Result<StepReport, ModuleError> {
        if !is_close(t, self.core.next_communication_point) {
            return Err(ModuleError::invalid(format!(
                "expected currentCommunicationPoint = {} but was {t}",
                self.core.next_communication_point
            )));
        }
        let next = t + h;
        if let Some(stop) = self.core.stop_time {
            if next > stop && !is_close(next, stop) {
                return Err(ModuleError::invalid(format!(
                    "at communication point {t} a step size of {h} was requested but stop time is {stop}"
                )));
            }
        }
        let (event_mode, early_allowed) = (
            self.options.event_mode_used,
            self.options.early_return_allowed,
        );
        let mut event_handling_needed = false;
        let mut reached;
        loop {
            let next_solver_step_time = self.core.time + M::FIXED_SOLVER_STEP;
            reached = next_solver_step_time > next && !is_close(next_solver_step_time, next);
            if reached || (event_handling_needed && early_allowed) {
                break;
            }
            // Event mode used, early return not allowed: the C loop updates at the top of
            // the next internal step (without refreshing the indicators).
            if event_handling_needed {
                self.event_update()?;
                event_handling_needed = false;
            }
            let (state_event, time_event) = self.do_fixed_step();
            if state_event || time_event {
                if event_mode {
                    event_handling_needed = true;
                } else {
                    self.event_update()?;
                    self.refresh_indicators();
                }
                if early_allowed {
                    break;
                }
            }
            if self.core.terminate {
                break;
            }
        }
        let c = &mut self.core;
        c.next_communication_point = if reached { next } else { c.time };
        M::calculate(&mut c.values);
        Ok(StepReport {
            status: Status::Ok,
            event_handling_needed: event_handling_needed && event_mode,
            terminate_simulation: c.terminate,
            early_return: early_allowed && !reached,
            last_successful_time: c.time,
        })
    }

    fn reset(&mut self) -> Result<(), ModuleError> {
        self.core.values.clone_from(&self.start);
        M::calculate(&mut self.core.values);
        let start = self.core.start_time;
        self.core.time = start;
        self.core.n_steps = 0;
        self.core.next_communication_point = start;
        self.core.terminate = false;
        self.core.next_event_time = M::first_time_event().map(|dt| start + dt);
        Ok(())
    }

    fn state_snapshot(&mut self) -> Option<&mut dyn StateSnapshot> {
        let caps = &self.desc.capabilities;
        caps.can_get_and_set_fmu_state.then_some(self as _)
    }

    fn directional_derivatives(&mut self) -> Option<&mut dyn DirectionalDerivatives> {
        let caps = &self.desc.capabilities;
        caps.provides_directional_derivatives.then_some(self as _)
    }

    fn output_derivatives(&mut self) -> Option<&mut dyn OutputDerivatives> {
        let caps = &self.desc.capabilities;
        (caps.max_output_derivative_order > 0).then_some(self as _)
    }

    fn event_mode(&mut self) -> Option<&mut dyn EventMode> {
        let caps = &self.desc.capabilities;
        caps.has_event_mode.then_some(self as _)
    }

    fn exposed_equations(&mut self) -> Option<&mut dyn ExposedEquations> {
        let caps = &self.desc.capabilities;
        caps.x_exposes_equations.then_some(self as _)
    }
}

impl<M: RefModel> EventMode for RefFmu<M> {
    fn enter_event_mode(&mut self) -> Result<(), ModuleError> {
        Ok(())
    }

    /// `fmi3UpdateDiscreteStates`: one `eventUpdate`; the Reference FMUs never ask for a
    /// second iteration.
    fn update_discrete_states(&mut self) -> Result<DiscreteStatesUpdate, ModuleError> {
        self.event_update()?;
        Ok(DiscreteStatesUpdate {
            discrete_states_need_update: false,
            terminate_simulation: self.core.terminate,
            next_event_time: self.core.next_event_time,
        })
    }

    /// `fmi3EnterStepMode`: the indicators restart from the post-event values, so the
    /// re-initialised state is not seen as a second crossing.
    fn enter_step_mode(&mut self) -> Result<(), ModuleError> {
        self.refresh_indicators();
        Ok(())
    }
}

impl<M: RefModel> OutputDerivatives for RefFmu<M> {
    fn get_output_derivatives(
        &mut self,
        mut d: Derivatives<'_, &mut [f64]>,
    ) -> Result<(), ModuleError> {
        for (vr, k, out) in d.iter_mut() {
            *out = M::output_derivative(&self.core.values, vr, k).ok_or_else(|| {
                ModuleError::invalid(format!(
                    "output derivative of order {k} for value reference {} is not available",
                    vr.0
                ))
            })?;
        }
        Ok(())
    }
}

impl<M: RefModel> DirectionalDerivatives for RefFmu<M> {
    fn directional_derivative(&mut self, p: JacobianProduct<'_>) -> Result<(), ModuleError> {
        M::calculate(&mut self.core.values);
        for (u, s) in p.unknowns.iter().zip(p.sensitivity.iter_mut()) {
            *s = 0.0;
            for (k, &w) in p.knowns.iter().zip(p.seed) {
                let d = M::partial_derivative(&self.core.values, *u, *k).ok_or_else(|| {
                    ModuleError::invalid(format!(
                        "no partial derivative of {} with respect to {}",
                        u.0, k.0
                    ))
                })?;
                *s += d * w;
            }
        }
        Ok(())
    }
}
