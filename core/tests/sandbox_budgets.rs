//! Issue 16, sandbox limits in total: hostile binary modules (WebAssembly text) against
//! the host's budgets. Each test measures what the host allocated (a per-thread counting
//! allocator: peak of live bytes requested) or how far the module got, never wall time.

use cosim_core::fmu::archive::write_stored;
use cosim_core::fmu::{BinaryModule, FmuError, MemoryBudget, RuntimeLimits};
use cosim_core::module::{InstantiateOptions, Subsystem, ValueRef};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::collections::BTreeMap;

/// Live and peak bytes allocated by the current thread.
struct Counting;

thread_local! {
    static LIVE: Cell<usize> = const { Cell::new(0) };
    static PEAK: Cell<usize> = const { Cell::new(0) };
}

fn grew(bytes: usize) {
    let live = LIVE.with(|l| {
        l.set(l.get() + bytes);
        l.get()
    });
    PEAK.with(|p| p.set(p.get().max(live)));
}

fn shrank(bytes: usize) {
    LIVE.with(|l| l.set(l.get().saturating_sub(bytes)));
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        shrank(layout.size());
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        shrank(layout.size());
        grew(new_size);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// The most bytes live at once while `f` ran, above what was live before.
fn peak_of<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let before = LIVE.with(Cell::get);
    PEAK.with(|p| p.set(before));
    let out = f();
    (out, PEAK.with(Cell::get) - before)
}

const MIB: usize = 1 << 20;

const XML: &str = r#"<fmiModelDescription fmiVersion="3.0" modelName="Hostile" instantiationToken="t">
  <CoSimulation modelIdentifier="hostile"/>
  <ModelVariables>
    <Float64 name="result" valueReference="1" causality="output"/>
  </ModelVariables>
  <ModelStructure><Output valueReference="1" dependencies=""/></ModelStructure>
</fmiModelDescription>"#;

/// A module whose `fmi3DoStep` runs `step` (the value it leaves in `$result` is the
/// output `result`); `extra` goes at module level (memories, tables).
fn wat(extra: &str, step: &str) -> String {
    format!(
        r#"(module
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "random_get" (func $random_get (param i32 i32) (result i32)))
  (memory (export "memory") 2)
  {extra}
  (global $result (mut f64) (f64.const 0))
  (func (export "malloc") (param i32) (result i32) (i32.const 65536))
  (func (export "free") (param i32))
  (func (export "fmi3InstantiateCoSimulation") (param i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32) (result i32) (i32.const 64))
  (func (export "fmi3EnterInitializationMode") (param i32 i32 f64 f64 i32 f64) (result i32) (i32.const 0))
  (func (export "fmi3ExitInitializationMode") (param i32) (result i32) (i32.const 0))
  (func (export "fmi3SetFloat64") (param i32 i32 i32 i32 i32) (result i32) (i32.const 0))
  (func (export "fmi3GetFloat64") (param i32 i32 i32 i32 i32) (result i32)
    (f64.store (local.get 3) (global.get $result)) (i32.const 0))
  (func (export "fmi3DoStep") (param $inst i32) (param $t f64) (param $h f64) (param i32)
        (param i32) (param i32) (param i32) (param $last i32) (result i32)
    (local $i i32)
    {step}
    (f64.store (local.get $last) (f64.add (local.get $t) (local.get $h)))
    (i32.const 0))
  (func (export "fmi3Terminate") (param i32) (result i32) (i32.const 0))
  (func (export "fmi3Reset") (param i32) (result i32) (i32.const 0))
  (func (export "fmi3FreeInstance") (param i32))
)"#
    )
}

fn fmu(extra: &str, step: &str) -> Vec<u8> {
    let wasm = wat::parse_str(wat(extra, step)).expect("valid WAT");
    write_stored(&[
        ("modelDescription.xml", XML.as_bytes()),
        ("binaries/wasm32/hostile.wasm", &wasm),
    ])
}

fn limits(budget: usize) -> RuntimeLimits {
    RuntimeLimits {
        budget: MemoryBudget::new(budget),
        ..RuntimeLimits::default()
    }
}

fn load(bytes: &[u8], limits: RuntimeLimits) -> Result<BinaryModule, FmuError> {
    BinaryModule::from_fmu(bytes, &BTreeMap::new(), limits)
}

