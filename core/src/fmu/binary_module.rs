//! [`BinaryModule`]: a `.fmu` whose `binaries/wasm32/<modelIdentifier>.wasm` implements the
//! FMI 3.0 co-simulation C API, driven through [`Module`] and the capability traits its
//! `modelDescription.xml` declares. Every call copies value references and values into a
//! scratch buffer the module `malloc`ed, calls the export, and copies results back.

use super::abi::{resolve, Fmi3};
use super::archive::Archive;
use super::clocks::Clocks;
use super::model_description::{self, ModelDescription};
use super::parameters::{json_numbers, prepare, Prepared};
use super::runtime::{outside, Float64s, Runtime, RuntimeLimits};
use super::sandbox::{ExportFn, WasmValue};
use super::text_outputs::TextOutputs;
use super::typed_access::TypedFns;
use super::wasi_fs::{ResourceTree, RESOURCE_DIR};
use super::FmuError;
use crate::module::{
    DirectionalDerivatives, EventMode, InstantiateOptions, Module, ModuleDescription, ModuleError,
    ModuleErrorKind, OutputDerivatives, StateSnapshot, Status, StepIo, StepIoResult, StepReport,
    ValueRef,
};
use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::sync::atomic::{AtomicI32, Ordering};

/// A binary (wasm32) FMI 3.0 co-simulation module.
pub struct BinaryModule {
    pub(super) rt: Runtime,
    pub(super) fmi: Fmi3,
    pub(super) md: ModelDescription,
    /// Whether the archive has a `resources/` folder (mounted read-only at `/resources`).
    resource_path: bool,
    parameters: Prepared,
    /// The get/set exports of the types other than Float64 the variables use.
    pub(super) typed_fns: TypedFns,
    /// The `fmi3Instance` pointer; 0 before `fmi3InstantiateCoSimulation`.
    pub(super) instance: i32,
    /// Input and output clock ports (`clocks.rs`).
    pub(super) clocks: Clocks,
    /// String and Binary outputs as last read (`text_outputs.rs`).
    pub(super) texts: TextOutputs,
    /// Every `fmi3FMUState` this instance handed out, shared with the [`SavedState`] that
    /// holds it. One that only this list still holds was dropped: its handle is freed with
    /// `fmi3FreeFMUState` on the next call.
    pub(super) states: Vec<Arc<AtomicI32>>,
    /// The layout of a macro-step's set-step-get sequence (`step_io.rs`), once made.
    pub(super) step_plan: Option<Box<super::step_io::StepPlan>>,
}

/// An `fmi3FMUState` handle inside a [`crate::module::ModuleState`]. The handle is shared
/// with the module's list rather than queued on drop, so the state is `Send` without a
/// lock; it changes only when `fmi3GetFMUState` overwrites the state in place.
pub(super) struct SavedState(pub(super) Arc<AtomicI32>);

impl SavedState {
    pub(super) fn handle(&self) -> i32 {
        self.0.load(Ordering::Relaxed)
    }
}

/// Byte offsets of consecutive arrays, each 8-byte aligned, and the total length.
pub(super) fn layout<const N: usize>(sizes: [usize; N]) -> ([u32; N], usize) {
    let mut offsets = [0u32; N];
    let mut at = 0usize;
    for (o, s) in offsets.iter_mut().zip(sizes) {
        *o = at as u32;
        at += s.div_ceil(8) * 8;
    }
    (offsets, at.max(8))
}

pub(super) fn vr_bytes(vrs: &[ValueRef]) -> Vec<u8> {
    vrs.iter().flat_map(|v| v.0.to_le_bytes()).collect()
}

