//! Binary modules end to end on small hand-written wasm modules (WebAssembly text): a
//! first-order lag `dx/dt = (u - x)/tau` stepped with one explicit Euler step per call,
//! and broken variants of it for every load and run-time failure the host must report.

use super::archive::write_stored;
use super::{BinaryModule, FmuError, RuntimeLimits};
use crate::module::{
    InstantiateOptions, ModuleErrorKind, ModuleState, Status, Subsystem, ValueRef,
};
use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

pub(super) const XML: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<fmiModelDescription fmiVersion="3.0" modelName="Lag" instantiationToken="{lag-token}">
  <CoSimulation modelIdentifier="lag" canHandleVariableCommunicationStepSize="true"/>
  <UnitDefinitions><Unit name="s"/></UnitDefinitions>
  <TypeDefinitions><Float64Type name="Time" quantity="Time" unit="s"/></TypeDefinitions>
  <ModelVariables>
    <Float64 name="time" valueReference="0" causality="independent" variability="continuous"/>
    <Float64 name="x" valueReference="1" causality="output" start="1" initial="exact"/>
    <Float64 name="u" valueReference="2" causality="input" start="0"/>
    <Float64 name="tau" valueReference="3" causality="parameter" variability="fixed" start="0.5" declaredType="Time"/>
    <Int32 name="ignored" valueReference="9" causality="local"/>
  </ModelVariables>
  <ModelStructure><Output valueReference="1" dependencies=""/></ModelStructure>
</fmiModelDescription>"#;