fn started(m: BinaryModule) -> Subsystem {
    let mut s = Subsystem::instantiate(Box::new(m), InstantiateOptions::default()).unwrap();
    s.enter_initialization_mode(None, 0.0, None).unwrap();
    s.exit_initialization_mode().unwrap();
    s
}

/// One step; the module's `result` output after it.
fn step_result(s: &mut Subsystem) -> f64 {
    s.do_step(0.0, 0.1, true).unwrap();
    let mut v = [0.0];
    s.get_float64(&[ValueRef(1)], &mut v).unwrap();
    v[0]
}

#[test]
fn twenty_memories_count_against_one_limit() {
    // 20 memories of 64 MiB: 1.25 GiB if each were limited on its own.
    let memories: String = (0..20).map(|_| "(memory 1024)").collect();
    let bytes = fmu(&memories, "");
    let (result, peak) = peak_of(|| load(&bytes, limits(1 << 30)));
    let e = result.err().expect("refused");
    assert!(
        matches!(&e, FmuError::Limit(m) if m.contains("max_memory_bytes")),
        "{e}"
    );
    assert!(peak < 300 * MIB, "peak {peak} bytes");
}

#[test]
fn all_modules_share_one_budget_and_give_it_back() {
    let bytes = fmu("(memory 640)", ""); // 40 MiB besides the 128 KiB exported memory
    let budget = limits(64 * MIB);
    let first = load(&bytes, budget.clone()).expect("the first fits");
    assert!(budget.budget.used() > 40 * MIB);
    let e = load(&bytes, budget.clone())
        .err()
        .expect("the second does not");
    assert!(
        e.to_string()
            .contains("memory budget shared by all binary modules"),
        "{e}"
    );
    drop(first);
    assert_eq!(
        budget.budget.used(),
        0,
        "a dropped module returns its bytes"
    );
    load(&bytes, budget).expect("now it fits");
}

#[test]
fn a_table_of_ten_million_elements_is_refused_before_it_is_allocated() {
    let bytes = fmu("(table 10000000 funcref)", "");
    let (result, peak) = peak_of(|| load(&bytes, limits(1 << 30)));
    let e = result.err().expect("refused");
    assert!(e.to_string().contains("max_table_elements"), "{e}");
    assert!(peak < 16 * MIB, "peak {peak} bytes");
}

const IOVECS: &str = r#"
    (block $done (loop $next
      (br_if $done (i32.ge_u (local.get $i) (i32.const 1024)))
      (i32.store (i32.add (i32.const 65536) (i32.mul (local.get $i) (i32.const 8))) (i32.const 0))
      (i32.store (i32.add (i32.const 65540) (i32.mul (local.get $i) (i32.const 8))) (i32.const LEN))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $next)))
    (global.set $result (f64.convert_i32_s
      (call $fd_write (i32.const 2) (i32.const 65536) (i32.const 1024) (i32.const 0))))"#;

#[test]
fn fd_write_with_lying_iovecs_allocates_nothing_large() {
    // 1024 iovecs at 0..65536 each: 64 MiB claimed from 128 KiB of memory.
    let step = IOVECS.replace("LEN", "65536");
    let mut s = started(load(&fmu("", &step), limits(64 * MIB)).unwrap());
    let (errno, peak) = peak_of(|| step_result(&mut s));
    assert_eq!(errno, 28.0, "EINVAL: more than a call may write");
    assert!(peak < 4 * MIB, "peak {peak} bytes");
    let lying = IOVECS.replace("LEN", "2147483647");
    let mut s = started(load(&fmu("", &lying), limits(64 * MIB)).unwrap());
    let (errno, peak) = peak_of(|| step_result(&mut s));
    assert_eq!(errno, 21.0, "EFAULT: an iovec beyond memory");
    assert!(peak < 4 * MIB, "peak {peak} bytes");
}

#[test]
fn random_get_is_bounded_per_call() {
    let step = "(global.set $result (f64.convert_i32_s \
                (call $random_get (i32.const 0) (i32.const 2147483647))))";
    let mut s = started(load(&fmu("", step), limits(64 * MIB)).unwrap());
    let (errno, peak) = peak_of(|| step_result(&mut s));
    assert_eq!(
        errno, 21.0,
        "EFAULT: 2 GiB do not fit in the module's memory"
    );
    assert!(peak < 4 * MIB, "peak {peak} bytes");
}

