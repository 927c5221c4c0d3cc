//! The traits a module implements: the base [`Module`] and one small trait per optional
//! capability (FMI 3.0 names in the docs; docs/methods.md §6.7).

use super::{
    Derivatives, JacobianProduct, ModuleDescription, ModuleError, StepIo, StepIoResult, StepReport,
    ValueRef,
};
use alloc::boxed::Box;
use alloc::vec::Vec;
use core::any::Any;

/// Options of `fmi3InstantiateCoSimulation` that change how the module behaves.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct InstantiateOptions {
    /// FMI `eventModeUsed`: the master will call Event Mode functions.
    pub event_mode_used: bool,
    /// FMI `earlyReturnAllowed`: `do_step` may return before `t + h`.
    pub early_return_allowed: bool,
}

/// The base of every module: FMI 3.0 co-simulation calls every module has.
///
/// Implementors may assume the calls arrive in a legal FMI order: the [`super::Subsystem`]
/// wrapper checks the order before forwarding.
///
/// `Send`, so an executor may step the modules of one sweep on other threads: every
/// implementation is checked for it where it is written.
pub trait Module: Send {
    /// Static description: variables, capability flags, feedthrough structure.
    fn description(&self) -> &ModuleDescription;

    /// `fmi3InstantiateCoSimulation` options; called once, before anything else.
    fn instantiate(&mut self, options: InstantiateOptions) -> Result<(), ModuleError> {
        let _ = options;
        Ok(())
    }

    /// `fmi3EnterInitializationMode`.
    fn enter_initialization_mode(
        &mut self,
        tolerance: Option<f64>,
        start_time: f64,
        stop_time: Option<f64>,
    ) -> Result<(), ModuleError>;

    /// `fmi3ExitInitializationMode`: the module computes its initial outputs.
    fn exit_initialization_mode(&mut self) -> Result<(), ModuleError>;

    /// `fmi3SetFloat64`.
    fn set_float64(&mut self, vrs: &[ValueRef], values: &[f64]) -> Result<(), ModuleError>;

    /// `fmi3GetFloat64`.
    fn get_float64(&mut self, vrs: &[ValueRef], values: &mut [f64]) -> Result<(), ModuleError>;

    /// `fmi3DoStep` from communication point `t` over `h > 0`.
    fn do_step(
        &mut self,
        t: f64,
        h: f64,
        no_set_state_prior_to_current_point: bool,
    ) -> Result<StepReport, ModuleError>;

    /// Sets `io`'s inputs, steps and reads its outputs: the three calls above, in that
    /// order, with their errors ([`StepIo`]). A module whose calls are costly to reach may
    /// make them in one go; the default makes them one by one.
    fn step_with_io(&mut self, io: &mut StepIo<'_>) -> StepIoResult {
        super::step_io::one_by_one(self, io)
    }

    /// `fmi3Terminate`.
    fn terminate(&mut self) -> Result<(), ModuleError> {
        Ok(())
    }

    /// `fmi3Reset`: back to the freshly instantiated state with start values.
    fn reset(&mut self) -> Result<(), ModuleError>;

    /// `canGetAndSetFMUState`.
    fn state_snapshot(&mut self) -> Option<&mut dyn StateSnapshot> {
        None
    }

    /// `providesDirectionalDerivatives`.
    fn directional_derivatives(&mut self) -> Option<&mut dyn DirectionalDerivatives> {
        None
    }

    /// `maxOutputDerivativeOrder > 0`.
    fn output_derivatives(&mut self) -> Option<&mut dyn OutputDerivatives> {
        None
    }

    /// Extension `x-maxInputDerivativeOrder > 0`.
    fn input_derivatives(&mut self) -> Option<&mut dyn InputDerivatives> {
        None
    }

    /// `hasEventMode`.
    fn event_mode(&mut self) -> Option<&mut dyn EventMode> {
        None
    }

    /// The String and Binary outputs (of binary modules) as read at the last
    /// communication point: recorded with the outputs, never connected.
    fn text_outputs(&self) -> &[super::TextOutput] {
        &[]
    }

    /// Extension `x-providesMidpointOutputs`.
    fn midpoint_outputs(&mut self) -> Option<&mut dyn MidpointOutputs> {
        None
    }

    /// Extension `x-exposesEquations`.
    fn exposed_equations(&mut self) -> Option<&mut dyn ExposedEquations> {
        None
    }
}

/// An opaque saved module state (`fmi3FMUState`). Built-in modules store a plain value;
/// binary modules store the handle their `fmi3GetFMUState` returned. `Send`, like the
/// modules that save it.
pub struct ModuleState(pub Box<dyn Any + Send>);

impl ModuleState {
    /// A state holding `value`.
    pub fn new<T: Any + Send>(value: T) -> Self {
        ModuleState(Box::new(value))
    }

    /// A slot that holds no module's state yet (no allocation): the first
    /// [`StateSnapshot::save_state_into`] fills it.
    pub fn empty() -> Self {
        ModuleState(Box::new(()))
    }

    /// The saved value, if it is a `T`.
    pub fn downcast_ref<T: Any>(&self) -> Option<&T> {
        self.0.downcast_ref()
    }

    /// The saved value to overwrite in place, if it is a `T`.
    pub fn downcast_mut<T: Any>(&mut self) -> Option<&mut T> {
        self.0.downcast_mut()
    }
}

impl Default for ModuleState {
    fn default() -> Self {
        Self::empty()
    }
}

