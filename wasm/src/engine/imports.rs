//! The import object of a binary module in the browser: every import planned by the
//! core (`fmu::wasi::plan_import`) and answered by its one WASI implementation
//! (`fmu::wasi::dispatch`), and the host `logMessage` callback put into the module's
//! function table through a tiny trampoline module (a table holds only wasm functions).

use super::budget::Budget;
use super::call::{from_js, to_js};
use super::memory::{Guest, NoMemory};
use cosim_core::fmu::sandbox::WasmValue;
use cosim_core::fmu::wasi::{dispatch, log_message, plan_import, HostTrap, WasiHost, WASI};
use cosim_core::fmu::wasm_sections::WasmInterface;
use cosim_core::fmu::FmuError;
use js_sys::{Array, Function, Object, Reflect, Uint8Array, WebAssembly};
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use wasm_bindgen::prelude::*;

/// One WASI import function (arguments as one array: see `variadic`).
pub(super) type ImportClosure = Closure<dyn FnMut(Array) -> Result<JsValue, JsValue>>;
type SharedMemory = Rc<RefCell<Option<WebAssembly::Memory>>>;

#[wasm_bindgen(inline_js = "export function variadic(f) { return (...args) => f(args); }")]
extern "C" {
    /// A JS function passing its arguments to `f` as one array.
    fn variadic(f: &Function) -> Function;
}

/// `(module (import "h" "log" (func (param i32 i32 i32 i32))) (export "log" (func 0)))`:
/// re-exported, the JS callback becomes a wasm function a table accepts.
const TRAMPOLINE: [u8; 38] = [
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // magic, version
    0x01, 0x08, 0x01, 0x60, 0x04, 0x7f, 0x7f, 0x7f, 0x7f, 0x00, // type (i32 ×4) -> ()
    0x02, 0x09, 0x01, 0x01, b'h', 0x03, b'l', b'o', b'g', 0x00, 0x00, // import h.log
    0x07, 0x07, 0x01, 0x03, b'l', b'o', b'g', 0x00, 0x00, // export log
];

/// Whether a WASI import ran since the last time this was asked.
pub(super) fn take_host_called() -> bool {
    HOST_CALLED.swap(false, Ordering::Relaxed)
}

/// The page address of the byte that says whether a WASI import ran since it was last
/// asked: the bridge's `seq` reads it to stop after a call that ran one.
pub(super) fn host_called_flag() -> u32 {
    HOST_CALLED.as_ptr() as u32
}

/// Whether a WASI import ran since the last [`take_host_called`] (only an import can
/// refuse a write: without one, a call's refusal check needs no look at the host). A
/// static, not a thread-local, so that its page address is fixed (the worker is one
/// thread).
static HOST_CALLED: AtomicBool = AtomicBool::new(true);

/// The thrown value of `proc_exit(code)`.
fn exit_error(code: i32) -> JsValue {
    let o = Object::new();
    let _ = Reflect::set(&o, &"cosimExit".into(), &code.into());
    o.into()
}

/// The code of a `proc_exit` that ended a call.
pub(super) fn exit_code(e: &JsValue) -> Option<i32> {
    if !e.is_object() {
        return None;
    }
    Reflect::get(e, &"cosimExit".into())
        .ok()?
        .as_f64()
        .map(|c| c as i32)
}

/// The import object and the closures behind it (kept alive with the instance).
pub(super) fn build(
    interface: &WasmInterface,
    host: &Rc<RefCell<WasiHost>>,
    memory: &SharedMemory,
) -> Result<(Object, Vec<ImportClosure>), FmuError> {
    let wasi = Object::new();
    let mut closures = Vec::new();
    for import in &interface.imports {
        let plan = plan_import(&import.module, &import.name, import.func.as_ref())?;
        let params = import.func.clone().unwrap_or_default().params;
        let (host, memory) = (host.clone(), memory.clone());
        let closure: ImportClosure = Closure::wrap(Box::new(move |args: Array| {
            HOST_CALLED.store(true, Ordering::Relaxed);
            let values: Vec<WasmValue> = params
                .iter()
                .enumerate()
                .map(|(k, t)| from_js(&args.get(k as u32), *t))
                .collect();
            let memory = memory.borrow();
            let mut host = host.borrow_mut();
            let out = match memory.as_ref() {
                Some(m) => dispatch(&plan, &mut host, &mut Guest::new(m), &values),
                None => dispatch(&plan, &mut host, &mut NoMemory, &values),
            };
            match out {
                Ok(Some(v)) => Ok(to_js(v)),
                Ok(None) => Ok(JsValue::UNDEFINED),
                Err(HostTrap::Exit(code)) => Err(exit_error(code)),
                Err(HostTrap::OutOfFuel) => Err(js_sys::Error::new("out of fuel").into()),
                Err(HostTrap::Unprovided(msg)) => Err(js_sys::Error::new(&msg).into()),
            }
        }));
        let f = variadic(closure.as_ref().unchecked_ref());
        let _ = Reflect::set(&wasi, &JsValue::from_str(&import.name), &f);
        closures.push(closure);
    }
    let object = Object::new();
    let _ = Reflect::set(&object, &JsValue::from_str(WASI), &wasi);
    Ok((object, closures))
}

thread_local! {
    static TRAMPOLINE_MODULE: Option<WebAssembly::Module> =
        WebAssembly::Module::new(&Uint8Array::from(&TRAMPOLINE[..]).into()).ok();
}

/// Puts the host `logMessage(env, status, category, message)` into the exported function
/// table (growable) if the budget allows one more element (as wasmi's limiter must); its
/// index and the closure, or `None`.
#[allow(clippy::type_complexity)]
pub(super) fn install_log_callback(
    exports: &Object,
    host: &Rc<RefCell<WasiHost>>,
    memory: &SharedMemory,
    budget: &mut Budget,
) -> Option<(i32, Closure<dyn FnMut(i32, i32, i32, i32)>)> {
    let table: WebAssembly::Table = Reflect::get(exports, &"__indirect_function_table".into())
        .ok()?
        .dyn_into()
        .ok()?;
    let length = table.length() as usize;
    budget.grow_table(length, length + 1).ok()?;
    let (host, memory) = (host.clone(), memory.clone());
    let closure = Closure::wrap(Box::new(
        move |_env: i32, status: i32, category: i32, message: i32| {
            if let Some(m) = memory.borrow().as_ref() {
                log_message(
                    &mut host.borrow_mut(),
                    &Guest::new(m),
                    status,
                    category,
                    message,
                );
            }
        },
    ) as Box<dyn FnMut(i32, i32, i32, i32)>);
    let module = TRAMPOLINE_MODULE.with(Clone::clone)?;
    let h = Object::new();
    let _ = Reflect::set(&h, &"log".into(), closure.as_ref());
    let imports = Object::new();
    let _ = Reflect::set(&imports, &"h".into(), &h);
    let instance = WebAssembly::Instance::new(&module, &imports).ok()?;
    let f: Function = Reflect::get(&instance.exports(), &"log".into())
        .ok()?
        .dyn_into()
        .ok()?;
    let index = table.grow(1).ok()?;
    table.set(index, &f).ok()?;
    Some((i32::try_from(index).unwrap_or(0), closure))
}
