//! This thread's JS objects of the browser engine: the compiled `WebAssembly.Module` of
//! every distinct wasm binary seen, as `wasm_limits` rewrites it (keyed by a hash of the
//! original bytes, kept for the worker's
//! lifetime so that each runs compiled once per worker, and handed between workers by
//! the page), and the live instances, each a [`Slot`] behind the index its
//! `BrowserInstance` holds.

use super::imports::ImportClosure;
use cosim_core::fmu::archive::Archive;
use cosim_core::fmu::wasi::WasiHost;
use cosim_core::fmu::wasm_limits::{limit_growth, Limited};
use cosim_core::fmu::wasm_sections::WasmInterface;
use cosim_core::fmu::FmuError;
use cosim_core::scenario::{fmu_bytes, Scenario, BINARY_MODEL};
use js_sys::{Array, Function, Object, Reflect, Uint8Array, WebAssembly};
use std::cell::{Cell, OnceCell, RefCell};
use std::rc::Rc;
use wasm_bindgen::prelude::*;

/// A live instance's JS objects and host state.
pub(super) struct Slot {
    pub exports: Object,
    pub interface: WasmInterface,
    /// The module's memory as `glue::guest_views` caches it.
    pub views: JsValue,
    /// Exported functions handed out as `ExportFn(index)` (their bridge handles are the
    /// instance's own, `BrowserInstance::direct`).
    pub funcs: Vec<Function>,
    /// The call bridge (its wrappers released with the slot).
    pub bridge: super::bridge::Bridge,
    pub host: Rc<RefCell<WasiHost>>,
    /// The WASI import functions and the log callback: held, never read, so that the
    /// JS functions the module calls live as long as the instance.
    #[allow(dead_code)]
    pub closures: Vec<ImportClosure>,
    #[allow(dead_code)]
    pub log_closure: Option<Closure<dyn FnMut(i32, i32, i32, i32)>>,
    pub log_callback: i32,
    /// The limit globals `wasm_limits` added (`None` only if the module lost them).
    pub globals: Option<super::budget::Globals>,
}

/// What the host must know of a module rewritten by `wasm_limits` (its declared sizes).
pub(super) struct Plan {
    pub memories: Vec<u64>,
    pub tables: Vec<u64>,
    pub grows_tables: bool,
    /// The call bridge, compiled for the first instance.
    pub bridge: OnceCell<super::bridge::Compiled>,
}

thread_local! {
    static COMPILED: RefCell<Vec<(String, WebAssembly::Module)>> = const { RefCell::new(Vec::new()) };
    static PLANS: RefCell<Vec<(String, Rc<Plan>)>> = const { RefCell::new(Vec::new()) };
    static SLOTS: RefCell<Vec<Option<Slot>>> = const { RefCell::new(Vec::new()) };
    /// Binaries compiled by this thread itself (not adopted).
    static COMPILATIONS: Cell<u32> = const { Cell::new(0) };
}

/// 64-bit FNV-1a of `bytes` and their length: the cache key of a wasm binary.
fn key(bytes: &[u8]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}-{}", bytes.len())
}

/// `wasm` rewritten so that its growth asks the budget first (`wasm_limits`). A binary
/// the rewrite cannot read is compiled as it is first, so that the engine's own words
/// say what is wrong with an invalid one.
fn limited(wasm: &[u8]) -> Result<Limited, FmuError> {
    limit_growth(wasm).map_err(|why| {
        match WebAssembly::Module::new(&Uint8Array::from(wasm).into()) {
            Err(e) => FmuError::Wasm(super::js_message(&e)),
            Ok(_) => FmuError::Wasm(format!(
                "the page cannot hold this module to its memory budget: {why}"
            )),
        }
    })
}

/// The compiled module of `wasm` (rewritten by [`limited`]) and its plan, compiled now
/// (synchronously: workers may) if new.
pub(super) fn compile(wasm: &[u8]) -> Result<(WebAssembly::Module, Rc<Plan>), FmuError> {
    let k = key(wasm);
    let cached = |k: &str| {
        let plan = PLANS.with(|p| {
            let p = p.borrow();
            p.iter().find(|(key, _)| key == k).map(|(_, p)| p.clone())
        });
        let module = COMPILED.with(|c| {
            let c = c.borrow();
            c.iter().find(|(key, _)| key == k).map(|(_, m)| m.clone())
        });
        (module, plan)
    };
    if let (Some(m), Some(plan)) = cached(&k) {
        return Ok((m, plan));
    }
    let l = limited(wasm)?;
    let plan = Rc::new(Plan {
        memories: l.memories,
        tables: l.tables,
        grows_tables: l.grows_tables,
        bridge: OnceCell::new(),
    });
    PLANS.with(|p| p.borrow_mut().push((k.clone(), plan.clone())));
    // Adopted from the page: compiled there from the same rewritten bytes.
    if let (Some(m), _) = cached(&k) {
        return Ok((m, plan));
    }
    let bytes = Uint8Array::from(&l.wasm[..]);
    let module = WebAssembly::Module::new(&bytes.into())
        .map_err(|e| FmuError::Wasm(super::js_message(&e)))?;
    COMPILED.with(|c| c.borrow_mut().push((k, module.clone())));
    COMPILATIONS.with(|n| n.set(n.get() + 1));
    Ok((module, plan))
}

