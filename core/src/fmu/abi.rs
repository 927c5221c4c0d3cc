//! The FMI 3.0 functions a binary module exports, with their wasm32 types: the C ABI of
//! `clang --target=wasm32` and `rustc --target wasm32-unknown-unknown` maps pointers,
//! `size_t`, `fmi3Boolean` (C `bool`), `fmi3Status` and `fmi3ValueReference` to `i32`,
//! and `fmi3Float64` to `f64`. Each export is checked against its type at load and
//! then called through the engine-neutral [`ExportFn`] handle. `docs/modules.md` prints this table for module authors.

use super::runtime::{sig, Runtime};
use super::sandbox::{ExportFn, FuncSig, WasmType};
use super::FmuError;
use crate::module::Capabilities;

const I: WasmType = WasmType::I32;
const D: WasmType = WasmType::F64;

/// `fmi3Instance fmi3InstantiateCoSimulation(instanceName, instantiationToken, resourcePath,
/// visible, loggingOn, eventModeUsed, earlyReturnAllowed, requiredIntermediateVariables,
/// nRequiredIntermediateVariables, instanceEnvironment, logMessage, intermediateUpdate)`.
fn instantiate() -> FuncSig {
    sig(&[I; 12], &[I])
}
/// `fmi3Status f(fmi3Instance)`: ExitInitializationMode, Terminate, Reset, EnterEventMode,
/// EnterStepMode.
fn instance_call() -> FuncSig {
    sig(&[I], &[I])
}
/// `fmi3EnterInitializationMode(instance, toleranceDefined, tolerance, startTime,
/// stopTimeDefined, stopTime)`.
fn enter_initialization_mode() -> FuncSig {
    sig(&[I, I, D, D, I, D], &[I])
}
/// `fmi3GetFloat64` / `fmi3SetFloat64(instance, vrs*, nvr, values*, nValues)` (and every
/// other `fmi3Get/Set<Type>` of a scalar type: the values travel by pointer).
pub(crate) fn value_access() -> FuncSig {
    sig(&[I; 5], &[I])
}
/// `fmi3DoStep(instance, currentCommunicationPoint, communicationStepSize,
/// noSetFMUStatePriorToCurrentPoint, eventHandlingNeeded*, terminateSimulation*,
/// earlyReturn*, lastSuccessfulTime*)`.
fn do_step() -> FuncSig {
    sig(&[I, D, D, I, I, I, I, I], &[I])
}
/// `void fmi3FreeInstance(instance)`.
fn free_instance() -> FuncSig {
    sig(&[I], &[])
}
/// `fmi3GetFMUState(instance, state*)`, `fmi3SetFMUState(instance, state)`,
/// `fmi3FreeFMUState(instance, state*)`.
fn state_call() -> FuncSig {
    sig(&[I; 2], &[I])
}
/// `fmi3SerializedFMUStateSize(instance, state, size*)`.
fn serialized_size() -> FuncSig {
    sig(&[I; 3], &[I])
}
/// `fmi3SerializeFMUState(instance, state, bytes*, size)` and
/// `fmi3DeserializeFMUState(instance, bytes*, size, state*)`.
fn serialize_call() -> FuncSig {
    sig(&[I; 4], &[I])
}
/// `fmi3GetDirectionalDerivative(instance, unknowns*, nUnknowns, knowns*, nKnowns, seed*,
/// nSeed, sensitivity*, nSensitivity)`.
fn directional_derivative() -> FuncSig {
    sig(&[I; 9], &[I])
}
/// `fmi3GetOutputDerivatives(instance, vrs*, nvr, orders*, values*, nValues)`.
fn output_derivatives() -> FuncSig {
    sig(&[I; 6], &[I])
}
/// `fmi3UpdateDiscreteStates(instance, discreteStatesNeedUpdate*, terminateSimulation*,
/// nominalsOfContinuousStatesChanged*, valuesOfContinuousStatesChanged*,
/// nextEventTimeDefined*, nextEventTime*)`.
fn update_discrete_states() -> FuncSig {
    sig(&[I; 7], &[I])
}

