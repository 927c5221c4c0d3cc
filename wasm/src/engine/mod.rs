//! Binary modules on the browser's own WebAssembly engine: [`BrowserSandbox`] implements
//! the core's `Sandbox` with `WebAssembly.Module` (compiled once per distinct wasm binary
//! and kept for the worker's lifetime, or handed over already compiled by the page) and
//! `WebAssembly.Instance`; an FMI call and the copies of its arguments and results cross
//! from the page's wasm to JS once ([`call`], [`glue`]), and from there into a generated
//! wasm wrapper that does the copies with multi-memory `memory.copy` and calls the module
//! directly ([`bridge`]; JS copies on an engine without multi-memory).
//! The WASI imports call the core's one implementation (`fmu::wasi::dispatch`), so the
//! module sees the same bytes as under wasmi in the CLI.
//!
//! There is no fuel: an endless loop blocks the worker, and the page's watchdog
//! (www/js/watchdog.js) replaces a worker that stays silent and names the module. The
//! memory budget holds while the module runs: it runs rewritten so that its own growth
//! asks first ([`budget`], the core's `wasm_limits`).
//! JS objects live in this thread's registry ([`registry`]); an instance holds only its
//! index there, so it is `Send` as the core's modules must be (the worker is one thread).

mod bridge;
mod budget;
mod call;
mod glue;
mod imports;
mod memory;
mod registry;
mod sequence;

use bridge::Bridge;
use budget::Budget;
use cosim_core::fmu::sandbox::{
    self, CallError, Export, ExportFn, GuestInstance, MemoryCallError, Sandbox, SequenceKey,
    SequencedCall, WasmValue,
};
use cosim_core::fmu::wasi::WasiHost;
use cosim_core::fmu::wasm_limits;
use cosim_core::fmu::wasm_sections::{self, ExportKind};
use cosim_core::fmu::{FmuError, MemoryAccount, RuntimeLimits};
use js_sys::{Function, Reflect, WebAssembly};
use registry::{with_slot, with_slot_ref, Slot};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::{JsCast, JsValue};

pub use bridge::{bridges_live, set_call_bridge};
pub use registry::{adopt_compiled, compilations_here, compiled_modules, pending_binaries};

/// The browser's engine.
pub struct BrowserSandbox;

/// Makes the browser's engine the one the core loads binary modules into.
pub fn install() {
    // The benchmark build that compares with wasmi leaves the core's default engine.
    if cfg!(feature = "bench-wasmi") {
        return;
    }
    cosim_core::fmu::set_sandbox(&BrowserSandbox);
}

/// One instance: its index in this thread's registry, and its memory and tables charged
/// to the budget.
struct BrowserInstance {
    slot: usize,
    budget: Budget,
    /// The bridge handle and wrapper number of each function handed out (`ExportFn`
    /// index), so that a call through the bridge needs nothing from the registry unless
    /// it fails.
    direct: RefCell<Vec<Option<(u32, u32)>>>,
    /// The handle of the bridge's `seq` (several calls in one crossing).
    sequence: Option<u32>,
    /// Where a sequence's calls are laid out for `seq`.
    layout: Box<sequence::Layout>,
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
        let (module, plan) = registry::compile(wasm)?;
        let interface = wasm_sections::parse(wasm).map_err(FmuError::Wasm)?;
        let account = MemoryAccount::new(limits.budget.clone(), limits.max_memory_bytes);
        let start_rooms = (
            wasm_limits::DEFAULT_MEMORY_ROOM,
            wasm_limits::DEFAULT_BUDGET_ROOM,
        );
        let mut budget = Budget::new(
            account,
            limits.max_table_elements,
            plan.grows_tables,
            start_rooms,
        );
        // Before the engine allocates what the module declares, as wasmi's limiter does.
        budget
            .charge_declared(&plan.tables, &plan.memories)
            .map_err(FmuError::Limit)?;
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
        let globals = budget::Globals::of(&exports);
        // What a start function grew.
        let memory_now = mem.as_ref().map_or(0, budget::size_of);
        budget
            .settle(globals.as_ref(), memory_now)
            .map_err(FmuError::Limit)?;
        glue::set_page_memory(&wasm_bindgen::memory());
        let bridge = match &mem {
            Some(m) => {
                let compiled = plan.bridge.get_or_init(|| bridge::compile(&interface));
                Bridge::instantiate(compiled, &interface, &exports, m)
            }
            None => Bridge::none(),
        };
        let sequence = bridge.sequence;
        let views = glue::guest_views(mem.as_ref().map_or(&JsValue::UNDEFINED, |m| m.as_ref()));
        *memory.borrow_mut() = mem;
        let log = imports::install_log_callback(&exports, &host, &memory, &mut budget);
        if let Some(g) = &globals {
            budget.start(g);
        }
        let (log_callback, log_closure) = match log {
            Some((index, closure)) => (index, Some(closure)),
            None => (0, None),
        };
        let slot = registry::insert(Slot {
            exports,
            interface,
            views,
            funcs: Vec::new(),
            bridge,
            host,
            closures,
            log_closure,
            log_callback,
            globals,
        });
        Ok(Box::new(BrowserInstance {
            slot,
            budget,
            direct: RefCell::new(Vec::new()),
            sequence,
            layout: sequence::Layout::new(),
        }))
    }
}