pub(super) fn f64_bytes(values: &[f64]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

pub(super) fn to_i32(n: usize) -> Result<i32, ModuleError> {
    i32::try_from(n).map_err(|_| ModuleError::invalid("array too long for wasm32"))
}

impl BinaryModule {
    /// Loads a `.fmu` archive. `parameters` are start values (by variable name) set right
    /// after `fmi3InstantiateCoSimulation` and again after every `fmi3Reset`.
    pub fn from_fmu(
        bytes: &[u8],
        parameters: &BTreeMap<String, f64>,
        limits: RuntimeLimits,
    ) -> Result<Self, FmuError> {
        Self::from_fmu_values(bytes, &json_numbers(parameters), limits)
    }

    /// [`BinaryModule::from_fmu`] with parameters of any type as JSON values (see
    /// `parameters.rs` for what each FMI type accepts).
    pub fn from_fmu_values(
        bytes: &[u8],
        parameters: &BTreeMap<String, serde_json::Value>,
        limits: RuntimeLimits,
    ) -> Result<Self, FmuError> {
        let archive = Archive::parse(bytes)?;
        let xml = archive
            .read("modelDescription.xml")?
            .ok_or_else(|| FmuError::MissingEntry("`modelDescription.xml`".into()))?;
        let xml = core::str::from_utf8(&xml).map_err(|_| FmuError::Xml("not UTF-8".into()))?;
        let md = model_description::parse(xml)?;
        let path = format!("binaries/wasm32/{}.wasm", md.model_identifier);
        let wasm = archive.read(&path)?.ok_or_else(|| {
            let found = archive.listing("binaries/", 10);
            FmuError::MissingEntry(format!(
                "`{path}` (modelIdentifier \"{}\"; the archive has {found})",
                md.model_identifier
            ))
        })?;
        let (files, present) = archive.resources()?;
        Self::load(
            md,
            &wasm,
            parameters,
            limits,
            ResourceTree::new(files, present),
        )
    }

    /// A module from an already parsed description and its wasm binary (no resources).
    pub fn from_parts(
        md: ModelDescription,
        wasm: &[u8],
        parameters: &BTreeMap<String, f64>,
        limits: RuntimeLimits,
    ) -> Result<Self, FmuError> {
        let parameters = json_numbers(parameters);
        Self::load(md, wasm, &parameters, limits, ResourceTree::default())
    }

    fn load(
        md: ModelDescription,
        wasm: &[u8],
        parameters: &BTreeMap<String, serde_json::Value>,
        limits: RuntimeLimits,
        resources: ResourceTree,
    ) -> Result<Self, FmuError> {
        let parameters = prepare(&md, parameters)?;
        let resource_path = resources.present();
        let rt = Runtime::load(wasm, limits, resources)?;
        let fmi = resolve(&rt, &md.module.capabilities)?;
        let mut types = md.ports.types();
        types.extend(md.all_variables.iter().map(|v| v.ty).filter(|t| {
            use super::VariableType::{Binary, Clock, String};
            matches!(t, String | Binary | Clock)
        }));
        let typed_fns = TypedFns::resolve(&rt, &types)?;
        let mut md = md;
        // Clocks tick only in Event Mode.
        let events = md.module.capabilities.has_event_mode;
        let keep = |ty| typed_fns.has(ty) && (ty != super::VariableType::Clock || events);
        super::typed_ports::retain_port_types(&mut md, keep);
        let clocks = Clocks::new(&md, &rt, typed_fns.has(super::VariableType::Clock))?;
        let texts = TextOutputs::new(&md, &typed_fns)?;
        Ok(BinaryModule {
            rt,
            fmi,
            resource_path,
            md,
            parameters,
            typed_fns,
            instance: 0,
            clocks,
            texts,
            states: Vec::new(),
            step_plan: None,
        })
    }

    /// The parsed `modelDescription.xml`.
    pub fn model_description(&self) -> &ModelDescription {
        &self.md
    }

    /// Everything the module wrote to stdout/stderr or through `logMessage` (bounded).
    pub fn log(&self) -> String {
        self.rt.log()
    }

    #[inline]
    pub(super) fn status(&self, call: &'static str, code: i32) -> Result<Status, ModuleError> {
        match code {
            0 => Ok(Status::Ok),
            _ => self.status_other(call, code),
        }
    }

    /// [`Self::status`] of a call that did not return `fmi3OK`.
    fn status_other(&self, call: &'static str, code: i32) -> Result<Status, ModuleError> {
        let reported = |status| ModuleError {
            status,
            kind: ModuleErrorKind::Reported {
                call,
                log: self.rt.log_tail(5),
            },
        };
        match code {
            0 => Ok(Status::Ok),
            1 => Ok(Status::Warning),
            2 => Ok(Status::Discard),
            3 => Err(reported(Status::Error)),
            4 => Err(reported(Status::Fatal)),
            other => Err(ModuleError {
                status: Status::Fatal,
                kind: ModuleErrorKind::Trap(format!(
                    "{call} returned {other}, which is not an fmi3Status"
                )),
            }),
        }
    }

    /// A call that may not be discarded: `fmi3Discard` is an error here.
    #[inline]
    pub(super) fn check(&self, call: &'static str, code: i32) -> Result<(), ModuleError> {
        match self.status(call, code)? {
            Status::Discard => Err(ModuleError {
                status: Status::Error,
                kind: ModuleErrorKind::Reported {
                    call,
                    log: format!("(fmi3Discard) {}", self.rt.log_tail(5)),
                },
            }),
            _ => Ok(()),
        }
    }

    pub(super) fn instance(&self) -> Result<i32, ModuleError> {
        match self.instance {
            0 => Err(ModuleError::invalid(
                "fmi3InstantiateCoSimulation has not been called",
            )),
            i => Ok(i),
        }
    }

    fn apply_parameters(&mut self) -> Result<(), ModuleError> {
        if !self.parameters.float64.is_empty() {
            let (vrs, values): (Vec<ValueRef>, Vec<f64>) =
                self.parameters.float64.iter().copied().unzip();
            self.set_float64_direct(&vrs, &values)?;
        }
        for k in 0..self.parameters.typed.len() {
            let (vr, values) = self.parameters.typed[k].clone();
            self.set_typed(vr, &values)?;
        }
        Ok(())
    }

    /// `fmi3SetFloat64` of Float64 scalars.
    pub(super) fn set_float64_direct(
        &mut self,
        vrs: &[ValueRef],
        values: &[f64],
    ) -> Result<(), ModuleError> {
        let f = self.fmi.set_float64;
        self.float64_call("fmi3SetFloat64", f, vrs, Float64s::Set(values))
    }

    /// `fmi3GetFloat64` of Float64 scalars.
    pub(super) fn get_float64_direct(
        &mut self,
        vrs: &[ValueRef],
        values: &mut [f64],
    ) -> Result<(), ModuleError> {
        let f = self.fmi.get_float64;
        self.float64_call("fmi3GetFloat64", f, vrs, Float64s::Get(values))
    }

    pub(super) fn read_f64s(&self, ptr: u32, out: &mut [f64]) -> Result<(), ModuleError> {
        let mut buf = alloc::vec![0u8; 8 * out.len()];
        self.rt.read(ptr, &mut buf)?;
        for (v, b) in out.iter_mut().zip(buf.chunks_exact(8)) {
            *v = f64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]);
        }
        Ok(())
    }

    pub(super) fn read_u32(&self, ptr: u32) -> Result<u32, ModuleError> {
        let mut b = [0u8; 4];
        self.rt.read(ptr, &mut b)?;
        Ok(u32::from_le_bytes(b))
    }

    /// `fmi3SetFloat64` / `fmi3GetFloat64` in one engine call ([`Runtime::float64_call`]).
    fn float64_call(
        &mut self,
        call: &'static str,
        f: ExportFn,
        vrs: &[ValueRef],
        values: Float64s<'_>,
    ) -> Result<(), ModuleError> {
        let inst = self.instance()?;
        let (code, read_outside) = self.rt.float64_call(call, f, inst, vrs, values)?;
        self.check(call, code)?;
        read_outside.map_or(Ok(()), |at| Err(outside(at)))
    }

    pub(super) fn instance_call(
        &mut self,
        call: &'static str,
        f: ExportFn,
    ) -> Result<(), ModuleError> {
        let inst = self.instance()?;
        let code = self.rt.call_i32(call, f, &[inst.into()])?;
        self.check(call, code)
    }
}

