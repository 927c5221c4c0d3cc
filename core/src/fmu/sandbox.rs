//! The host trait between the core and a WebAssembly engine. A binary module's wasm runs
//! in a [`Sandbox`] (natively and in tests the `wasmi` interpreter, feature `wasmi`; in
//! the page the browser's own `WebAssembly`, in `cosim-wasm`), and the core drives it only
//! through [`GuestInstance`]: call an export with i32/i64/f32/f64 arguments, read and
//! write guest memory. The WASI imports are the same code for every engine
//! ([`super::wasi::dispatch`] over [`GuestMemory`]), so both give the same bytes.

use super::runtime::RuntimeLimits;
use super::wasi::WasiHost;
use super::FmuError;
use alloc::boxed::Box;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

/// A wasm value type (the four numeric ones; the others only appear in messages).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)] // the wasm type names
pub enum WasmType {
    I32,
    I64,
    F32,
    F64,
    V128,
    FuncRef,
    ExternRef,
}

impl fmt::Display for WasmType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            WasmType::I32 => "i32",
            WasmType::I64 => "i64",
            WasmType::F32 => "f32",
            WasmType::F64 => "f64",
            WasmType::V128 => "v128",
            WasmType::FuncRef => "funcref",
            WasmType::ExternRef => "externref",
        })
    }
}

/// An argument or result of a call into the guest.
#[derive(Clone, Copy, Debug, PartialEq)]
#[allow(missing_docs)] // one variant per numeric type
pub enum WasmValue {
    I32(i32),
    I64(i64),
    F32(f32),
    F64(f64),
}

impl WasmValue {
    /// Its type.
    pub fn ty(self) -> WasmType {
        match self {
            WasmValue::I32(_) => WasmType::I32,
            WasmValue::I64(_) => WasmType::I64,
            WasmValue::F32(_) => WasmType::F32,
            WasmValue::F64(_) => WasmType::F64,
        }
    }

    /// The zero of `ty` (`None` for the non-numeric types).
    pub fn zero(ty: WasmType) -> Option<WasmValue> {
        match ty {
            WasmType::I32 => Some(WasmValue::I32(0)),
            WasmType::I64 => Some(WasmValue::I64(0)),
            WasmType::F32 => Some(WasmValue::F32(0.0)),
            WasmType::F64 => Some(WasmValue::F64(0.0)),
            _ => None,
        }
    }

    /// The value as i32 (an `i32` value only).
    pub fn as_i32(self) -> Option<i32> {
        match self {
            WasmValue::I32(v) => Some(v),
            _ => None,
        }
    }

    /// The value as i64 (an `i64` value only).
    pub fn as_i64(self) -> Option<i64> {
        match self {
            WasmValue::I64(v) => Some(v),
            _ => None,
        }
    }
}

impl From<i32> for WasmValue {
    fn from(v: i32) -> Self {
        WasmValue::I32(v)
    }
}

impl From<i64> for WasmValue {
    fn from(v: i64) -> Self {
        WasmValue::I64(v)
    }
}

impl From<f32> for WasmValue {
    fn from(v: f32) -> Self {
        WasmValue::F32(v)
    }
}

impl From<f64> for WasmValue {
    fn from(v: f64) -> Self {
        WasmValue::F64(v)
    }
}

/// A function type.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct FuncSig {
    /// Parameter types, in order.
    pub params: Vec<WasmType>,
    /// Result types, in order.
    pub results: Vec<WasmType>,
}

impl FuncSig {
    /// `params -> results`.
    pub fn new(params: &[WasmType], results: &[WasmType]) -> Self {
        FuncSig {
            params: params.to_vec(),
            results: results.to_vec(),
        }
    }
}

impl fmt::Display for FuncSig {
    /// `(i32, f64) -> i32`, or `(i32)` without results.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names = |t: &[WasmType]| {
            t.iter()
                .map(|v| format!("{v}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        match self.results.as_slice() {
            [] => write!(f, "({})", names(&self.params)),
            r => write!(f, "({}) -> {}", names(&self.params), names(r)),
        }
    }
}

/// An exported function of one instance, as its engine numbers them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExportFn(pub u32);

/// What an instance exports under a name.
#[derive(Clone, Debug, PartialEq)]
pub enum Export {
    /// Nothing of that name.
    Missing,
    /// A linear memory.
    Memory,
    /// A table or global.
    NotAFunction,
    /// A function and its type.
    Function(ExportFn, FuncSig),
}