impl BrowserInstance {
    /// `calls` through the bridge's `seq` when every call has a wrapper and the budget is
    /// settled (laid out again unless the layout of `key` is kept); else one call, as
    /// alone.
    fn sequence_through_bridge(
        &mut self,
        key: Option<SequenceKey>,
        calls: &mut [SequencedCall<'_>],
        statuses: &mut [i32],
    ) -> (usize, Result<(), MemoryCallError>) {
        let (Some(seq), true) = (self.sequence, self.budget.settled()) else {
            return sandbox::call_first(self, calls, statuses);
        };
        if !key.is_some_and(|key| self.layout.keeps(key)) {
            let mut numbers = [0u32; sequence::MAX_CALLS];
            let direct = self.direct.get_mut();
            let wrapped = calls.iter().zip(&mut numbers).all(|(c, n)| {
                let w = direct.get(c.f.0 as usize).copied().flatten();
                w.map(|(_, k)| *n = k).is_some()
            });
            if !(wrapped && calls.len() > 1 && sequence::fits(calls)) {
                return sandbox::call_first(self, calls, statuses);
            }
            sequence::lay_out(&numbers, calls, &mut self.layout, key);
        }
        let mut memory_now = 0;
        let layout = &mut self.layout;
        let (made, outcome) = sequence::call(seq, calls, layout, statuses, &mut memory_now);
        (made, self.settled(outcome, memory_now))
    }

    /// A bridge call's `outcome` after the budget settled what it grew (the module's
    /// memory is `memory_now` bytes after a call that returned): a growth the budget
    /// refused is the call's failure.
    fn settled(
        &mut self,
        outcome: Result<(), MemoryCallError>,
        memory_now: usize,
    ) -> Result<(), MemoryCallError> {
        let settled = match &outcome {
            Ok(()) => Some(self.budget.settle(None, memory_now)),
            Err(e) => {
                let budget = &mut self.budget;
                with_slot_ref(self.slot, |s| settle_call(budget, s, Some(e), 0))
            }
        };
        match settled {
            Some(Err(why)) => Err(MemoryCallError::Call(CallError::Limit(why))),
            _ => outcome,
        }
    }
}

/// After a call that `failed` (or not) with the module memory `memory_now` bytes: a
/// growth the budget refused trapped, and the call fails as wasmi's refusal does;
/// otherwise what the call grew is charged (after a failure the memory's size is asked
/// for: the call did not report it).
fn settle_call(
    budget: &mut Budget,
    s: &Slot,
    failed: Option<&MemoryCallError>,
    memory_now: usize,
) -> Result<(), String> {
    let now = match failed {
        Some(_) => glue::guest_size(&s.views) as usize,
        None => memory_now,
    };
    let trapped = matches!(failed, Some(MemoryCallError::Call(CallError::Trap(_))));
    let refused = match (trapped, s.globals.as_ref()) {
        (true, Some(g)) => budget.refusal(g, now),
        _ => None,
    };
    refused.map_or_else(|| budget.settle(s.globals.as_ref(), now), Err)
}

impl GuestInstance for BrowserInstance {
    fn export(&self, name: &str) -> Export {
        with_slot(self.slot, |s| {
            let Some(at) = s.interface.exports.iter().position(|(n, _)| n == name) else {
                return Export::Missing;
            };
            let kind = &s.interface.exports[at].1;
            match kind {
                ExportKind::Memory => Export::Memory,
                ExportKind::Other => Export::NotAFunction,
                ExportKind::Func(sig) => {
                    let f = Reflect::get(&s.exports, &JsValue::from_str(name))
                        .ok()
                        .and_then(|f| f.dyn_into::<Function>().ok());
                    match f {
                        Some(f) => {
                            let direct = s.bridge.wrappers.get(at).copied().flatten();
                            s.funcs.push(f);
                            self.direct.borrow_mut().push(direct);
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
        match self.call_with_memory(f, args, results, &[], &mut []) {
            Ok(()) => Ok(()),
            Err(MemoryCallError::Call(e)) => Err(e),
            // No copies were asked for.
            Err(_) => Err(CallError::Trap(String::from("no such memory range"))),
        }
    }

    fn call_with_memory(
        &mut self,
        f: ExportFn,
        args: &[WasmValue],
        results: &mut [WasmValue],
        writes: &[(u32, &[u8])],
        reads: &mut [(u32, &mut [u8])],
    ) -> Result<(), MemoryCallError> {
        // Through the bridge with the budget settled: nothing from the registry unless
        // the call fails (a trap may be the budget's refusal, which the globals record).
        let direct = self.direct.get_mut().get(f.0 as usize).copied().flatten();
        let direct = direct.map(|(h, _)| h);
        if let (Some(h), true) = (direct, self.budget.settled()) {
            let mut memory_now = 0;
            let outcome = call::call_direct(h, args, results, writes, reads, &mut memory_now);
            return self.settled(outcome, memory_now);
        }
        let budget = &mut self.budget;
        // One look into the registry per call, kept (shared) during it: the WASI imports
        // and the log callback use only what they captured, never the registry.
        with_slot_ref(self.slot, |s| {
            // The room the module may grow into now.
            if let Some(g) = &s.globals {
                budget.sync(g);
            }
            let mut memory_now = 0;
            let outcome = match s.funcs.get(f.0 as usize) {
                Some(func) => {
                    let target = call::Target {
                        views: &s.views,
                        func,
                        direct,
                    };
                    call::call(target, args, results, writes, reads, &mut memory_now)
                }
                None => Err(MemoryCallError::Call(CallError::Trap(String::from(
                    "no such export",
                )))),
            };
            settle_call(budget, s, outcome.as_ref().err(), memory_now)
                .map_err(|why| MemoryCallError::Call(CallError::Limit(why)))?;
            outcome
        })
        .unwrap_or_else(|| {
            let gone = CallError::Trap(String::from("no such export"));
            Err(MemoryCallError::Call(gone))
        })
    }

    fn call_sequence(
        &mut self,
        calls: &mut [SequencedCall<'_>],
        statuses: &mut [i32],
    ) -> (usize, Result<(), MemoryCallError>) {
        self.sequence_through_bridge(None, calls, statuses)
    }

    fn call_kept_sequence(
        &mut self,
        key: SequenceKey,
        calls: &mut [SequencedCall<'_>],
        statuses: &mut [i32],
    ) -> (usize, Result<(), MemoryCallError>) {
        self.sequence_through_bridge(Some(key), calls, statuses)
    }

    fn read(&self, ptr: u32, out: &mut [u8]) -> bool {
        with_slot_ref(self.slot, |s| call::read(&s.views, ptr, out)).unwrap_or(false)
    }

    fn write(&mut self, ptr: u32, bytes: &[u8]) -> bool {
        with_slot_ref(self.slot, |s| call::write(&s.views, ptr, bytes)).unwrap_or(false)
    }

    // Shared looks (no Rc clone): `f` works on the host state only, never the registry.
    fn with_host(&mut self, f: &mut dyn FnMut(&mut WasiHost)) {
        with_slot_ref(self.slot, |s| f(&mut s.host.borrow_mut()));
    }

    fn take_refused(&mut self) -> Option<String> {
        if !imports::take_host_called() {
            return None;
        }
        with_slot_ref(self.slot, |s| s.host.borrow_mut().take_refused()).flatten()
    }

    fn host(&self, f: &mut dyn FnMut(&WasiHost)) {
        with_slot_ref(self.slot, |s| f(&s.host.borrow()));
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
