//! The FMI 3.0 functions a binary module exports, with their wasm32 types: the C ABI of
//! `clang --target=wasm32` and `rustc --target wasm32-unknown-unknown` maps pointers,
//! `size_t`, `fmi3Boolean` (C `bool`), `fmi3Status` and `fmi3ValueReference` to `i32`,
//! and `fmi3Float64` to `f64`. `docs/modules.md` prints this table for module authors.

use super::runtime::Runtime;
use super::FmuError;
use crate::module::Capabilities;
use wasmi::TypedFunc;

/// `fmi3Instance fmi3InstantiateCoSimulation(instanceName, instantiationToken, resourcePath,
/// visible, loggingOn, eventModeUsed, earlyReturnAllowed, requiredIntermediateVariables,
/// nRequiredIntermediateVariables, instanceEnvironment, logMessage, intermediateUpdate)`.
pub type Instantiate = TypedFunc<(i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32), i32>;
/// `fmi3Status f(fmi3Instance)`: ExitInitializationMode, Terminate, Reset, EnterEventMode,
/// EnterStepMode.
pub type InstanceCall = TypedFunc<i32, i32>;
/// `fmi3EnterInitializationMode(instance, toleranceDefined, tolerance, startTime,
/// stopTimeDefined, stopTime)`.
pub type EnterInitializationMode = TypedFunc<(i32, i32, f64, f64, i32, f64), i32>;
/// `fmi3GetFloat64` / `fmi3SetFloat64(instance, vrs*, nvr, values*, nValues)`.
pub type Float64Access = TypedFunc<(i32, i32, i32, i32, i32), i32>;
/// `fmi3DoStep(instance, currentCommunicationPoint, communicationStepSize,
/// noSetFMUStatePriorToCurrentPoint, eventHandlingNeeded*, terminateSimulation*,
/// earlyReturn*, lastSuccessfulTime*)`.
pub type DoStep = TypedFunc<(i32, f64, f64, i32, i32, i32, i32, i32), i32>;
/// `void fmi3FreeInstance(instance)`.
pub type FreeInstance = TypedFunc<i32, ()>;
/// `fmi3GetFMUState(instance, state*)`, `fmi3SetFMUState(instance, state)`,
/// `fmi3FreeFMUState(instance, state*)`.
pub type StateCall = TypedFunc<(i32, i32), i32>;
/// `fmi3SerializedFMUStateSize(instance, state, size*)`.
pub type SerializedSize = TypedFunc<(i32, i32, i32), i32>;
/// `fmi3SerializeFMUState(instance, state, bytes*, size)` and
/// `fmi3DeserializeFMUState(instance, bytes*, size, state*)`.
pub type Serialize = TypedFunc<(i32, i32, i32, i32), i32>;
/// `fmi3GetDirectionalDerivative(instance, unknowns*, nUnknowns, knowns*, nKnowns, seed*,
/// nSeed, sensitivity*, nSensitivity)`.
pub type DirectionalDerivative = TypedFunc<(i32, i32, i32, i32, i32, i32, i32, i32, i32), i32>;
/// `fmi3GetOutputDerivatives(instance, vrs*, nvr, orders*, values*, nValues)`.
pub type OutputDerivatives = TypedFunc<(i32, i32, i32, i32, i32, i32), i32>;
/// `fmi3UpdateDiscreteStates(instance, discreteStatesNeedUpdate*, terminateSimulation*,
/// nominalsOfContinuousStatesChanged*, valuesOfContinuousStatesChanged*,
/// nextEventTimeDefined*, nextEventTime*)`.
pub type UpdateDiscreteStates = TypedFunc<(i32, i32, i32, i32, i32, i32, i32), i32>;