/// Why a call into the guest did not return normally.
#[derive(Clone, Debug, PartialEq)]
pub enum CallError {
    /// The call ran out of its instruction budget (engines with fuel only);
    /// `whole_run` when it was the budget of the whole run, not of the call.
    OutOfFuel {
        /// The run's budget (not the call's) was used up.
        whole_run: bool,
    },
    /// The module called WASI `proc_exit(code)`.
    Exit(i32),
    /// Any other trap, as the engine words it (e.g. "wasm `unreachable` instruction executed").
    Trap(String),
    /// The call grew the module's memory (or a table) beyond its limit or the shared
    /// budget ([`super::MemoryAccount`]'s reason): the engine refused the growth (wasmi)
    /// or saw it after the call (the browser), and the call counts as failed either way.
    Limit(String),
}

/// The first of `calls` alone, as [`GuestInstance::call_sequence`] makes it by default.
pub fn call_first<G: GuestInstance + ?Sized>(
    guest: &mut G,
    calls: &mut [SequencedCall<'_>],
    statuses: &mut [i32],
) -> (usize, Result<(), MemoryCallError>) {
    let Some(c) = calls.first_mut() else {
        return (0, Ok(()));
    };
    let mut out = [WasmValue::I32(0)];
    let r = guest.call_with_memory(c.f, c.args, &mut out, c.writes, c.reads);
    if let Some(s) = statuses.first_mut() {
        *s = out[0].as_i32().unwrap_or(0);
    }
    (1, r)
}

/// One call of [`GuestInstance::call_sequence`]: an FMI call returning its status, with
/// its copies ([`GuestInstance::call_with_memory`]).
pub struct SequencedCall<'a> {
    /// The function.
    pub f: ExportFn,
    /// Its arguments.
    pub args: &'a [WasmValue],
    /// Copied into guest memory before the call.
    pub writes: &'a [(u32, &'a [u8])],
    /// Copied out of guest memory after it.
    pub reads: &'a mut [(u32, &'a mut [u8])],
    /// The sequence goes on after this call only if the guest's 32-bit little-endian word
    /// at `.0`, masked with `.1`, is zero (`fmi3DoStep`'s flags): the address lies inside
    /// one of `reads`.
    pub go_on_if_clear: Option<(u32, u32)>,
}

/// Names a sequence's layout for [`GuestInstance::call_kept_sequence`]: one key per
/// layout ever made in this process ([`SequenceKey::new`]), so no two layouts share one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SequenceKey(u64);

impl SequenceKey {
    /// A key no other call of `new` returns.
    pub fn new() -> Self {
        use core::sync::atomic::{AtomicU64, Ordering};
        static NEXT: AtomicU64 = AtomicU64::new(0);
        SequenceKey(NEXT.fetch_add(1, Ordering::Relaxed))
    }
}

impl Default for SequenceKey {
    fn default() -> Self {
        Self::new()
    }
}

/// Why [`GuestInstance::call_with_memory`] did not complete.
#[derive(Clone, Debug, PartialEq)]
pub enum MemoryCallError {
    /// A write reached outside the memory at this address: nothing was called.
    WriteOutside(u32),
    /// The call did not return normally.
    Call(CallError),
    /// The call returned (`results` are filled) but a read reached outside the memory at
    /// this address.
    ReadOutside(u32),
}

/// The guest's linear memory as the WASI host sees it during an import call. Every
/// access is bounds-checked (`false`: the range is outside the memory).
pub trait GuestMemory {
    /// Bytes of linear memory now.
    fn size(&self) -> usize;
    /// Reads `out.len()` bytes at `ptr`.
    fn read(&self, ptr: u32, out: &mut [u8]) -> bool;
    /// Writes `bytes` at `ptr`.
    fn write(&mut self, ptr: u32, bytes: &[u8]) -> bool;
    /// Charges host work on `bytes` bytes to the call's budget; `false` when that
    /// exhausts it (the import then traps as out of fuel). Engines without fuel (the
    /// browser, guarded by the page's watchdog) accept everything.
    fn charge(&mut self, _bytes: usize) -> bool {
        true
    }
}