impl core::fmt::Debug for ModuleState {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("ModuleState(..)")
    }
}

/// `fmi3GetFMUState` / `fmi3SetFMUState` / (de)serialisation: rollback.
pub trait StateSnapshot {
    /// `fmi3GetFMUState` into a new state: the full state, including inputs and parameters
    /// (FMI 3.0).
    fn get_state(&mut self) -> Result<ModuleState, ModuleError>;
    /// `fmi3GetFMUState` into `slot`, overwriting what it holds. When `slot` holds a state
    /// this module saved, its storage is reused (FMI: a non-NULL `*FMUState` is
    /// overwritten), so a driver that saves every step allocates only the first time.
    /// The default saves a new state.
    fn save_state_into(&mut self, slot: &mut ModuleState) -> Result<(), ModuleError> {
        *slot = self.get_state()?;
        Ok(())
    }
    /// `fmi3SetFMUState`: continue from `state`; `state` may be restored again later.
    fn set_state(&mut self, state: &ModuleState) -> Result<(), ModuleError>;
    /// `fmi3SerializeFMUState` (only with `canSerializeFMUState`).
    fn serialize_state(&mut self, state: &ModuleState) -> Result<Vec<u8>, ModuleError>;
    /// `fmi3DeserializeFMUState`.
    fn deserialize_state(&mut self, bytes: &[u8]) -> Result<ModuleState, ModuleError>;
}

/// `fmi3GetDirectionalDerivative`: instantaneous derivatives of outputs and `der(x)` with
/// respect to inputs and exposed states at the current point, not step sensitivities.
pub trait DirectionalDerivatives {
    /// Writes `p.sensitivity = J(p.unknowns, p.knowns) · p.seed`.
    fn directional_derivative(&mut self, p: JacobianProduct<'_>) -> Result<(), ModuleError>;
}

/// `fmi3GetOutputDerivatives`: time derivatives of outputs at the module's current time.
pub trait OutputDerivatives {
    /// Writes `d.values[i]`, the `d.orders[i]`-th derivative (1 ≤ order ≤ max) of output
    /// `d.vrs[i]`.
    fn get_output_derivatives(&mut self, d: Derivatives<'_, &mut [f64]>)
        -> Result<(), ModuleError>;
}

/// Extension `x-maxInputDerivativeOrder` (FMI 2.0 `fmi2SetRealInputDerivatives`
/// semantics): the input over the next step is the Taylor polynomial
/// `u(t + s) = Σ_k u^(k) s^k / k!` anchored at the next `do_step`'s communication point.
/// Derivatives not set since the last step are zero.
pub trait InputDerivatives {
    /// Stores `d.values[i]`, the `d.orders[i]`-th derivative (≥ 1) of input `d.vrs[i]`.
    fn set_input_derivatives(&mut self, d: Derivatives<'_, &[f64]>) -> Result<(), ModuleError>;
}

/// Extension `x-providesMidpointOutputs`: the outputs at `t + h/2` of the last completed
/// `do_step(t, h)`, sampled inside that step without changing it (the defect estimate of
/// docs/methods.md §15 needs them; splitting the step in two would change the integration).
pub trait MidpointOutputs {
    /// Writes `values[i]`, output `vrs[i]` at the midpoint of the last completed step.
    fn get_midpoint_outputs(
        &mut self,
        vrs: &[ValueRef],
        values: &mut [f64],
    ) -> Result<(), ModuleError>;
}

/// Extension `x-exposesEquations`: the module's equations `x' = f(t, x, u)`,
/// `y = g(t, x, u)`, evaluated at any point without changing the module, so a master can
/// integrate the coupled equations as one system (the monolithic reference of
/// docs/methods.md §10.7). `x` is in the order of the module's states, `u` and `y` in the
/// order of its inputs and outputs ([`super::ModuleDescription::inputs`], `outputs`).
/// Parameters are the module's current ones.
pub trait ExposedEquations {
    /// Number of continuous states `x`.
    fn state_count(&self) -> usize;
    /// Writes the current states into `x` (the start values before the first step).
    fn current_states(&self, x: &mut [f64]);
    /// Writes `dx = f(t, x, u)`.
    fn rhs(&mut self, t: f64, x: &[f64], u: &[f64], dx: &mut [f64]) -> Result<(), ModuleError>;
    /// Writes `y = g(t, x, u)`.
    fn outputs(&mut self, t: f64, x: &[f64], u: &[f64], y: &mut [f64]) -> Result<(), ModuleError>;
    /// Whether the equations are stiff (the module integrates them with a stiff method), so
    /// whoever integrates them again, e.g. a monolithic reference, should use one too.
    fn stiff(&self) -> bool {
        false
    }
}

/// Result of `fmi3UpdateDiscreteStates`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DiscreteStatesUpdate {
    /// Call `update_discrete_states` again.
    pub discrete_states_need_update: bool,
    /// The module asks to end the simulation.
    pub terminate_simulation: bool,
    /// Next time event, if known.
    pub next_event_time: Option<f64>,
}

/// `hasEventMode`: Event Mode entry, event iteration, return to Step Mode.
pub trait EventMode {
    /// `fmi3EnterEventMode`.
    fn enter_event_mode(&mut self) -> Result<(), ModuleError>;
    /// `fmi3UpdateDiscreteStates`.
    fn update_discrete_states(&mut self) -> Result<DiscreteStatesUpdate, ModuleError>;
    /// `fmi3EnterStepMode`.
    fn enter_step_mode(&mut self) -> Result<(), ModuleError>;
}