/// How many wasm binaries this thread compiled itself rather than adopted (the page's
/// tests check that the workers of a map compile none: the page compiles each once).
#[wasm_bindgen(js_name = compilationsHere)]
pub fn compilations_here() -> u32 {
    COMPILATIONS.with(Cell::get)
}

pub(super) fn insert(slot: Slot) -> usize {
    SLOTS.with(|s| {
        let mut slots = s.borrow_mut();
        match slots.iter().position(Option::is_none) {
            Some(k) => {
                slots[k] = Some(slot);
                k
            }
            None => {
                slots.push(Some(slot));
                slots.len() - 1
            }
        }
    })
}

pub(super) fn remove(k: usize) {
    // Taken out first: dropping the closures must not happen inside the borrow.
    let slot = SLOTS.with(|s| s.borrow_mut().get_mut(k).and_then(Option::take));
    drop(slot);
}

/// `f` on the slot `k`, borrowed shared, so that a nested shared borrow (a call that
/// reads memory while another call is on the stack) is allowed (`None` if it is gone).
pub(super) fn with_slot_ref<R>(k: usize, f: impl FnOnce(&Slot) -> R) -> Option<R> {
    SLOTS.with(|s| s.borrow().get(k).and_then(Option::as_ref).map(f))
}

/// `f` on the slot `k` (`None` if it is gone).
pub(super) fn with_slot<R>(k: usize, f: impl FnOnce(&mut Slot) -> R) -> Option<R> {
    SLOTS.with(|s| s.borrow_mut().get_mut(k).and_then(Option::as_mut).map(f))
}

/// The wasm binaries of `scenario`'s binary modules that this thread has not compiled:
/// `[{key, bytes}]`, for the page to compile asynchronously (the main thread may not
/// compile large modules synchronously) and hand back through [`adopt_compiled`].
#[wasm_bindgen(js_name = pendingBinaries)]
pub fn pending_binaries(scenario: &str) -> Array {
    let out = Array::new();
    let Ok(s) = serde_json::from_str::<Scenario>(scenario) else {
        return out;
    };
    for m in s.modules.iter().filter(|m| m.model == BINARY_MODEL) {
        let Some(bytes) = m.source.as_deref().and_then(|src| fmu_bytes(src).ok()) else {
            continue;
        };
        let Some(wasm) = wasm_of(&bytes) else {
            continue;
        };
        let k = key(&wasm);
        if COMPILED.with(|c| c.borrow().iter().any(|(key, _)| *key == k)) {
            continue;
        }
        // The rewritten bytes (a binary that cannot be rewritten is left to this thread,
        // whose compilation then says why).
        let Ok(l) = limit_growth(&wasm) else {
            continue;
        };
        let entry = Object::new();
        let _ = Reflect::set(&entry, &"key".into(), &k.into());
        let _ = Reflect::set(&entry, &"bytes".into(), &Uint8Array::from(&l.wasm[..]));
        out.push(&entry);
    }
    out
}

/// The wasm binary of a `.fmu` archive, if it has one where the core looks.
fn wasm_of(fmu: &[u8]) -> Option<Vec<u8>> {
    let archive = Archive::parse(fmu).ok()?;
    let xml = archive.read("modelDescription.xml").ok()??;
    let md = cosim_core::fmu::model_description::parse(std::str::from_utf8(&xml).ok()?).ok()?;
    archive
        .read(&format!("binaries/wasm32/{}.wasm", md.model_identifier))
        .ok()?
}

/// Adds a module compiled elsewhere (by the page, or another worker) under `key`.
#[wasm_bindgen(js_name = adoptCompiled)]
pub fn adopt_compiled(key: String, module: WebAssembly::Module) {
    COMPILED.with(|c| {
        let mut c = c.borrow_mut();
        if !c.iter().any(|(k, _)| *k == key) {
            c.push((key, module));
        }
    });
}

/// Every module this thread compiled or adopted: `[{key, module}]` (a
/// `WebAssembly.Module` can be posted to other workers).
#[wasm_bindgen(js_name = compiledModules)]
pub fn compiled_modules() -> Array {
    COMPILED.with(|c| {
        c.borrow()
            .iter()
            .map(|(k, m)| {
                let entry = Object::new();
                let _ = Reflect::set(&entry, &"key".into(), &k.into());
                let _ = Reflect::set(&entry, &"module".into(), m);
                JsValue::from(entry)
            })
            .collect()
    })
}