/// Every export a binary module needs, resolved and type-checked at load.
pub(crate) struct Fmi3 {
    pub instantiate: ExportFn,
    pub enter_initialization_mode: ExportFn,
    pub exit_initialization_mode: ExportFn,
    pub set_float64: ExportFn,
    pub get_float64: ExportFn,
    pub do_step: ExportFn,
    pub terminate: ExportFn,
    pub reset: ExportFn,
    pub free_instance: ExportFn,
    /// `canGetAndSetFMUState`.
    pub state: Option<(ExportFn, ExportFn, ExportFn)>,
    /// `canSerializeFMUState`: size, serialize, deserialize.
    pub serialize: Option<(ExportFn, ExportFn, ExportFn)>,
    /// `providesDirectionalDerivatives`.
    pub directional_derivative: Option<ExportFn>,
    /// `maxOutputDerivativeOrder > 0`.
    pub output_derivatives: Option<ExportFn>,
    /// `hasEventMode`: enter event mode, update discrete states, enter step mode.
    pub event_mode: Option<(ExportFn, ExportFn, ExportFn)>,
}

/// A required export (`Runtime::func` with `needed_by` already errs when it is absent).
fn required<T>(r: Option<T>) -> Result<T, FmuError> {
    r.ok_or_else(|| FmuError::Wasm("a required export is missing".into()))
}

pub(crate) fn resolve(rt: &Runtime, caps: &Capabilities) -> Result<Fmi3, FmuError> {
    const CORE: &str = "every co-simulation FMU";
    // The core exports first: a binary without any `fmi3*` export is reported as missing
    // fmi3InstantiateCoSimulation, not as missing whichever capability it declares.
    let instantiate =
        required(rt.func("fmi3InstantiateCoSimulation", Some(CORE), &instantiate())?)?;
    let enter_initialization_mode = required(rt.func(
        "fmi3EnterInitializationMode",
        Some(CORE),
        &enter_initialization_mode(),
    )?)?;
    let exit_initialization_mode =
        required(rt.func("fmi3ExitInitializationMode", Some(CORE), &instance_call())?)?;
    let set_float64 = required(rt.func("fmi3SetFloat64", Some(CORE), &value_access())?)?;
    let get_float64 = required(rt.func("fmi3GetFloat64", Some(CORE), &value_access())?)?;
    let do_step = required(rt.func("fmi3DoStep", Some(CORE), &do_step())?)?;
    let terminate = required(rt.func("fmi3Terminate", Some(CORE), &instance_call())?)?;
    let reset = required(rt.func("fmi3Reset", Some(CORE), &instance_call())?)?;
    let free_instance = required(rt.func("fmi3FreeInstance", Some(CORE), &free_instance())?)?;
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
        rt.func("fmi3GetFMUState", state, &state_call())?,
        rt.func("fmi3SetFMUState", state, &state_call())?,
        rt.func("fmi3FreeFMUState", state, &state_call())?,
    ) {
        (Some(g), Some(s), Some(f)) if caps.can_get_and_set_fmu_state => Some((g, s, f)),
        _ => None,
    };
    let serialize = match (
        rt.func("fmi3SerializedFMUStateSize", serialize, &serialized_size())?,
        rt.func("fmi3SerializeFMUState", serialize, &serialize_call())?,
        rt.func("fmi3DeserializeFMUState", serialize, &serialize_call())?,
    ) {
        (Some(a), Some(b), Some(c)) if caps.can_serialize_fmu_state => Some((a, b, c)),
        _ => None,
    };
    let event_mode = match (
        rt.func("fmi3EnterEventMode", events, &instance_call())?,
        rt.func(
            "fmi3UpdateDiscreteStates",
            events,
            &update_discrete_states(),
        )?,
        rt.func("fmi3EnterStepMode", events, &instance_call())?,
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
            .func(
                "fmi3GetDirectionalDerivative",
                dd,
                &directional_derivative(),
            )?
            .filter(|_| dd.is_some()),
        output_derivatives: rt
            .func("fmi3GetOutputDerivatives", od, &output_derivatives())?
            .filter(|_| od.is_some()),
        event_mode,
    })
}