/// Instance at address 64: values by value reference at 64 + 8·vr.
pub(super) const WAT: &str = r#"(module
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (global $heap (mut i32) (i32.const 1024))
  (data (i32.const 256) "oops: step failed\n")
  (func (export "malloc") (param $n i32) (result i32)
    (local $p i32)
    (local.set $p (global.get $heap))
    (global.set $heap (i32.and (i32.add (i32.add (global.get $heap) (local.get $n)) (i32.const 15)) (i32.const -16)))
    (local.get $p))
  (func (export "free") (param i32))
  (func $reset
    (f64.store (i32.const 72) (f64.const 1))
    (f64.store (i32.const 80) (f64.const 0))
    (f64.store (i32.const 88) (f64.const 0.5)))
  (func (export "fmi3InstantiateCoSimulation")
    (param i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32) (result i32)
    (call $reset) (i32.const 64))
  (func (export "fmi3EnterInitializationMode") (param i32 i32 f64 f64 i32 f64) (result i32) (i32.const 0))
  (func (export "fmi3ExitInitializationMode") (param i32) (result i32) (i32.const 0))
  (func (export "fmi3SetFloat64") (param $inst i32) (param $vrs i32) (param $n i32) (param $vals i32) (param $nv i32) (result i32)
    (local $i i32)
    (block $done (loop $next
      (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
      (f64.store
        (i32.add (local.get $inst) (i32.mul (i32.load (i32.add (local.get $vrs) (i32.mul (local.get $i) (i32.const 4)))) (i32.const 8)))
        (f64.load (i32.add (local.get $vals) (i32.mul (local.get $i) (i32.const 8)))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $next)))
    (i32.const 0))
  (func (export "fmi3GetFloat64") (param $inst i32) (param $vrs i32) (param $n i32) (param $vals i32) (param $nv i32) (result i32)
    (local $i i32)
    (block $done (loop $next
      (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
      (f64.store
        (i32.add (local.get $vals) (i32.mul (local.get $i) (i32.const 8)))
        (f64.load (i32.add (local.get $inst) (i32.mul (i32.load (i32.add (local.get $vrs) (i32.mul (local.get $i) (i32.const 4)))) (i32.const 8)))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $next)))
    (i32.const 0))
  (func (export "fmi3DoStep") (param $inst i32) (param $t f64) (param $h f64) (param i32)
        (param $ev i32) (param $term i32) (param $early i32) (param $last i32) (result i32)
    ;;STEP;;
    (f64.store (i32.const 72)
      (f64.add (f64.load (i32.const 72))
        (f64.mul (local.get $h)
          (f64.div (f64.sub (f64.load (i32.const 80)) (f64.load (i32.const 72))) (f64.load (i32.const 88))))))
    (f64.store (local.get $last) (f64.add (local.get $t) (local.get $h)))
    (i32.const 0))
  (func (export "fmi3Terminate") (param i32) (result i32) (i32.const 0))
  (func (export "fmi3Reset") (param i32) (result i32) (call $reset) (i32.const 0))
  (func (export "fmi3FreeInstance") (param i32))
)"#;

const STEP_FAILS: &str = r#"(i32.store (i32.const 512) (i32.const 256)) (i32.store (i32.const 516) (i32.const 18))
    (drop (call $fd_write (i32.const 2) (i32.const 512) (i32.const 1) (i32.const 520)))
    (return (i32.const 3))"#;

/// `fmi3GetFMUState` and friends for the lag: a state is `x` and `u` in 16 bytes; how many
/// states are live (allocated, not freed) is the local variable `liveStates` (vr 4).
const STATE_FUNCTIONS: &str = r#"(func (export "fmi3GetFMUState") (param $inst i32) (param $sp i32) (result i32)
    (local $s i32)
    (local.set $s (i32.load (local.get $sp)))
    (if (i32.eqz (local.get $s)) (then
      (local.set $s (global.get $heap))
      (global.set $heap (i32.add (global.get $heap) (i32.const 16)))
      (f64.store (i32.const 96) (f64.add (f64.load (i32.const 96)) (f64.const 1)))
      (i32.store (local.get $sp) (local.get $s))))
    (f64.store (local.get $s) (f64.load (i32.const 72)))
    (f64.store offset=8 (local.get $s) (f64.load (i32.const 80)))
    (i32.const 0))
  (func (export "fmi3SetFMUState") (param $inst i32) (param $s i32) (result i32)
    (f64.store (i32.const 72) (f64.load (local.get $s)))
    (f64.store (i32.const 80) (f64.load offset=8 (local.get $s)))
    (i32.const 0))
  (func (export "fmi3FreeFMUState") (param $inst i32) (param $sp i32) (result i32)
    (f64.store (i32.const 96) (f64.sub (f64.load (i32.const 96)) (f64.const 1)))
    (i32.store (local.get $sp) (i32.const 0))
    (i32.const 0))
  (func (export "fmi3FreeInstance") (param i32))"#;

fn with_states() -> (String, String) {
    let xml = XML
        .replace("canHandle", "canGetAndSetFMUState=\"true\" canHandle")
        .replace(
            "<Int32 name",
            "<Float64 name=\"liveStates\" valueReference=\"4\" causality=\"local\"/>\n    <Int32 name",
        );
    let wat = WAT.replace(
        "(func (export \"fmi3FreeInstance\") (param i32))",
        STATE_FUNCTIONS,
    );
    (xml, wat)
}

pub(super) fn fmu(xml: &str, wat: &str) -> Vec<u8> {
    let wasm = wat::parse_str(wat).expect("test module is valid WAT");
    write_stored(&[
        ("modelDescription.xml", xml.as_bytes()),
        ("binaries/wasm32/lag.wasm", &wasm),
    ])
}

fn load(xml: &str, wat: &str, limits: RuntimeLimits) -> Result<BinaryModule, FmuError> {
    BinaryModule::from_fmu(&fmu(xml, wat), &BTreeMap::new(), limits)
}

fn started(module: BinaryModule) -> Subsystem {
    let mut s = Subsystem::instantiate(Box::new(module), InstantiateOptions::default()).unwrap();
    s.enter_initialization_mode(None, 0.0, Some(1.0)).unwrap();
    s.exit_initialization_mode().unwrap();
    s
}

#[test]
fn description_comes_from_model_description_xml() {
    let m = load(XML, WAT, RuntimeLimits::default()).unwrap();
    let md = m.model_description();
    assert_eq!(
        (
            md.model_identifier.as_str(),
            md.instantiation_token.as_str()
        ),
        ("lag", "{lag-token}")
    );
    let d = &md.module;
    assert_eq!(d.model_name, "Lag");
    let names: Vec<&str> = d.variables.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(
        names,
        ["time", "x", "u", "tau"],
        "Int32 variables are skipped"
    );
    assert_eq!(
        d.variable("tau").unwrap().unit,
        "s",
        "unit through declaredType"
    );
    assert!(d.capabilities.can_handle_variable_communication_step_size);
    assert!(
        !d.has_feedthrough(ValueRef(1), ValueRef(2)),
        "dependencies=\"\" means no feedthrough"
    );
}

#[test]
fn steps_through_the_fmi_calls_exactly() {
    let mut s = started(load(XML, WAT, RuntimeLimits::default()).unwrap());
    let (mut x, tau, h) = (1.0f64, 0.5, 0.1);
    for n in 0..5 {
        let u = 2.0 + n as f64;
        s.set_float64(&[ValueRef(2)], &[u]).unwrap();
        let r = s.do_step(n as f64 * h, h, true).unwrap();
        assert_eq!(r.status, Status::Ok);
        assert_eq!(r.last_successful_time, n as f64 * h + h);
        x += h * (u - x) / tau;
        let mut y = [0.0];
        s.get_float64(&[ValueRef(1)], &mut y).unwrap();
        assert_eq!(y[0], x, "bit-identical to the same Euler step in Rust");
    }
}

#[test]
fn parameters_are_applied_after_instantiation_and_reset() {
    let mut p = BTreeMap::new();
    p.insert(String::from("tau"), 0.25);
    let m = BinaryModule::from_fmu(&fmu(XML, WAT), &p, RuntimeLimits::default()).unwrap();
    let mut s = started(m);
    let mut tau = [0.0];
    s.get_float64(&[ValueRef(3)], &mut tau).unwrap();
    assert_eq!(tau[0], 0.25);
    s.reset().unwrap();
    s.get_float64(&[ValueRef(3)], &mut tau).unwrap();
    assert_eq!(tau[0], 0.25);
    p.insert(String::from("time"), 1.0);
    let e = BinaryModule::from_fmu(&fmu(XML, WAT), &p, RuntimeLimits::default())
        .err()
        .unwrap();
    assert!(
        matches!(&e, FmuError::Parameter(m) if m.contains("`time`") && m.contains("x, u, tau")),
        "{e}"
    );
}

#[test]
fn malformed_archives_are_named() {
    let e = BinaryModule::from_fmu(
        b"PK\x03\x04 definitely not a zip",
        &BTreeMap::new(),
        RuntimeLimits::default(),
    )
    .err()
    .unwrap();
    assert!(matches!(e, FmuError::Archive(_)), "{e}");
    let no_xml = write_stored(&[("binaries/wasm32/lag.wasm", b"\0asm")]);
    let e = BinaryModule::from_fmu(&no_xml, &BTreeMap::new(), RuntimeLimits::default())
        .err()
        .unwrap();
    assert_eq!(e, FmuError::MissingEntry("`modelDescription.xml`".into()));
    let no_wasm = write_stored(&[
        ("modelDescription.xml", XML.as_bytes()),
        ("binaries/x86_64-linux/lag.so", b""),
    ]);
    let e = BinaryModule::from_fmu(&no_wasm, &BTreeMap::new(), RuntimeLimits::default())
        .err()
        .unwrap()
        .to_string();
    assert_eq!(
        e,
        "the .fmu has no `binaries/wasm32/lag.wasm` (modelIdentifier \"lag\"; \
         the archive has binaries/x86_64-linux/lag.so)"
    );
    let bad_xml = write_stored(&[(
        "modelDescription.xml",
        b"<fmiModelDescription fmiVersion=\"3.0\"",
    )]);
    let e = BinaryModule::from_fmu(&bad_xml, &BTreeMap::new(), RuntimeLimits::default())
        .err()
        .unwrap();
    assert!(matches!(e, FmuError::Xml(_)), "{e}");
    let e = load(
        &XML.replace("fmiVersion=\"3.0\"", "fmiVersion=\"2.0\""),
        WAT,
        RuntimeLimits::default(),
    )
    .err()
    .unwrap();
    assert!(e.to_string().contains("must be FMI 3.0"), "{e}");
    let not_wasm = write_stored(&[
        ("modelDescription.xml", XML.as_bytes()),
        ("binaries/wasm32/lag.wasm", b"\0asm junk"),
    ]);
    let e = BinaryModule::from_fmu(&not_wasm, &BTreeMap::new(), RuntimeLimits::default())
        .err()
        .unwrap();
    assert!(matches!(e, FmuError::Wasm(_)), "{e}");
}

#[test]
fn missing_export_and_wrong_signature_are_named() {
    let e = load(
        XML,
        &WAT.replace("(export \"fmi3Terminate\")", ""),
        RuntimeLimits::default(),
    )
    .err()
    .unwrap();
    assert!(
        matches!(&e, FmuError::MissingExport { name, .. } if name == "fmi3Terminate"),
        "{e}"
    );
    let wrong = WAT.replace(
        "(param $ev i32) (param $term i32) (param $early i32) (param $last i32)",
        "(param $ev i32) (param $term i32) (param $early i32) (param $last f64)",
    );
    let e = load(
        XML,
        &wrong.replace("(local.get $last)", "(i32.const 0)"),
        RuntimeLimits::default(),
    )
    .err()
    .unwrap();
    assert_eq!(
        e.to_string(),
        "the wasm export `fmi3DoStep` has type (i32, f64, f64, i32, i32, i32, i32, f64) -> i32; \
         the FMI 3.0 wasm32 ABI requires (i32, f64, f64, i32, i32, i32, i32, i32) -> i32"
    );
    let e = load(
        &XML.replace("canHandle", "canGetAndSetFMUState=\"true\" canHandle"),
        WAT,
        RuntimeLimits::default(),
    )
    .err()
    .unwrap();
    assert!(
        e.to_string().contains("fmi3GetFMUState") && e.to_string().contains("canGetAndSetFMUState"),
        "{e}"
    );
    let e = load(
        XML,
        &WAT.replace(
            "(import \"wasi_snapshot_preview1\" \"fd_write\"",
            "(import \"env\" \"fd_write\"",
        ),
        RuntimeLimits::default(),
    )
    .err()
    .unwrap();
    assert!(
        matches!(&e, FmuError::UnsupportedImport(m) if m.contains("env.fd_write")),
        "{e}"
    );
}

#[test]
fn traps_end_the_instance_with_the_trap_message() {
    let mut s = started(
        load(
            XML,
            &WAT.replace(";;STEP;;", "unreachable"),
            RuntimeLimits::default(),
        )
        .unwrap(),
    );
    let e = s.do_step(0.0, 0.1, true).unwrap_err();
    assert_eq!(e.status, Status::Fatal);
    assert!(
        matches!(&e.kind, ModuleErrorKind::Trap(m) if m.contains("fmi3DoStep") && m.contains("unreachable")),
        "{e}"
    );
    assert!(s.do_step(0.0, 0.1, true).is_err(), "no calls after Fatal");
}

#[test]
fn an_endless_loop_runs_out_of_fuel() {
    let limits = RuntimeLimits {
        fuel_per_call: 1_000_000,
        ..RuntimeLimits::default()
    };
    let mut s = started(
        load(
            XML,
            &WAT.replace(";;STEP;;", "(loop $forever (br $forever))"),
            limits,
        )
        .unwrap(),
    );
    let e = s.do_step(0.0, 0.1, true).unwrap_err().to_string();
    assert!(
        e.contains("fmi3DoStep did not return within 1000000 wasm instructions"),
        "{e}"
    );
}

#[test]
fn an_error_status_carries_the_module_log() {
    let mut s = started(
        load(
            XML,
            &WAT.replace(";;STEP;;", STEP_FAILS),
            RuntimeLimits::default(),
        )
        .unwrap(),
    );
    let e = s.do_step(0.0, 0.1, true).unwrap_err();
    assert_eq!(e.status, Status::Error);
    assert_eq!(
        e.to_string(),
        "fmi3DoStep returned fmi3Error; module log: oops: step failed"
    );
}

#[test]
fn output_dependencies_default_to_every_input() {
    let xml = XML.replace(
        "<Output valueReference=\"1\" dependencies=\"\"/>",
        "<Output valueReference=\"1\"/>",
    );
    let m = load(&xml, WAT, RuntimeLimits::default()).unwrap();
    assert!(m
        .model_description()
        .module
        .has_feedthrough(ValueRef(1), ValueRef(2)));
    let _ = m.log().to_string();
}

#[test]
fn fmu_states_are_overwritten_in_place_and_freed_once_dropped() {
    let (xml, wat) = with_states();
    let mut s = started(load(&xml, &wat, RuntimeLimits::default()).unwrap());
    let read = |s: &mut Subsystem, vr: u32| {
        let mut v = [0.0];
        s.get_float64(&[ValueRef(vr)], &mut v).unwrap();
        v[0]
    };
    let mut slot = ModuleState::empty();
    s.save_state_into(&mut slot).unwrap();
    assert_eq!(read(&mut s, 4), 1.0, "the first save allocates a state");
    s.set_float64(&[ValueRef(2)], &[3.0]).unwrap();
    s.do_step(0.0, 0.1, false).unwrap();
    let x1 = read(&mut s, 1);
    s.save_state_into(&mut slot).unwrap();
    assert_eq!(read(&mut s, 4), 1.0, "a second save overwrites it");
    s.do_step(0.1, 0.1, false).unwrap();
    s.set_state(&slot).unwrap();
    assert_eq!(
        read(&mut s, 1),
        x1,
        "the overwritten state is the newer one"
    );

    let other = s.get_state().unwrap();
    assert_eq!(read(&mut s, 4), 2.0);
    drop(other);
    s.do_step(0.1, 0.1, false).unwrap();
    assert_eq!(
        read(&mut s, 4),
        1.0,
        "a dropped state is freed on the next step"
    );

    let mut s2 = started(load(&xml, &wat, RuntimeLimits::default()).unwrap());
    let e = s2.set_state(&slot).unwrap_err().to_string();
    assert!(e.contains("saved by another module instance"), "{e}");
    s2.save_state_into(&mut slot).unwrap();
    assert_eq!(
        read(&mut s2, 4),
        1.0,
        "another instance's slot is replaced, not reused"
    );
    s.do_step(0.2, 0.1, false).unwrap();
    assert_eq!(
        read(&mut s, 4),
        0.0,
        "and the first instance frees its state"
    );
}

#[test]
fn core_exports_are_checked_before_capability_exports() {
    let bare = r#"(module (memory (export "memory") 1)
      (func (export "malloc") (param i32) (result i32) (i32.const 1024))
      (func (export "free") (param i32)))"#;
    let xml = XML.replace("canHandle", "canGetAndSetFMUState=\"true\" canHandle");
    let e = load(&xml, bare, RuntimeLimits::default()).err().unwrap();
    assert!(
        matches!(&e, FmuError::MissingExport { name, .. } if name == "fmi3InstantiateCoSimulation"),
        "{e}"
    );
}
