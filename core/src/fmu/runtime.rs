//! The wasm32 sandbox a binary module runs in: a `wasmi` store with fuel metering and a
//! memory limit, the WASI preview1 imports C code compiled with `wasi-libc` needs, the
//! `fmi3LogMessageCallback` host function, and typed calls into the module's exports with
//! every failure (trap, fuel exhausted, `proc_exit`) mapped to a [`ModuleError`].
//!
//! Determinism matters more than realism here: the clock always reads 0 and `random_get`
//! is a fixed xorshift sequence, so one `.fmu` gives identical numbers in the CLI and in
//! the page's worker (wasmi's `deterministic` feature canonicalises NaNs as well).

use super::budget::{Limiter, MemoryBudget};
use super::wasi::{caller_memory, define_stubs, define_wasi, read_cstr};
use super::wasi_fs::ResourceTree;
use super::FmuError;
use crate::module::{ModuleError, ModuleErrorKind, Status};
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use wasmi::{
    Caller, Config, Engine, Func, FuncType, Instance, Linker, Memory, Module, Ref, Store, TrapCode,
    TypedFunc, ValType, WasmParams, WasmResults,
};

/// Resource limits of one binary-module instance.
#[derive(Clone, Debug, PartialEq)]
pub struct RuntimeLimits {
    /// Wasm instructions (wasmi fuel units) one FMI call may execute before it is stopped
    /// with an "out of fuel" trap. Default 10⁹: a few seconds natively, so an endless
    /// loop ends with a clear error instead of hanging the CLI or the page's worker.
    /// Host work (WASI calls) is charged to it too.
    pub fuel_per_call: u64,
    /// Instructions all calls of the instance may execute together: the deadline of a
    /// module that is merely slow in every call. Default 10¹¹ (minutes natively).
    pub fuel_per_run: u64,
    /// Largest linear memory of the module, all its memories together, in bytes.
    /// Default 256 MiB.
    pub max_memory_bytes: usize,
    /// Largest table, in elements. Default 2²⁰.
    pub max_table_elements: usize,
    /// The budget this module's memories and tables are charged to, shared with other
    /// modules. Default: the process's ([`MemoryBudget::process`], 256 MiB).
    pub budget: MemoryBudget,
    /// The log (WASI `fd_write` and `logMessage`) keeps its last this many bytes.
    /// Default 64 KiB.
    pub max_log_bytes: usize,
}

impl Default for RuntimeLimits {
    fn default() -> Self {
        RuntimeLimits {
            fuel_per_call: 1_000_000_000,
            fuel_per_run: 100_000_000_000,
            max_memory_bytes: 256 << 20,
            max_table_elements: 1 << 20,
            budget: MemoryBudget::process(),
            max_log_bytes: 64 << 10,
        }
    }
}

/// Host-side state the imports see.
pub(crate) struct Host {
    log: String,
    max_log: usize,
    limiter: Limiter,
    pub(super) rng: u64,
    /// The `.fmu`'s `resources/` folder and the files the module opened.
    pub(super) fs: ResourceTree,
    /// A write the module attempted during the current call (it fails the call).
    refused: Option<String>,
}

impl Host {
    /// Bytes of log kept.
    pub(super) fn max_log(&self) -> usize {
        self.max_log
    }

    /// Records a refused write; the FMI call in progress then fails with `message`.
    pub(super) fn refuse(&mut self, message: String) {
        self.append(&format!("[host] {message}\n"));
        self.refused.get_or_insert(message);
    }

    pub(super) fn append(&mut self, text: &str) {
        self.log.push_str(text);
        if self.log.len() > self.max_log {
            let mut cut = self.log.len() - self.max_log;
            while !self.log.is_char_boundary(cut) {
                cut += 1;
            }
            self.log.drain(..cut);
        }
    }
}

/// A loaded, instantiated wasm module.
pub(crate) struct Runtime {
    store: Store<Host>,
    instance: Instance,
    memory: Memory,
    malloc: TypedFunc<i32, i32>,
    free: TypedFunc<i32, ()>,
    fuel_per_call: u64,
    /// What is left of `RuntimeLimits::fuel_per_run`.
    fuel_left: u64,
    fuel_per_run: u64,
    /// Table index of the host `logMessage` function, 0 (NULL) without an exported table.
    pub log_callback: i32,
    scratch: (u32, usize),
}

/// `(i32, f64) -> i32` style text of a function type.
pub fn signature(params: &[ValType], results: &[ValType]) -> String {
    let names = |t: &[ValType]| {
        t.iter()
            .map(|v| format!("{v:?}").to_lowercase())
            .collect::<Vec<_>>()
            .join(", ")
    };
    match results {
        [] => format!("({})", names(params)),
        _ => format!("({}) -> {}", names(params), names(results)),
    }
}

