//! The WASI host without any engine: [`super::wasi::plan_import`] and
//! [`super::wasi::dispatch`] over a plain byte vector as guest memory, which is what the
//! browser's engine relies on (no wasmi, no fuel); and how many engine calls a macro-step
//! of a binary module makes (each one crossing into JS in the browser's engine).

extern crate std;

use super::sandbox::{
    set_sandbox, CallError, Export, ExportFn, FuncSig, GuestInstance, GuestMemory, MemoryCallError,
    Sandbox, SequencedCall, WasmType, WasmValue,
};
use super::wasi::{dispatch, plan_import, HostTrap, WasiHost, WasiImport, WASI};
use super::wasi_fs::ResourceTree;
use super::{BinaryModule, FmuError, RuntimeLimits};
use crate::module::{InstantiateOptions, Subsystem, ValueRef};
use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::string::ToString;
use alloc::vec::Vec;
use core::cell::Cell;

struct VecMemory(Vec<u8>);

impl GuestMemory for VecMemory {
    fn size(&self) -> usize {
        self.0.len()
    }

    fn read(&self, ptr: u32, out: &mut [u8]) -> bool {
        let start = ptr as usize;
        match self.0.get(start..start + out.len()) {
            Some(src) => {
                out.copy_from_slice(src);
                true
            }
            None => false,
        }
    }

    fn write(&mut self, ptr: u32, bytes: &[u8]) -> bool {
        let start = ptr as usize;
        match self.0.get_mut(start..start + bytes.len()) {
            Some(dst) => {
                dst.copy_from_slice(bytes);
                true
            }
            None => false,
        }
    }
}

fn provided(name: &str) -> WasiImport {
    let sig = super::wasi::provided_sig(name).unwrap();
    plan_import(WASI, name, Some(&sig)).unwrap()
}

#[test]
fn imports_are_planned_by_module_name_and_type() {
    use WasmType::I32;
    let errno = FuncSig::new(&[I32], &[I32]);
    assert_eq!(
        plan_import(WASI, "fd_write", Some(&FuncSig::new(&[I32; 4], &[I32]))),
        Ok(WasiImport::Provided("fd_write"))
    );
    assert_eq!(
        plan_import(WASI, "path_unlink_file", Some(&errno)),
        Ok(WasiImport::Refused("path_unlink_file".to_string()))
    );
    assert!(matches!(
        plan_import(WASI, "sock_accept", Some(&errno)),
        Ok(WasiImport::Unprovided(m)) if m.contains("`sock_accept` is not provided")
    ));
    let wrong = plan_import(WASI, "fd_close", Some(&FuncSig::new(&[I32], &[]))).unwrap_err();
    assert!(
        matches!(&wrong, FmuError::UnsupportedImport(m) if m.contains("with type (i32); the host provides it with type (i32) -> i32")),
        "{wrong}"
    );
    assert!(matches!(
        plan_import("env", "memory", None),
        Err(FmuError::UnsupportedImport(m)) if m.contains("`env.memory`")
    ));
}

#[test]
fn dispatch_runs_on_any_guest_memory() {
    let mut host = WasiHost::new(1024, ResourceTree::default());
    let mut mem = VecMemory(alloc::vec![0u8; 256]);
    // One iovec at 16 pointing at "hi\n" at 64; the byte count goes to 32.
    mem.write(16, &[64, 0, 0, 0, 3, 0, 0, 0]);
    mem.write(64, b"hi\n");
    let args = [1, 16, 1, 32].map(WasmValue::I32);
    let out = dispatch(&provided("fd_write"), &mut host, &mut mem, &args);
    assert_eq!(out, Ok(Some(WasmValue::I32(0))));
    assert_eq!(host.log(), "hi\n");
    assert_eq!(mem.0[32..36], [3, 0, 0, 0]);
    // An iovec outside memory is EFAULT (21), nothing logged.
    mem.write(16, &[0xf0, 0, 0, 0, 0x20, 0, 0, 0]);
    let out = dispatch(&provided("fd_write"), &mut host, &mut mem, &args);
    assert_eq!(out, Ok(Some(WasmValue::I32(21))));
    assert_eq!(host.log(), "hi\n");
    // proc_exit stops the guest with its code; an unprovided function with its name.
    let exit = dispatch(
        &provided("proc_exit"),
        &mut host,
        &mut mem,
        &[WasmValue::I32(3)],
    );
    assert_eq!(exit, Err(HostTrap::Exit(3)));
    let stub = WasiImport::Unprovided("no".into());
    assert_eq!(
        dispatch(&stub, &mut host, &mut mem, &[]),
        Err(HostTrap::Unprovided("no".into()))
    );
    // random_get is the same sequence for every host.
    let mut other = WasiHost::new(1024, ResourceTree::default());
    let mut mem2 = VecMemory(alloc::vec![0u8; 256]);
    let args = [100, 8].map(WasmValue::I32);
    dispatch(&provided("random_get"), &mut host, &mut mem, &args).unwrap();
    dispatch(&provided("random_get"), &mut other, &mut mem2, &args).unwrap();
    assert_eq!(mem.0[100..108], mem2.0[100..108]);
    assert_ne!(mem.0[100..108], [0u8; 8]);
}