#[test]
fn time_in_host_functions_counts_against_the_instruction_budget() {
    // 1000 calls of random_get(64 KiB): a few thousand instructions, 64 MB of host work.
    let step = r#"
    (block $done (loop $next
      (br_if $done (i32.ge_u (local.get $i) (i32.const 1000)))
      (drop (call $random_get (i32.const 0) (i32.const 65536)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $next)))"#;
    let limits = RuntimeLimits {
        fuel_per_call: 1_000_000,
        ..limits(64 * MIB)
    };
    let mut s = started(load(&fmu("", step), limits).unwrap());
    let e = s.do_step(0.0, 0.1, true).unwrap_err().to_string();
    assert!(
        e.contains("fmi3DoStep did not return within 1000000 wasm instructions"),
        "{e}"
    );
}

#[test]
fn a_module_slow_in_every_step_is_stopped_by_the_run_budget() {
    // Several hundred thousand instructions per step: under the per-call budget, every time.
    let step = r#"
    (block $done (loop $next
      (br_if $done (i32.ge_u (local.get $i) (i32.const 20000)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $next)))"#;
    let limits = RuntimeLimits {
        fuel_per_call: 1_000_000,
        fuel_per_run: 10_000_000,
        ..limits(64 * MIB)
    };
    let mut s = started(load(&fmu("", step), limits).unwrap());
    let mut steps = 0;
    let e = loop {
        match s.do_step(f64::from(steps) * 0.1, 0.1, true) {
            Ok(_) => steps += 1,
            Err(e) => break e.to_string(),
        }
        assert!(steps < 100, "never stopped");
    };
    assert!((2..=60).contains(&steps), "{steps} steps: {e}");
    assert!(e.contains("RuntimeLimits::fuel_per_run"), "{e}");
}

/// Steps `s` until one fails; the number that succeeded and the failure's text.
fn steps_until_failure(s: &mut Subsystem) -> (u32, String) {
    let mut steps = 0;
    loop {
        match s.do_step(f64::from(steps) * 0.1, 0.1, true) {
            Ok(_) => steps += 1,
            Err(e) => return (steps, e.to_string()),
        }
        assert!(steps < 100, "never stopped");
    }
}

/// Each step grows the memory by 1 MiB and ignores what `memory.grow` returns.
const GROW_1_MIB: &str = "(drop (memory.grow (i32.const 16)))";

#[test]
fn memory_grown_in_a_step_beyond_the_module_limit_stops_the_call_naming_it() {
    let limits = RuntimeLimits {
        max_memory_bytes: 4 * MIB,
        ..limits(64 * MIB)
    };
    let budget = limits.budget.clone();
    let mut s = started(load(&fmu("", GROW_1_MIB), limits).unwrap());
    // 128 KiB + 3 MiB fit; the fourth step would hold 4325376 bytes.
    for k in 0..3 {
        s.do_step(f64::from(k) * 0.1, 0.1, true).unwrap();
    }
    let (result, peak) = peak_of(|| s.do_step(0.3, 0.1, true));
    let e = result.err().expect("the fourth step fails").to_string();
    assert!(
        e.contains(
            "fmi3DoStep was stopped: linear memory of 4325376 bytes (all memories of the \
             module) is more than RuntimeLimits::max_memory_bytes = 4194304"
        ),
        "{e}"
    );
    assert!(
        peak < MIB / 2,
        "the refused MiB was not allocated: peak {peak}"
    );
    assert_eq!(
        budget.used(),
        3 * MIB + 128 * 1024,
        "the growth that fit is charged"
    );
    drop(s);
    assert_eq!(budget.used(), 0, "and given back with the module");
}

#[test]
fn memory_grown_in_a_step_beyond_the_shared_budget_stops_the_call_naming_it() {
    let mut s = started(load(&fmu("", GROW_1_MIB), limits(2 * MIB)).unwrap());
    let (steps, e) = steps_until_failure(&mut s);
    assert_eq!(steps, 1, "{e}");
    assert!(
        e.contains(
            "fmi3DoStep was stopped: growing linear memory to 2228224 bytes would exceed the \
             memory budget shared by all binary modules (1179648 of 2097152 bytes in use; \
             RuntimeLimits::budget)"
        ),
        "{e}"
    );
}