impl Runtime {
    /// Validates, links and instantiates `wasm` with `resources` as its file system; calls
    /// `_initialize` (WASI reactors) if exported.
    pub fn load(
        wasm: &[u8],
        limits: RuntimeLimits,
        resources: ResourceTree,
    ) -> Result<Self, FmuError> {
        let mut config = Config::default();
        config.consume_fuel(true);
        let engine = Engine::new(&config);
        let module = Module::new(&engine, wasm).map_err(|e| FmuError::Wasm(e.to_string()))?;
        let host = Host {
            log: String::new(),
            max_log: limits.max_log_bytes,
            limiter: Limiter::new(
                limits.budget.clone(),
                limits.max_memory_bytes,
                limits.max_table_elements,
            ),
            rng: 0x9E37_79B9_7F4A_7C15,
            fs: resources,
            refused: None,
        };
        let mut store = Store::new(&engine, host);
        store.limiter(|h| &mut h.limiter);
        let mut linker = Linker::new(&engine);
        define_wasi(&mut linker).map_err(|e| FmuError::UnsupportedImport(e.to_string()))?;
        define_stubs(&mut linker, &module)?;
        store
            .set_fuel(limits.fuel_per_call)
            .map_err(|e| FmuError::Wasm(e.to_string()))?;
        let instance =
            linker
                .instantiate_and_start(&mut store, &module)
                .map_err(|e| match store.data_mut().limiter.denied.take() {
                    Some(why) => FmuError::Limit(why),
                    None if e.as_trap_code().is_some() => FmuError::Trap(e.to_string()),
                    None => FmuError::Wasm(e.to_string()),
                })?;
        let memory =
            instance
                .get_memory(&store, "memory")
                .ok_or_else(|| FmuError::MissingExport {
                    name: "memory".into(),
                    needed_by:
                        "every call: arrays and strings are passed through the module's memory"
                            .into(),
                })?;
        let alloc_need = "passing arrays and strings (export malloc and free)";
        let malloc = typed(&store, &instance, "malloc", Some(alloc_need))?
            .ok_or_else(|| FmuError::Wasm("malloc".into()))?;
        let free = typed(&store, &instance, "free", Some(alloc_need))?
            .ok_or_else(|| FmuError::Wasm("free".into()))?;
        let mut rt = Runtime {
            store,
            instance,
            memory,
            malloc,
            free,
            fuel_per_call: limits.fuel_per_call,
            fuel_left: limits.fuel_per_run,
            fuel_per_run: limits.fuel_per_run,
            log_callback: 0,
            scratch: (0, 0),
        };
        if let Some(init) = typed::<(), ()>(&rt.store, &rt.instance, "_initialize", None)? {
            rt.call("_initialize", &init, ())
                .map_err(|e| FmuError::Trap(e.to_string()))?;
        }
        rt.log_callback = rt.install_log_callback();
        Ok(rt)
    }

