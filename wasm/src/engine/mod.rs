//! Binary modules on the browser's own WebAssembly engine: [`BrowserSandbox`] implements
//! the core's `Sandbox` with `WebAssembly.Module` (compiled once per distinct wasm binary
//! and kept for the worker's lifetime, or handed over already compiled by the page),
//! `WebAssembly.Instance`, `Function.prototype.apply` and the memory's `ArrayBuffer`.
//! The WASI imports call the core's one implementation (`fmu::wasi::dispatch`), so the
//! module sees the same bytes as under wasmi in the CLI.
//!
//! There is no fuel: an endless loop blocks the worker, and the page's watchdog
//! (www/js/watchdog.js) replaces a worker that stays silent and names the module. The
//! memory budget is checked after each call ([`budget`]).
//! JS objects live in this thread's registry ([`registry`]); an instance holds only its
//! index there, so it is `Send` as the core's modules must be (the worker is one thread).

mod budget;
mod glue;
mod imports;
mod memory;
mod registry;

use cosim_core::fmu::sandbox::{
    CallError, Export, ExportFn, GuestInstance, Sandbox, WasmType, WasmValue,
};
use cosim_core::fmu::wasi::WasiHost;
use cosim_core::fmu::wasm_sections::{self, ExportKind};
use cosim_core::fmu::{FmuError, MemoryAccount, RuntimeLimits};
use js_sys::{Array, BigInt, Function, Reflect, WebAssembly};
use registry::{with_slot, with_slot_ref, Slot};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::{JsCast, JsValue};

pub use registry::{adopt_compiled, compilations_here, compiled_modules, pending_binaries};

/// The browser's engine.
pub struct BrowserSandbox;

/// Makes the browser's engine the one the core loads binary modules into.
pub fn install() {
    cosim_core::fmu::set_sandbox(&BrowserSandbox);
}

/// One instance: its index in this thread's registry, and its memory charged to the budget.
struct BrowserInstance {
    slot: usize,
    account: MemoryAccount,
}

/// The text of a thrown JS value.
fn js_message(e: &JsValue) -> String {
    if let Some(err) = e.dyn_ref::<js_sys::Error>() {
        return String::from(err.message());
    }
    e.as_string().unwrap_or_else(|| format!("{e:?}"))
}

/// A trap as wasmi words it, so that messages read the same in the CLI and the page.
fn trap_text(e: &JsValue) -> String {
    let text = js_message(e);
    let wasmi = match text.as_str() {
        "unreachable" | "unreachable executed" => "wasm `unreachable` instruction executed",
        "memory access out of bounds" => "out of bounds memory access",
        "divide by zero" | "remainder by zero" => "integer divide by zero",
        "divide result unrepresentable" => "integer overflow",
        "float unrepresentable in integer range" => "invalid conversion to integer",
        "table index is out of bounds" => "undefined element: out of bounds table access",
        "null function or function signature mismatch" => "indirect call type mismatch",
        "Maximum call stack size exceeded" => "call stack exhausted",
        _ => return text,
    };
    String::from(wasmi)
}

impl Sandbox for BrowserSandbox {
    fn instantiate(
        &self,
        wasm: &[u8],
        host: WasiHost,
        limits: &RuntimeLimits,
    ) -> Result<Box<dyn GuestInstance>, FmuError> {
        let module = registry::compile(wasm)?;
        let interface = wasm_sections::parse(wasm).map_err(FmuError::Wasm)?;
        let host = Rc::new(RefCell::new(host));
        let memory = Rc::new(RefCell::new(None));
        let (import_object, closures) = imports::build(&interface, &host, &memory)?;
        let instance = WebAssembly::Instance::new(&module, &import_object).map_err(|e| {
            if e.is_instance_of::<WebAssembly::RuntimeError>() {
                FmuError::Trap(trap_text(&e))
            } else {
                FmuError::Wasm(js_message(&e))
            }
        })?;
        let exports = instance.exports();
        let mem = Reflect::get(&exports, &JsValue::from_str("memory"))
            .ok()
            .and_then(|m| m.dyn_into::<WebAssembly::Memory>().ok());
        let mut account = MemoryAccount::new(limits.budget.clone(), limits.max_memory_bytes);
        if let Some(m) = &mem {
            budget::charge_growth(&mut account, budget::size_of(m)).map_err(FmuError::Limit)?;
        }
        *memory.borrow_mut() = mem.clone();
        let log = imports::install_log_callback(&exports, &host, &memory);
        let (log_callback, log_closure) = match log {
            Some((index, closure)) => (index, Some(closure)),
            None => (0, None),
        };
        let slot = registry::insert(Slot {
            exports,
            interface,
            memory: mem,
            funcs: Vec::new(),
            host,
            closures,
            log_closure,
            log_callback,
        });
        Ok(Box::new(BrowserInstance { slot, account }))
    }
}

fn to_js(v: WasmValue) -> JsValue {
    match v {
        WasmValue::I32(x) => JsValue::from(x),
        WasmValue::I64(x) => BigInt::from(x).into(),
        WasmValue::F32(x) => JsValue::from(f64::from(x)),
        WasmValue::F64(x) => JsValue::from(x),
    }
}

