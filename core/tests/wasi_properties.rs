//! Property-based tests of the WASI host: a module calls `fd_write` and `random_get` with
//! arbitrary guest pointers, lengths and iovec counts. The host never panics or traps the
//! module, and answers each call with exactly the errno a careful host owes: `INVAL` for
//! more than 1024 iovecs, `FAULT` for any range outside the module's memory, else success.

use cosim_core::fmu::archive::write_stored;
use cosim_core::fmu::{BinaryModule, MAX_BYTES_PER_CALL};
use cosim_core::module::{InstantiateOptions, Subsystem, ValueRef};
use proptest::prelude::*;
use std::collections::BTreeMap;

/// The module's memory: two pages, never grown.
const MEMORY: u64 = 2 * 65536;
const SUCCESS: i32 = 0;
const FAULT: i32 = 21;
const INVAL: i32 = 28;

const XML: &str = r#"<fmiModelDescription fmiVersion="3.0" modelName="Wasi" instantiationToken="t">
  <CoSimulation modelIdentifier="wasi"/>
  <ModelVariables>
    <Float64 name="result" valueReference="1" causality="output"/>
  </ModelVariables>
  <ModelStructure><Output valueReference="1" dependencies=""/></ModelStructure>
</fmiModelDescription>"#;

/// The arguments of one `fd_write(fd, iovs, n, out)` and one `random_get(buf, len)`; the
/// first iovec at `iovs` is `(iov_ptr, iov_len)` when it fits in memory.
#[derive(Clone, Debug)]
struct Calls {
    fd: i32,
    iovs: i32,
    n: i32,
    out: i32,
    iov_ptr: i32,
    iov_len: i32,
    buf: i32,
    len: i32,
}

fn fits(ptr: i32, len: u64) -> bool {
    ptr as u32 as u64 + len <= MEMORY
}

impl Calls {
    /// The errno each call must return, from the arguments alone.
    fn expected(&self) -> (i32, i32) {
        let n = self.n as u32 as u64;
        let fd_write = if n > 1024 {
            INVAL
        } else if n > 0
            && (!fits(self.iovs, 8 * n) || !fits(self.iov_ptr, self.iov_len as u32 as u64))
        {
            FAULT
        } else if !fits(self.out, 4) {
            FAULT
        } else {
            SUCCESS
        };
        let len = self.len as u32 as u64;
        let random_get = if !fits(self.buf, len) {
            FAULT
        } else if len > MAX_BYTES_PER_CALL as u64 {
            INVAL
        } else {
            SUCCESS
        };
        (fd_write, random_get)
    }

    /// A module whose `fmi3DoStep` clears its memory, writes the first iovec, makes both
    /// calls and outputs `1000 × fd_write's errno + random_get's errno`.
    fn fmu(&self) -> Vec<u8> {
        let Calls {
            fd,
            iovs,
            n,
            out,
            iov_ptr,
            iov_len,
            buf,
            len,
        } = self.clone();
        let iovec = if fits(iovs, 8) {
            format!(
                "(i32.store (i32.const {iovs}) (i32.const {iov_ptr}))
                 (i32.store (i32.add (i32.const {iovs}) (i32.const 4)) (i32.const {iov_len}))"
            )
        } else {
            String::new()
        };
        let wat = format!(
            r#"(module
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "random_get" (func $random_get (param i32 i32) (result i32)))
  (memory (export "memory") 2 2)
  (global $result (mut f64) (f64.const -1))
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
    (local $w i32)
    (memory.fill (i32.const 0) (i32.const 0) (i32.const {MEMORY}))
    {iovec}
    (local.set $w (call $fd_write (i32.const {fd}) (i32.const {iovs}) (i32.const {n}) (i32.const {out})))
    (global.set $result (f64.convert_i32_s (i32.add (i32.mul (local.get $w) (i32.const 1000))
      (call $random_get (i32.const {buf}) (i32.const {len})))))
    (f64.store (local.get $last) (f64.add (local.get $t) (local.get $h)))
    (i32.const 0))
  (func (export "fmi3Terminate") (param i32) (result i32) (i32.const 0))
  (func (export "fmi3Reset") (param i32) (result i32) (i32.const 0))
  (func (export "fmi3FreeInstance") (param i32))
)"#
        );
        let wasm = wat::parse_str(wat).expect("valid WAT");
        write_stored(&[
            ("modelDescription.xml", XML.as_bytes()),
            ("binaries/wasm32/wasi.wasm", &wasm),
        ])
    }
}

/// Pointers: inside memory, near its end, or any 32-bit value.
fn pointer() -> impl Strategy<Value = i32> {
    prop_oneof![
        0..MEMORY as i32,
        (MEMORY as i32 - 16)..(MEMORY as i32 + 16),
        any::<i32>(),
    ]
}

/// Lengths and counts: small, about the memory's size or the per-call limit, or any.
fn length() -> impl Strategy<Value = i32> {
    prop_oneof![
        0..64i32,
        (MEMORY as i32 - 16)..(MEMORY as i32 + 16),
        1000..1100i32,
        (MAX_BYTES_PER_CALL as i32 - 4)..(MAX_BYTES_PER_CALL as i32 + 4),
        any::<i32>(),
    ]
}

fn calls() -> impl Strategy<Value = Calls> {
    (
        1..=2i32,
        (pointer(), length(), pointer()),
        (pointer(), length()),
        (pointer(), length()),
    )
        .prop_map(
            |(fd, (iovs, n, out), (iov_ptr, iov_len), (buf, len))| Calls {
                fd,
                iovs,
                n,
                out,
                iov_ptr,
                iov_len,
                buf,
                len,
            },
        )
}

/// Loads the module, makes one step and returns the two errnos it saw.
fn run(calls: &Calls) -> (i32, i32) {
    let bytes = calls.fmu();
    let module = BinaryModule::from_fmu(&bytes, &BTreeMap::new(), Default::default())
        .expect("the module loads");
    let mut s = Subsystem::instantiate(Box::new(module), InstantiateOptions::default()).unwrap();
    s.enter_initialization_mode(None, 0.0, None).unwrap();
    s.exit_initialization_mode().unwrap();
    s.do_step(0.0, 0.1, true)
        .expect("the host answers with an errno, it does not trap");
    let mut v = [0.0];
    s.get_float64(&[ValueRef(1)], &mut v).unwrap();
    let code = v[0] as i32;
    (code.div_euclid(1000), code.rem_euclid(1000))
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 128,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn guest_pointers_and_lengths_get_exactly_the_owed_errno(calls in calls()) {
        prop_assert_eq!(run(&calls), calls.expected(), "{:?}", calls);
    }
}

#[test]
fn every_errno_of_the_model_is_reached() {
    // The property compares against a model; these fixed cases show the model's
    // branches are each taken, so a host answering one errno to all would fail.
    let ok = Calls {
        fd: 1,
        iovs: 1024,
        n: 1,
        out: 2048,
        iov_ptr: 4096,
        iov_len: 16,
        buf: 8192,
        len: 32,
    };
    assert_eq!(run(&ok), (SUCCESS, SUCCESS));
    let faults = Calls {
        iovs: MEMORY as i32 - 4,
        buf: -1,
        ..ok.clone()
    };
    assert_eq!(run(&faults), (FAULT, FAULT));
    let inval = Calls {
        n: 1025,
        ..ok.clone()
    };
    assert_eq!(run(&inval).0, INVAL);
    let lying_iovec = Calls {
        iov_len: i32::MAX,
        ..ok
    };
    assert_eq!(run(&lying_iovec).0, FAULT);
}