impl Module for BinaryModule {
    fn description(&self) -> &ModuleDescription {
        &self.md.module
    }

    fn instantiate(&mut self, options: InstantiateOptions) -> Result<(), ModuleError> {
        if self.instance != 0 {
            return Err(ModuleError::invalid("the module is already instantiated"));
        }
        let name = self.rt.c_string(&self.md.module.model_name)?;
        let token = self.rt.c_string(&self.md.instantiation_token)?;
        // FMI 3.0 §2.3.1: an absolute path with a trailing separator, NULL without resources.
        let resources = match self.resource_path {
            true => self.rt.c_string(&alloc::format!("{RESOURCE_DIR}/"))?,
            false => 0,
        };
        let f = self.fmi.instantiate;
        let args = [
            name as i32,
            token as i32,
            resources as i32,
            0, // visible
            0, // loggingOn
            i32::from(options.event_mode_used),
            i32::from(options.early_return_allowed),
            0, // requiredIntermediateVariables
            0,
            0, // instanceEnvironment
            self.rt.log_callback,
            0, // intermediateUpdate: not provided
        ]
        .map(WasmValue::I32);
        let inst = self.rt.call_i32("fmi3InstantiateCoSimulation", f, &args)?;
        if inst == 0 {
            return Err(ModuleError {
                status: Status::Error,
                kind: ModuleErrorKind::Reported {
                    call: "fmi3InstantiateCoSimulation (NULL)",
                    log: self.rt.log_tail(5),
                },
            });
        }
        self.instance = inst;
        self.apply_parameters()
    }

