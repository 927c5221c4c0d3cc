//! A binary module's instance as the FMI layer uses it, over whichever [`Sandbox`] engine
//! runs it: type-checked exports, calls with every failure (trap, fuel exhausted,
//! `proc_exit`, a refused write) mapped to a [`ModuleError`] naming the FMI call, `malloc`
//! and a scratch buffer in guest memory, and the module log.
//!
//! Determinism matters more than realism here: the clock always reads 0 and `random_get`
//! is a fixed xorshift sequence, so one `.fmu` gives identical numbers in the CLI and in
//! the page's worker.

use super::budget::MemoryBudget;
use super::sandbox::{
    sandbox, CallError, Export, ExportFn, FuncSig, GuestInstance, MemoryCallError, Sandbox,
    SequenceKey, SequencedCall, WasmType, WasmValue,
};
use super::wasi::WasiHost;
use super::wasi_fs::ResourceTree;
use super::FmuError;
use crate::module::{ModuleError, ModuleErrorKind, Status, ValueRef};
use alloc::boxed::Box;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

/// Resource limits of one binary-module instance.
#[derive(Clone, Debug, PartialEq)]
pub struct RuntimeLimits {
    /// Wasm instructions (wasmi fuel units) one FMI call may execute before it is stopped
    /// with an "out of fuel" trap. Default 10⁹: a few seconds natively, so an endless
    /// loop ends with a clear error instead of hanging the CLI. Host work (WASI calls) is
    /// charged to it too. (The browser's engine has no fuel: the page's watchdog stops a
    /// worker that stays silent instead.)
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

/// A loaded, instantiated wasm module.
pub(crate) struct Runtime {
    guest: Box<dyn GuestInstance>,
    malloc: ExportFn,
    free: ExportFn,
    fuel_per_call: u64,
    fuel_per_run: u64,
    /// Table index of the host `logMessage` function, 0 (NULL) without an exported table.
    pub log_callback: i32,
    scratch: (u32, usize),
    /// The bytes of a [`Runtime::float64_call`], kept so that a step allocates nothing.
    bytes: Vec<u8>,
}

/// The values of an `fmi3SetFloat64` (given) or an `fmi3GetFloat64` (filled).
pub(crate) enum Float64s<'a> {
    Set(&'a [f64]),
    Get(&'a mut [f64]),
}

/// The function type `params -> results`.
pub(crate) fn sig(params: &[WasmType], results: &[WasmType]) -> FuncSig {
    FuncSig::new(params, results)
}

impl Runtime {
    /// Validates, links and instantiates `wasm` with `resources` as its file system in the
    /// installed engine ([`sandbox`]); calls `_initialize` (WASI reactors) if exported.
    pub fn load(
        wasm: &[u8],
        limits: RuntimeLimits,
        resources: ResourceTree,
    ) -> Result<Self, FmuError> {
        Self::load_in(sandbox()?, wasm, limits, resources)
    }

    /// As [`Runtime::load`], in `engine`.
    pub fn load_in(
        engine: &dyn Sandbox,
        wasm: &[u8],
        limits: RuntimeLimits,
        resources: ResourceTree,
    ) -> Result<Self, FmuError> {
        use WasmType::I32;
        let host = WasiHost::new(limits.max_log_bytes, resources);
        let guest = engine.instantiate(wasm, host, &limits)?;
        if guest.export("memory") != Export::Memory {
            return Err(FmuError::MissingExport {
                name: "memory".into(),
                needed_by: "every call: arrays and strings are passed through the module's memory"
                    .into(),
            });
        }
        let alloc_need = "passing arrays and strings (export malloc and free)";
        let malloc = typed(&*guest, "malloc", Some(alloc_need), &sig(&[I32], &[I32]))?
            .ok_or_else(|| FmuError::Wasm("malloc".into()))?;
        let free = typed(&*guest, "free", Some(alloc_need), &sig(&[I32], &[]))?
            .ok_or_else(|| FmuError::Wasm("free".into()))?;
        let mut rt = Runtime {
            log_callback: guest.log_callback(),
            guest,
            malloc,
            free,
            fuel_per_call: limits.fuel_per_call,
            fuel_per_run: limits.fuel_per_run,
            scratch: (0, 0),
            bytes: Vec::new(),
        };
        // A write refused while the start function ran belongs to no FMI call.
        rt.guest.with_host(&mut |h| {
            h.take_refused();
        });
        if let Some(init) = typed(&*rt.guest, "_initialize", None, &sig(&[], &[]))? {
            rt.call("_initialize", init, &[], &mut [])
                .map_err(|e| FmuError::Trap(e.to_string()))?;
        }
        Ok(rt)
    }

    /// The export `name` of type `expected`: `Ok(None)` if absent and `needed_by` is
    /// `None`, an error if absent but needed or present with another type.
    pub fn func(
        &self,
        name: &str,
        needed_by: Option<&str>,
        expected: &FuncSig,
    ) -> Result<Option<ExportFn>, FmuError> {
        typed(&*self.guest, name, needed_by, expected)
    }

    /// Calls `f` (the FMI function `call`) with `args`, filling `results`; traps, fuel
    /// exhaustion, memory grown beyond the budget and `proc_exit` become `Fatal` [`ModuleErrorKind::Trap`] errors naming
    /// the call, a refused write an `Error` naming it.
    pub fn call(
        &mut self,
        call: &'static str,
        f: ExportFn,
        args: &[WasmValue],
        results: &mut [WasmValue],
    ) -> Result<(), ModuleError> {
        // No refusal is left over: each is taken after the call that made it, and one
        // from the start function when the module was loaded.
        let result = self.guest.call(f, args, results);
        self.refused(call)?;
        result.map_err(|e| self.trap(call, e))
    }

    /// [`Runtime::call`] of a function returning an `fmi3Status`, with its arguments and
    /// results in module memory: `writes` copied in before, `reads` copied out after, in
    /// one engine call ([`GuestInstance::call_with_memory`]). The status, and the address
    /// of a read outside the memory (reported by the caller after the status, as a
    /// separate read would have been).
    pub fn call_with_memory(
        &mut self,
        call: &'static str,
        f: ExportFn,
        args: &[WasmValue],
        writes: &[(u32, &[u8])],
        reads: &mut [(u32, &mut [u8])],
    ) -> Result<(i32, Option<u32>), ModuleError> {
        let mut out = [WasmValue::I32(0)];
        let result = self
            .guest
            .call_with_memory(f, args, &mut out, writes, reads);
        let read_outside = self.outcome(call, result)?;
        Ok((out[0].as_i32().unwrap_or(0), read_outside))
    }

    /// A call's outcome as the caller sees it: a refused write or a failure as an error
    /// naming `call`, else the address of a read outside the memory, if any.
    fn outcome(
        &mut self,
        call: &'static str,
        result: Result<(), MemoryCallError>,
    ) -> Result<Option<u32>, ModuleError> {
        self.refused(call)?;
        match result {
            Ok(()) => Ok(None),
            Err(MemoryCallError::WriteOutside(ptr)) => Err(outside(ptr)),
            Err(MemoryCallError::Call(e)) => Err(self.trap(call, e)),
            Err(MemoryCallError::ReadOutside(ptr)) => Ok(Some(ptr)),
        }
    }

    /// Makes `calls` (named `names`, laid out as every sequence with `key`) as
    /// [`GuestInstance::call_kept_sequence`] does: the number made and the last one's
    /// outcome as [`Self::call_with_memory`] gives it; `statuses` of each made. Every call
    /// before the last returned `fmi3OK` cleanly.
    pub fn call_sequence(
        &mut self,
        names: &[&'static str],
        key: SequenceKey,
        calls: &mut [SequencedCall<'_>],
        statuses: &mut [i32],
    ) -> (usize, Result<Option<u32>, ModuleError>) {
        let (made, result) = self.guest.call_kept_sequence(key, calls, statuses);
        match made.checked_sub(1).and_then(|last| names.get(last)) {
            Some(name) => (made, self.outcome(name, result)),
            None => (made, Ok(None)),
        }
    }

    /// The address [`Self::scratch`] of `len` bytes gives if it needs no (re)allocation.
    pub fn scratch_at(&self, len: usize) -> Option<u32> {
        (self.scratch.0 != 0 && self.scratch.1 >= len).then_some(self.scratch.0)
    }

    /// `fmi3SetFloat64` / `fmi3GetFloat64(instance, vrs*, nvr, values*, nValues)` with `vrs`
    /// and then the values in the scratch buffer, in one engine call. Got values are
    /// stored only when the status is fmi3OK or fmi3Warning and the read succeeded (a
    /// failed call leaves them as they were). The status, and a failed read's address.
    pub fn float64_call(
        &mut self,
        call: &'static str,
        f: ExportFn,
        instance: i32,
        vrs: &[ValueRef],
        values: Float64s<'_>,
    ) -> Result<(i32, Option<u32>), ModuleError> {
        let n = match &values {
            Float64s::Set(x) => x.len(),
            Float64s::Get(x) => x.len(),
        };
        let ([pv, px], len) = super::binary_module::layout([4 * vrs.len(), 8 * n]);
        let base = self.scratch(len)?;
        let to_i32 = super::binary_module::to_i32;
        let (vrs_at, values_at) = (base + pv, base + px);
        let args = [
            instance,
            vrs_at as i32,
            to_i32(vrs.len())?,
            values_at as i32,
            to_i32(n)?,
        ]
        .map(WasmValue::I32);
        let mut bytes = core::mem::take(&mut self.bytes);
        let split = 4 * vrs.len();
        bytes.resize(split + 8 * n, 0);
        let (vr_bytes, value_bytes) = bytes.split_at_mut(split);
        for (b, v) in vr_bytes.chunks_exact_mut(4).zip(vrs) {
            b.copy_from_slice(&v.0.to_le_bytes());
        }
        match &values {
            Float64s::Set(x) => {
                for (b, v) in value_bytes.chunks_exact_mut(8).zip(x.iter()) {
                    b.copy_from_slice(&v.to_le_bytes());
                }
            }
            Float64s::Get(_) => value_bytes.fill(0),
        }
        let outcome = match values {
            Float64s::Set(_) => {
                let writes = [(vrs_at, &*vr_bytes), (values_at, &*value_bytes)];
                self.call_with_memory(call, f, &args, &writes, &mut [])
            }
            Float64s::Get(out) => {
                let mut reads = [(values_at, &mut *value_bytes)];
                let r = self.call_with_memory(call, f, &args, &[(vrs_at, &*vr_bytes)], &mut reads);
                if let Ok((0 | 1, None)) = r {
                    for (v, b) in out.iter_mut().zip(value_bytes.chunks_exact(8)) {
                        *v = f64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]);
                    }
                }
                r
            }
        };
        self.bytes = bytes;
        outcome
    }

    /// A write the WASI host refused during `call`, as an `Error` naming the call.
    fn refused(&mut self, call: &'static str) -> Result<(), ModuleError> {
        match self.guest.take_refused() {
            Some(refused) => Err(ModuleError {
                status: Status::Error,
                kind: ModuleErrorKind::Refused(format!("{call}: {refused}")),
            }),
            None => Ok(()),
        }
    }

    /// A call that did not return normally, as a `Fatal` error naming the call.
    fn trap(&self, call: &'static str, e: CallError) -> ModuleError {
        let what = match e {
            CallError::OutOfFuel { whole_run: true } => format!(
                "{call} was stopped: the module has used its {} wasm instructions for the \
                 whole run (too slow in every call?); the budget is \
                 RuntimeLimits::fuel_per_run",
                self.fuel_per_run
            ),
            CallError::OutOfFuel { whole_run: false } => format!(
                "{call} did not return within {} wasm instructions (endless loop?); the budget \
                 per call is RuntimeLimits::fuel_per_call",
                self.fuel_per_call
            ),
            CallError::Exit(code) => format!("{call} called proc_exit({code})"),
            CallError::Limit(why) => format!("{call} was stopped: {why}"),
            CallError::Trap(e) => format!("{call}: {e}"),
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
    }

    /// [`Runtime::call`] of a function returning one `i32` (an `fmi3Status`, a pointer).
    pub fn call_i32(
        &mut self,
        call: &'static str,
        f: ExportFn,
        args: &[WasmValue],
    ) -> Result<i32, ModuleError> {
        let mut out = [WasmValue::I32(0)];
        self.call(call, f, args, &mut out)?;
        Ok(out[0].as_i32().unwrap_or(0))
    }

    /// A scratch buffer of at least `len` bytes in module memory (8-byte aligned offsets
    /// are the caller's business); reallocated through `malloc` only when it must grow.
    pub fn scratch(&mut self, len: usize) -> Result<u32, ModuleError> {
        if self.scratch.1 < len {
            if self.scratch.0 != 0 {
                let (free, old) = (self.free, self.scratch.0 as i32);
                self.call("free", free, &[old.into()], &mut [])?;
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
        let ptr = self.call_i32("malloc", self.malloc, &[n.into()])?;
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
        if self.guest.write(ptr, bytes) {
            Ok(())
        } else {
            Err(outside(ptr))
        }
    }

    /// Reads `out.len()` bytes at `ptr`.
    pub fn read(&self, ptr: u32, out: &mut [u8]) -> Result<(), ModuleError> {
        if self.guest.read(ptr, out) {
            Ok(())
        } else {
            Err(outside(ptr))
        }
    }

    /// Everything the module logged so far (bounded).
    pub fn log(&self) -> String {
        let mut log = String::new();
        self.guest.host(&mut |h| log = h.log().to_string());
        log
    }

    /// The last `n` lines of the log, joined with ` | `.
    pub fn log_tail(&self, n: usize) -> String {
        let mut tail = String::new();
        self.guest.host(&mut |h| tail = h.log_tail(n));
        tail
    }
}

pub(super) fn outside(ptr: u32) -> ModuleError {
    ModuleError::invalid(format!("address {ptr:#x} is outside the module's memory"))
}

fn typed(
    guest: &dyn GuestInstance,
    name: &str,
    needed_by: Option<&str>,
    expected: &FuncSig,
) -> Result<Option<ExportFn>, FmuError> {
    match guest.export(name) {
        Export::Missing => match needed_by {
            Some(why) => Err(FmuError::MissingExport {
                name: name.into(),
                needed_by: why.into(),
            }),
            None => Ok(None),
        },
        Export::Memory | Export::NotAFunction => Err(FmuError::WrongSignature {
            name: name.into(),
            found: "not a function".into(),
            expected: expected.to_string(),
        }),
        Export::Function(f, found) if found == *expected => Ok(Some(f)),
        Export::Function(_, found) => Err(FmuError::WrongSignature {
            name: name.into(),
            found: found.to_string(),
            expected: expected.to_string(),
        }),
    }
}