/// Forwards to wasmi and counts, per thread, the guest calls that each cross from the
/// page's wasm into JS in the browser's engine: `call`, `call_with_memory`, `read`, `write`,
/// and `call_sequence`, which it makes as the browser's engine does (several calls, one
/// crossing, stopping where that engine stops but for memory growth, which wasmi's own
/// limiter checks).
pub(super) struct Counting;

struct CountingInstance(Box<dyn GuestInstance>);

std::thread_local! {
    static CROSSINGS: Cell<usize> = const { Cell::new(0) };
}

pub(super) fn crossings() -> usize {
    CROSSINGS.with(Cell::get)
}

fn crossed() {
    CROSSINGS.with(|c| c.set(c.get() + 1));
}

impl Sandbox for Counting {
    fn instantiate(
        &self,
        wasm: &[u8],
        host: WasiHost,
        limits: &RuntimeLimits,
    ) -> Result<Box<dyn GuestInstance>, FmuError> {
        let guest = super::WasmiSandbox.instantiate(wasm, host, limits)?;
        Ok(Box::new(CountingInstance(guest)))
    }
}

impl GuestInstance for CountingInstance {
    fn export(&self, name: &str) -> Export {
        self.0.export(name)
    }

    fn call(
        &mut self,
        f: ExportFn,
        args: &[WasmValue],
        results: &mut [WasmValue],
    ) -> Result<(), CallError> {
        crossed();
        self.0.call(f, args, results)
    }

    fn call_with_memory(
        &mut self,
        f: ExportFn,
        args: &[WasmValue],
        results: &mut [WasmValue],
        writes: &[(u32, &[u8])],
        reads: &mut [(u32, &mut [u8])],
    ) -> Result<(), MemoryCallError> {
        crossed();
        self.0.call_with_memory(f, args, results, writes, reads)
    }

    fn call_sequence(
        &mut self,
        calls: &mut [SequencedCall<'_>],
        statuses: &mut [i32],
    ) -> (usize, Result<(), MemoryCallError>) {
        crossed();
        let n = calls.len();
        for (k, c) in calls.iter_mut().enumerate() {
            let mut out = [WasmValue::I32(0)];
            let r = self
                .0
                .call_with_memory(c.f, c.args, &mut out, c.writes, c.reads);
            statuses[k] = out[0].as_i32().unwrap_or(0);
            let mut refused = false;
            self.0.host(&mut |h| refused = h.refusal_pending());
            let mut word = [0u8; 4];
            let flagged = c.go_on_if_clear.is_some_and(|(at, mask)| {
                !self.0.read(at, &mut word) || u32::from_le_bytes(word) & mask != 0
            });
            if r.is_err() || statuses[k] != 0 || refused || flagged || k + 1 == n {
                return (k + 1, r);
            }
        }
        (0, Ok(()))
    }

    fn read(&self, ptr: u32, out: &mut [u8]) -> bool {
        crossed();
        self.0.read(ptr, out)
    }

    fn write(&mut self, ptr: u32, bytes: &[u8]) -> bool {
        crossed();
        self.0.write(ptr, bytes)
    }

    fn with_host(&mut self, f: &mut dyn FnMut(&mut WasiHost)) {
        self.0.with_host(f)
    }

    fn host(&self, f: &mut dyn FnMut(&WasiHost)) {
        self.0.host(f)
    }

    fn log_callback(&self) -> i32 {
        self.0.log_callback()
    }
}

#[test]
fn a_macro_step_calls_the_engine_once_per_fmi_call() {
    // Every later binary module of this test binary runs through the counter too; it
    // only forwards, so they see wasmi as before.
    set_sandbox(&Counting);
    let fmu = super::tests::fmu(super::tests::XML, super::tests::WAT);
    let module = BinaryModule::from_fmu(&fmu, &BTreeMap::new(), RuntimeLimits::default()).unwrap();
    let mut s = Subsystem::instantiate(Box::new(module), InstantiateOptions::default()).unwrap();
    s.enter_initialization_mode(None, 0.0, Some(1.0)).unwrap();
    s.exit_initialization_mode().unwrap();
    let (mut x, mut before) = (1.0f64, 0);
    for n in 0..11 {
        // The first step also `malloc`s the scratch buffer: counted from the second on.
        if n == 1 {
            before = crossings();
        }
        s.set_float64(&[ValueRef(2)], &[3.0]).unwrap();
        s.do_step(n as f64 * 0.1, 0.1, true).unwrap();
        let mut y = [0.0];
        s.get_float64(&[ValueRef(1)], &mut y).unwrap();
        x += 0.1 * (3.0 - x) / 0.5;
        assert_eq!(y[0], x);
    }
    assert_eq!(
        crossings() - before,
        30,
        "fmi3SetFloat64, fmi3DoStep and fmi3GetFloat64 with their copies: one engine call each"
    );
}