    /// Puts the host `logMessage(env, status, category, message)` into the exported
    /// function table (`--export-table`, growable); 0 (NULL) if there is none.
    fn install_log_callback(&mut self) -> i32 {
        let Some(table) = self
            .instance
            .get_table(&self.store, "__indirect_function_table")
        else {
            return 0;
        };
        let f = Func::wrap(
            &mut self.store,
            |mut c: Caller<'_, Host>, _env: i32, status: i32, category: i32, message: i32| {
                let Some(m) = caller_memory(&c) else { return };
                let (data, host) = m.data_and_store_mut(&mut c);
                let level = ["OK", "Warning", "Discard", "Error", "Fatal"]
                    .get(status as usize)
                    .copied()
                    .unwrap_or("?");
                let line = format!(
                    "[{level}] {}: {}\n",
                    read_cstr(data, category),
                    read_cstr(data, message)
                );
                host.append(&line);
            },
        );
        match table.grow(&mut self.store, 1, Ref::Func(wasmi::Nullable::Val(f))) {
            Ok(index) => i32::try_from(index).unwrap_or(0),
            Err(_) => 0,
        }
    }

    /// The export `name` with type `P -> R`: `Ok(None)` if absent and `needed_by` is
    /// `None`, an error if absent but needed or present with another type.
    pub fn func<P: WasmParams, R: WasmResults>(
        &self,
        name: &str,
        needed_by: Option<&str>,
    ) -> Result<Option<TypedFunc<P, R>>, FmuError> {
        typed(&self.store, &self.instance, name, needed_by)
    }

    /// Calls `f` with a fresh fuel budget; traps, fuel exhaustion and `proc_exit` become
    /// `Fatal` [`ModuleErrorKind::Trap`] errors naming the FMI call.
    pub fn call<P: WasmParams, R: WasmResults>(
        &mut self,
        call: &'static str,
        f: &TypedFunc<P, R>,
        params: P,
    ) -> Result<R, ModuleError> {
        let given = self.fuel_per_call.min(self.fuel_left);
        let _ = self.store.set_fuel(given);
        self.store.data_mut().refused = None;
        let result = f.call(&mut self.store, params);
        let used = given.saturating_sub(self.store.get_fuel().unwrap_or(0));
        self.fuel_left = self.fuel_left.saturating_sub(used);
        if let Some(refused) = self.store.data_mut().refused.take() {
            return Err(ModuleError {
                status: Status::Error,
                kind: ModuleErrorKind::Refused(format!("{call}: {refused}")),
            });
        }
        result.map_err(|e| {
            let what = match (e.as_trap_code(), e.i32_exit_status()) {
                (Some(TrapCode::OutOfFuel), _) if given < self.fuel_per_call => format!(
                    "{call} was stopped: the module has used its {} wasm instructions for the \
                     whole run (too slow in every call?); the budget is \
                     RuntimeLimits::fuel_per_run",
                    self.fuel_per_run
                ),
                (Some(TrapCode::OutOfFuel), _) => format!(
                    "{call} did not return within {} wasm instructions (endless loop?); the budget \
                     per call is RuntimeLimits::fuel_per_call",
                    self.fuel_per_call
                ),
                (_, Some(code)) => format!("{call} called proc_exit({code})"),
                _ => format!("{call}: {e}"),
            };
            let tail = self.log_tail(5);
            let msg = if tail.is_empty() {
                what
            } else {
                format!("{what}; module log: {tail}")
            };
            ModuleError {
                status: Status::Fatal,
                kind: ModuleErrorKind::Trap(msg),
            }
        })
    }

    /// A scratch buffer of at least `len` bytes in module memory (8-byte aligned offsets
    /// are the caller's business); reallocated through `malloc` only when it must grow.
    pub fn scratch(&mut self, len: usize) -> Result<u32, ModuleError> {
        if self.scratch.1 < len {
            if self.scratch.0 != 0 {
                let (free, old) = (self.free, self.scratch.0 as i32);
                self.call("free", &free, old)?;
                self.scratch = (0, 0);
            }
            let cap = len.max(256).next_power_of_two();
            let ptr = self.malloc(cap)?;
            self.scratch = (ptr, cap);
        }
        Ok(self.scratch.0)
    }

    /// `malloc(len)`, failing on NULL.
    pub fn malloc(&mut self, len: usize) -> Result<u32, ModuleError> {
        let n = i32::try_from(len)
            .map_err(|_| ModuleError::invalid("allocation too large for wasm32"))?;
        let malloc = self.malloc;
        let ptr = self.call("malloc", &malloc, n)?;
        if ptr == 0 {
            return Err(ModuleError {
                status: Status::Fatal,
                kind: ModuleErrorKind::Trap(format!("malloc({len}) returned NULL")),
            });
        }
        Ok(ptr as u32)
    }

    /// Copies `s` with a NUL terminator into freshly `malloc`ed memory (kept for the
    /// instance's lifetime: FMI lets the FMU hold on to the strings it was given).
    pub fn c_string(&mut self, s: &str) -> Result<u32, ModuleError> {
        let ptr = self.malloc(s.len() + 1)?;
        let mut bytes = s.as_bytes().to_vec();
        bytes.push(0);
        self.write(ptr, &bytes)?;
        Ok(ptr)
    }

    /// Writes `bytes` at `ptr` in module memory.
    pub fn write(&mut self, ptr: u32, bytes: &[u8]) -> Result<(), ModuleError> {
        self.memory
            .write(&mut self.store, ptr as usize, bytes)
            .map_err(|_| {
                ModuleError::invalid(format!("address {ptr:#x} is outside the module's memory"))
            })
    }

    /// Reads `out.len()` bytes at `ptr`.
    pub fn read(&self, ptr: u32, out: &mut [u8]) -> Result<(), ModuleError> {
        self.memory
            .read(&self.store, ptr as usize, out)
            .map_err(|_| {
                ModuleError::invalid(format!("address {ptr:#x} is outside the module's memory"))
            })
    }

    /// Everything the module logged so far (bounded).
    pub fn log(&self) -> &str {
        &self.store.data().log
    }

    /// The last `n` lines of the log, joined with ` | `.
    pub fn log_tail(&self, n: usize) -> String {
        let lines: Vec<&str> = self
            .log()
            .lines()
            .filter(|l| !l.trim().is_empty())
            .collect();
        lines[lines.len().saturating_sub(n)..].join(" | ")
    }
}

fn typed<P: WasmParams, R: WasmResults>(
    store: &Store<Host>,
    instance: &Instance,
    name: &str,
    needed_by: Option<&str>,
) -> Result<Option<TypedFunc<P, R>>, FmuError> {
    let expected = || {
        signature(
            &P::types().into_iter().collect::<Vec<_>>(),
            &R::types().into_iter().collect::<Vec<_>>(),
        )
    };
    let Some(export) = instance.get_export(store, name) else {
        return match needed_by {
            Some(why) => Err(FmuError::MissingExport {
                name: name.into(),
                needed_by: why.into(),
            }),
            None => Ok(None),
        };
    };
    let Some(func) = export.into_func() else {
        return Err(FmuError::WrongSignature {
            name: name.into(),
            found: "not a function".into(),
            expected: expected(),
        });
    };
    func.typed::<P, R>(store).map(Some).map_err(|_| {
        let ty: FuncType = func.ty(store);
        FmuError::WrongSignature {
            name: name.into(),
            found: signature(ty.params(), ty.results()),
            expected: expected(),
        }
    })
}