/// One instantiated module, driven by the core. `Send` like every module (the browser's
/// engine keeps its JS objects in its thread's registry and holds only their index).
pub trait GuestInstance: Send {
    /// The export `name`.
    fn export(&self, name: &str) -> Export;
    /// Calls `f` with `args`; fills `results` (as many as the function returns).
    fn call(
        &mut self,
        f: ExportFn,
        args: &[WasmValue],
        results: &mut [WasmValue],
    ) -> Result<(), CallError>;
    /// Writes each `(ptr, bytes)` of `writes`, calls `f`, then reads each `(ptr, out)` of
    /// `reads`: an FMI call with its arguments and results in guest memory, which an engine
    /// where every call and copy crosses into JS (the browser's) does in one crossing.
    fn call_with_memory(
        &mut self,
        f: ExportFn,
        args: &[WasmValue],
        results: &mut [WasmValue],
        writes: &[(u32, &[u8])],
        reads: &mut [(u32, &mut [u8])],
    ) -> Result<(), MemoryCallError> {
        for (ptr, bytes) in writes {
            if !self.write(*ptr, bytes) {
                return Err(MemoryCallError::WriteOutside(*ptr));
            }
        }
        self.call(f, args, results).map_err(MemoryCallError::Call)?;
        for (ptr, out) in reads.iter_mut() {
            if !self.read(*ptr, out) {
                return Err(MemoryCallError::ReadOutside(*ptr));
            }
        }
        Ok(())
    }
    /// Makes `calls` in order, each as [`Self::call_with_memory`] with its `i32` result
    /// (an `fmi3Status`) in `statuses`, and stops after a call that failed, returned a
    /// status other than 0 (`fmi3OK`), left its [`SequencedCall::go_on_if_clear`] word
    /// set, or after which the caller must look (a WASI import ran, the memory grew). The
    /// number of calls made and the last one's outcome: every call before it returned 0
    /// cleanly. The default makes one call, so the caller sees each call alone; an engine
    /// where each call is costly to reach makes several in one go.
    fn call_sequence(
        &mut self,
        calls: &mut [SequencedCall<'_>],
        statuses: &mut [i32],
    ) -> (usize, Result<(), MemoryCallError>) {
        call_first(self, calls, statuses)
    }
    /// [`Self::call_sequence`] of calls laid out as in the last sequence made with `key`
    /// on this instance: the same functions, argument types, copies (addresses, page
    /// buffers and lengths) and go-on words, only the argument values and the bytes
    /// written differ. An engine that lays a sequence out may keep that layout and write
    /// only the arguments; the default makes the calls as `call_sequence` does.
    fn call_kept_sequence(
        &mut self,
        key: SequenceKey,
        calls: &mut [SequencedCall<'_>],
        statuses: &mut [i32],
    ) -> (usize, Result<(), MemoryCallError>) {
        let _ = key;
        self.call_sequence(calls, statuses)
    }
    /// Reads `out.len()` bytes of guest memory at `ptr` (`false`: out of bounds).
    fn read(&self, ptr: u32, out: &mut [u8]) -> bool;
    /// Writes `bytes` into guest memory at `ptr` (`false`: out of bounds).
    fn write(&mut self, ptr: u32, bytes: &[u8]) -> bool;
    /// Runs `f` on the WASI host state (log, files, refusals) of this instance.
    fn with_host(&mut self, f: &mut dyn FnMut(&mut WasiHost));
    /// The write the WASI host refused during the last call, if any (and forgets it); an
    /// engine that knows no WASI import ran since may answer without asking the host.
    fn take_refused(&mut self) -> Option<String> {
        let mut refused = None;
        self.with_host(&mut |h| refused = h.take_refused());
        refused
    }
    /// Reads the WASI host state.
    fn host(&self, f: &mut dyn FnMut(&WasiHost));
    /// Table index of the host `logMessage` callback, 0 (NULL) without an exported table.
    fn log_callback(&self) -> i32;
}

/// A WebAssembly engine: validates, links and instantiates a module's wasm with the WASI
/// host `host` (start function run, `_initialize` not yet called).
pub trait Sandbox: Sync {
    /// A new instance of `wasm` whose WASI imports use `host`, within `limits`.
    fn instantiate(
        &self,
        wasm: &[u8],
        host: WasiHost,
        limits: &RuntimeLimits,
    ) -> Result<Box<dyn GuestInstance>, FmuError>;
}

/// The engine binary modules are loaded into: the one installed by [`set_sandbox`],
/// else wasmi (feature `wasmi`).
pub fn sandbox() -> Result<&'static dyn Sandbox, FmuError> {
    use core::sync::atomic::Ordering;
    let installed = INSTALLED.load(Ordering::Acquire);
    if !installed.is_null() {
        // SAFETY: only `set_sandbox` stores here, a leaked `&'static &'static dyn Sandbox`.
        return Ok(unsafe { *(installed as *const &'static dyn Sandbox) });
    }
    #[cfg(feature = "wasmi")]
    {
        Ok(&super::wasmi_engine::WasmiSandbox)
    }
    #[cfg(not(feature = "wasmi"))]
    Err(FmuError::Wasm(String::from(
        "no WebAssembly engine is installed to run binary modules",
    )))
}

static INSTALLED: core::sync::atomic::AtomicPtr<()> =
    core::sync::atomic::AtomicPtr::new(core::ptr::null_mut());

/// Makes `engine` the one every binary module loaded from now on runs in (the page
/// installs the browser's engine once at start).
pub fn set_sandbox(engine: &'static dyn Sandbox) {
    let slot: &'static &'static dyn Sandbox = Box::leak(Box::new(engine));
    INSTALLED.store(
        slot as *const &'static dyn Sandbox as *mut (),
        core::sync::atomic::Ordering::Release,
    );
}