    fn enter_initialization_mode(
        &mut self,
        tolerance: Option<f64>,
        start_time: f64,
        stop_time: Option<f64>,
    ) -> Result<(), ModuleError> {
        let inst = self.instance()?;
        let f = self.fmi.enter_initialization_mode;
        let args = [
            inst.into(),
            i32::from(tolerance.is_some()).into(),
            tolerance.unwrap_or(0.0).into(),
            start_time.into(),
            i32::from(stop_time.is_some()).into(),
            stop_time.unwrap_or(0.0).into(),
        ];
        let code = self.rt.call_i32("fmi3EnterInitializationMode", f, &args)?;
        self.check("fmi3EnterInitializationMode", code)
    }

    fn exit_initialization_mode(&mut self) -> Result<(), ModuleError> {
        self.read_initial_intervals()?; // time-based clocks: asked in Initialization Mode
        let f = self.fmi.exit_initialization_mode;
        self.instance_call("fmi3ExitInitializationMode", f)?;
        self.read_text_outputs()
    }

    fn set_float64(&mut self, vrs: &[ValueRef], values: &[f64]) -> Result<(), ModuleError> {
        match self.md.ports.is_empty() {
            true => self.set_float64_direct(vrs, values),
            false => self.set_values(vrs, values),
        }
    }

    fn get_float64(&mut self, vrs: &[ValueRef], values: &mut [f64]) -> Result<(), ModuleError> {
        match self.md.ports.is_empty() {
            true => self.get_float64_direct(vrs, values),
            false => self.get_values(vrs, values),
        }
    }

    fn do_step(
        &mut self,
        t: f64,
        h: f64,
        no_set_state_prior_to_current_point: bool,
    ) -> Result<StepReport, ModuleError> {
        self.free_released()?;
        self.before_step(t, h)?;
        let inst = self.instance()?;
        // [0, 8): lastSuccessfulTime; 8, 9, 10: eventHandlingNeeded, terminateSimulation, earlyReturn.
        let p = self.rt.scratch(16)?;
        let mut io = [0u8; 16];
        io[..8].copy_from_slice(&t.to_le_bytes());
        let f = self.fmi.do_step;
        let args: [WasmValue; 8] = [
            inst.into(),
            t.into(),
            h.into(),
            i32::from(no_set_state_prior_to_current_point).into(),
            ((p + 8) as i32).into(),
            ((p + 9) as i32).into(),
            ((p + 10) as i32).into(),
            (p as i32).into(),
        ];
        let mut out = [0u8; 16];
        let (code, read_outside) = self.rt.call_with_memory(
            "fmi3DoStep",
            f,
            &args,
            &[(p, &io[..])],
            &mut [(p, &mut out[..])],
        )?;
        let report = self.step_report(t, code, read_outside, &out)?;
        self.read_text_outputs()?;
        Ok(report)
    }

    fn step_with_io(&mut self, io: &mut StepIo<'_>) -> StepIoResult {
        self.step_in_sequence(io)
    }

    fn terminate(&mut self) -> Result<(), ModuleError> {
        let f = self.fmi.terminate;
        self.instance_call("fmi3Terminate", f)
    }

    fn reset(&mut self) -> Result<(), ModuleError> {
        let f = self.fmi.reset;
        self.instance_call("fmi3Reset", f)?;
        self.clocks.clear();
        self.apply_parameters()
    }

    fn state_snapshot(&mut self) -> Option<&mut dyn StateSnapshot> {
        self.fmi.state.is_some().then_some(self as _)
    }

    fn directional_derivatives(&mut self) -> Option<&mut dyn DirectionalDerivatives> {
        let exported = self.fmi.directional_derivative.is_some();
        exported.then_some(self as _)
    }

    fn output_derivatives(&mut self) -> Option<&mut dyn OutputDerivatives> {
        self.fmi.output_derivatives.is_some().then_some(self as _)
    }

    fn event_mode(&mut self) -> Option<&mut dyn EventMode> {
        self.fmi.event_mode.is_some().then_some(self as _)
    }

    fn text_outputs(&self) -> &[crate::module::TextOutput] {
        &self.texts.values
    }
}

impl Drop for BinaryModule {
    fn drop(&mut self) {
        if self.instance != 0 {
            let _ = self.free_released();
            let f = self.fmi.free_instance;
            let _ = self
                .rt
                .call("fmi3FreeInstance", f, &[self.instance.into()], &mut []);
        }
    }
}