/// `v` as a value of type `ty` (a JS number, or a BigInt for i64).
pub(crate) fn from_js(v: &JsValue, ty: WasmType) -> WasmValue {
    match ty {
        WasmType::I64 => WasmValue::I64(
            v.clone()
                .dyn_into::<BigInt>()
                .ok()
                .and_then(|b| i64::try_from(b).ok())
                .unwrap_or(0),
        ),
        WasmType::F32 => WasmValue::F32(v.as_f64().unwrap_or(f64::NAN) as f32),
        WasmType::F64 => WasmValue::F64(v.as_f64().unwrap_or(f64::NAN)),
        _ => WasmValue::I32(v.as_f64().unwrap_or(0.0) as i32),
    }
}

/// Calls `func` with `args`; its result read as `result` (the type the core expects).
/// Numbers go straight through (one crossing); an i64 argument or result needs a BigInt,
/// so those calls build an argument array instead.
fn call_export(
    func: &Function,
    args: &[WasmValue],
    result: Option<WasmType>,
) -> Result<WasmValue, JsValue> {
    let numeric = |v: &WasmValue| match *v {
        WasmValue::I32(x) => Some(f64::from(x)),
        WasmValue::F32(x) => Some(f64::from(x)),
        WasmValue::F64(x) => Some(x),
        WasmValue::I64(_) => None,
    };
    let mut a = [0.0f64; 12];
    let fast = args.len() <= a.len()
        && result != Some(WasmType::I64)
        && args
            .iter()
            .zip(a.iter_mut())
            .all(|(v, slot)| numeric(v).map(|x| *slot = x).is_some());
    if fast {
        let n = args.len() as u32;
        let v = glue::call_numbers(
            func, n, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11],
        )?;
        return Ok(match result {
            Some(WasmType::F64) => WasmValue::F64(v),
            Some(WasmType::F32) => WasmValue::F32(v as f32),
            _ => WasmValue::I32(v as i32),
        });
    }
    let js_args = Array::new_with_length(args.len() as u32);
    for (k, v) in args.iter().enumerate() {
        js_args.set(k as u32, to_js(*v));
    }
    let v = func.apply(&JsValue::UNDEFINED, &js_args)?;
    Ok(from_js(&v, result.unwrap_or(WasmType::I32)))
}

impl GuestInstance for BrowserInstance {
    fn export(&self, name: &str) -> Export {
        with_slot(self.slot, |s| {
            let Some((_, kind)) = s.interface.exports.iter().find(|(n, _)| n == name) else {
                return Export::Missing;
            };
            match kind {
                ExportKind::Memory => Export::Memory,
                ExportKind::Other => Export::NotAFunction,
                ExportKind::Func(sig) => {
                    let f = Reflect::get(&s.exports, &JsValue::from_str(name))
                        .ok()
                        .and_then(|f| f.dyn_into::<Function>().ok());
                    match f {
                        Some(f) => {
                            s.funcs.push(f);
                            Export::Function(ExportFn(s.funcs.len() as u32 - 1), sig.clone())
                        }
                        None => Export::NotAFunction,
                    }
                }
            }
        })
        .unwrap_or(Export::Missing)
    }

    fn call(
        &mut self,
        f: ExportFn,
        args: &[WasmValue],
        results: &mut [WasmValue],
    ) -> Result<(), CallError> {
        // The registry stays borrowed (shared) during the call: the WASI imports and the
        // log callback use only what they captured, never the registry.
        let (outcome, memory_now) = with_slot_ref(self.slot, |s| {
            let func = s.funcs.get(f.0 as usize)?;
            let outcome = call_export(func, args, results.first().map(|r| r.ty()));
            Some((outcome, s.memory.as_ref().map(budget::size_of)))
        })
        .flatten()
        .ok_or_else(|| CallError::Trap(String::from("no such export")))?;
        // Growth beyond the budget fails the call, as wasmi's refusal does natively.
        if let Some(now) = memory_now {
            budget::charge_growth(&mut self.account, now).map_err(CallError::Limit)?;
        }
        match outcome {
            Ok(v) => {
                if let Some(slot) = results.first_mut() {
                    *slot = v;
                }
                Ok(())
            }
            Err(e) => Err(match imports::exit_code(&e) {
                Some(code) => CallError::Exit(code),
                None => CallError::Trap(trap_text(&e)),
            }),
        }
    }

    fn read(&self, ptr: u32, out: &mut [u8]) -> bool {
        with_slot_ref(self.slot, |s| {
            s.memory
                .as_ref()
                .is_some_and(|m| glue::mem_read(m, ptr, out))
        })
        .unwrap_or(false)
    }

    fn write(&mut self, ptr: u32, bytes: &[u8]) -> bool {
        with_slot_ref(self.slot, |s| {
            s.memory
                .as_ref()
                .is_some_and(|m| glue::mem_write(m, ptr, bytes))
        })
        .unwrap_or(false)
    }

    fn with_host(&mut self, f: &mut dyn FnMut(&mut WasiHost)) {
        if let Some(host) = with_slot(self.slot, |s| s.host.clone()) {
            f(&mut host.borrow_mut());
        }
    }

    fn host(&self, f: &mut dyn FnMut(&WasiHost)) {
        if let Some(host) = with_slot(self.slot, |s| s.host.clone()) {
            f(&host.borrow());
        }
    }

    fn log_callback(&self) -> i32 {
        with_slot(self.slot, |s| s.log_callback).unwrap_or(0)
    }
}

impl Drop for BrowserInstance {
    fn drop(&mut self) {
        registry::remove(self.slot);
    }
}
