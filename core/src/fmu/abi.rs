//! The FMI 3.0 functions a binary module exports, with their wasm32 types: the C ABI of
//! `clang --target=wasm32` and `rustc --target wasm32-unknown-unknown` maps pointers,
//! `size_t`, `fmi3Boolean` (C `bool`), `fmi3Status` and `fmi3ValueReference` to `i32`,
//! and `fmi3Float64` to `f64`. `docs/modules.md` prints this table for module authors.

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