/// Every export a binary module needs, resolved and type-checked at load.
pub(crate) struct Fmi3 {
    pub instantiate: Instantiate,
    pub enter_initialization_mode: EnterInitializationMode,
    pub exit_initialization_mode: InstanceCall,
    pub set_float64: Float64Access,
    pub get_float64: Float64Access,
    pub do_step: DoStep,
    pub terminate: InstanceCall,
    pub reset: InstanceCall,
    pub free_instance: FreeInstance,
    /// `canGetAndSetFMUState`.
    pub state: Option<(StateCall, StateCall, StateCall)>,
    /// `canSerializeFMUState`: size, serialize, deserialize.
    pub serialize: Option<(SerializedSize, Serialize, Serialize)>,
    /// `providesDirectionalDerivatives`.
    pub directional_derivative: Option<DirectionalDerivative>,
    /// `maxOutputDerivativeOrder > 0`.
    pub output_derivatives: Option<OutputDerivatives>,
    /// `hasEventMode`: enter event mode, update discrete states, enter step mode.
    pub event_mode: Option<(InstanceCall, UpdateDiscreteStates, InstanceCall)>,
}

/// A required export (`Runtime::func` with `needed_by` already errs when it is absent).
fn required<T>(r: Option<T>) -> Result<T, FmuError> {
    r.ok_or_else(|| FmuError::Wasm("a required export is missing".into()))
}

pub(crate) fn resolve(rt: &Runtime, caps: &Capabilities) -> Result<Fmi3, FmuError> {
    const CORE: &str = "every co-simulation FMU";
    // The core exports first: a binary without any `fmi3*` export is reported as missing
    // fmi3InstantiateCoSimulation, not as missing whichever capability it declares.
    let instantiate = required(rt.func("fmi3InstantiateCoSimulation", Some(CORE))?)?;
    let enter_initialization_mode = required(rt.func("fmi3EnterInitializationMode", Some(CORE))?)?;
    let exit_initialization_mode = required(rt.func("fmi3ExitInitializationMode", Some(CORE))?)?;
    let set_float64 = required(rt.func("fmi3SetFloat64", Some(CORE))?)?;
    let get_float64 = required(rt.func("fmi3GetFloat64", Some(CORE))?)?;
    let do_step = required(rt.func("fmi3DoStep", Some(CORE))?)?;
    let terminate = required(rt.func("fmi3Terminate", Some(CORE))?)?;
    let reset = required(rt.func("fmi3Reset", Some(CORE))?)?;
    let free_instance = required(rt.func("fmi3FreeInstance", Some(CORE))?)?;
    let need = |flag: bool, why: &'static str| flag.then_some(why);
    let state = need(
        caps.can_get_and_set_fmu_state,
        "canGetAndSetFMUState=\"true\"",
    );
    let serialize = need(
        caps.can_serialize_fmu_state,
        "canSerializeFMUState=\"true\"",
    );
    let events = need(caps.has_event_mode, "hasEventMode=\"true\"");
    let state = match (
        rt.func("fmi3GetFMUState", state)?,
        rt.func("fmi3SetFMUState", state)?,
        rt.func("fmi3FreeFMUState", state)?,
    ) {
        (Some(g), Some(s), Some(f)) if caps.can_get_and_set_fmu_state => Some((g, s, f)),
        _ => None,
    };
    let serialize = match (
        rt.func("fmi3SerializedFMUStateSize", serialize)?,
        rt.func("fmi3SerializeFMUState", serialize)?,
        rt.func("fmi3DeserializeFMUState", serialize)?,
    ) {
        (Some(a), Some(b), Some(c)) if caps.can_serialize_fmu_state => Some((a, b, c)),
        _ => None,
    };
    let event_mode = match (
        rt.func("fmi3EnterEventMode", events)?,
        rt.func("fmi3UpdateDiscreteStates", events)?,
        rt.func("fmi3EnterStepMode", events)?,
    ) {
        (Some(a), Some(b), Some(c)) if caps.has_event_mode => Some((a, b, c)),
        _ => None,
    };
    let dd = need(
        caps.provides_directional_derivatives,
        "providesDirectionalDerivatives=\"true\"",
    );
    let od = need(
        caps.max_output_derivative_order > 0,
        "maxOutputDerivativeOrder > 0",
    );
    Ok(Fmi3 {
        instantiate,
        enter_initialization_mode,
        exit_initialization_mode,
        set_float64,
        get_float64,
        do_step,
        terminate,
        reset,
        free_instance,
        state,
        serialize,
        directional_derivative: rt
            .func("fmi3GetDirectionalDerivative", dd)?
            .filter(|_| dd.is_some()),
        output_derivatives: rt
            .func("fmi3GetOutputDerivatives", od)?
            .filter(|_| od.is_some()),
        event_mode,
    })
}
