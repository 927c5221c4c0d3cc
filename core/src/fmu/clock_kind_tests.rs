//! The clocks the master serves and those it refuses by name: periodic input clocks
//! ticked by the master (the C clock test FMU, `tests/fixtures/fmus/c_clocks.fmu`, with its
//! input clock `trigger` declared periodic), and refusals of clock arrays, time-based clocks
//! whose timing only the FMU knows when it lacks `fmi3GetIntervalDecimal`, kinds FMI 3.0
//! does not have, FMUs without Co-Simulation, and clocks without Event Mode or without
//! `fmi3GetClock`.

use super::archive::{write_stored, Archive};
use super::model_description::parse;
use super::{BinaryModule, FmuError, RuntimeLimits};
use crate::module::{InstantiateOptions, Module};
use crate::scenario::{self, data_url};
use crate::simulation::Simulation;
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use serde_json::json;

const C_CLOCKS: &[u8] = include_bytes!("../../../tests/fixtures/fmus/c_clocks.fmu");
const TRIGGER: &str = r#"<Clock name="trigger" valueReference="20" causality="input" variability="discrete" intervalVariability="triggered""#;

/// `c_clocks.fmu` with `modelDescription.xml` edited by `edit`.
fn c_clocks_with(edit: impl Fn(&str) -> String) -> Vec<u8> {
    let archive = Archive::parse(C_CLOCKS).unwrap();
    let names: Vec<String> = archive.names().map(str::to_string).collect();
    let files: Vec<(String, Vec<u8>)> = names
        .into_iter()
        .map(|n| {
            let bytes = archive.read(&n).unwrap().unwrap();
            match n.as_str() {
                "modelDescription.xml" => {
                    let xml = edit(core::str::from_utf8(&bytes).unwrap());
                    (n, xml.into_bytes())
                }
                _ => (n, bytes),
            }
        })
        .collect();
    let refs: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(n, b)| (n.as_str(), b.as_slice()))
        .collect();
    write_stored(&refs)
}

/// `c_clocks.fmu` whose input clock `trigger` has the attributes `attributes` instead of
/// `intervalVariability="triggered"`.
fn trigger_as(attributes: &str) -> Vec<u8> {
    c_clocks_with(|xml| {
        assert!(xml.contains(TRIGGER));
        let declared = TRIGGER.replace(r#"intervalVariability="triggered""#, attributes);
        xml.replace(TRIGGER, &declared)
    })
}

fn load(fmu: &[u8]) -> Result<BinaryModule, FmuError> {
    BinaryModule::from_fmu(fmu, &BTreeMap::new(), RuntimeLimits::default())
}

fn refused(fmu: &[u8]) -> String {
    load(fmu).err().expect("refused").to_string()
}

/// One c_clocks module (tick every 0.25 s), macro step `h`, run to 1 s.
fn run(fmu: &[u8], h: f64) -> Result<String, String> {
    let s = json!({
        "schema_version": 1,
        "modules": [{ "name": "a", "model": "Binary", "source": data_url(fmu) }],
        "connections": [],
        "master": { "algorithm": "jacobi", "macro_step": h },
        "run": { "start": 0.0, "stop": 1.0 },
        "reference": false
    });
    let v = scenario::parse(&s.to_string())
        .and_then(|p| p.validate())
        .map_err(|e| e.to_string())?;
    let mut sim = Simulation::new(&v).map_err(|e| e.to_string())?;
    sim.run_to_end().map_err(|e| e.to_string())?;
    Ok(sim.to_csv())
}

#[test]
fn a_periodic_input_clock_is_ticked_by_the_master_at_its_interval_and_shift() {
    // The same clock written three ways: interval 0.1 s, first tick 0.05 s after the start.
    for attributes in [
        r#"intervalVariability="constant" intervalDecimal="0.1" shiftDecimal="0.05""#,
        r#"intervalVariability="fixed" intervalDecimal="0.1" shiftDecimal="0.05""#,
        r#"intervalVariability="tunable" intervalCounter="2" shiftCounter="1" resolution="20""#,
    ] {
        let m = load(&trigger_as(attributes)).unwrap();
        assert!(
            m.model_description()
                .module
                .variables
                .iter()
                .all(|v| v.name != "trigger"),
            "a periodic input clock is not a port ({attributes})"
        );
        let csv = run(&trigger_as(attributes), 0.05).unwrap_or_else(|e| panic!("{e}"));
        let mut lines = csv.lines();
        assert_eq!(
            lines.next().unwrap(),
            "time,a.tick,a.ticks,a.triggered,a.last_trigger,a.status,a.frame"
        );
        // Rows every 0.05 s: the clock ticks at the odd rows (0.05, 0.15, ...), activated
        // before the step from there, so row i counts the odd rows before it.
        let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
        assert_eq!(rows.len(), 21);
        for (i, row) in rows.iter().enumerate() {
            assert_eq!(
                row[3],
                (i / 2).to_string(),
                "triggered at row {i}: {attributes}"
            );
            let last: f64 = row[4].parse().unwrap();
            let expected = match i {
                0 | 1 => -1.0,
                _ => (2 * ((i - 2) / 2) + 1) as f64 * 0.05,
            };
            assert!((last - expected).abs() < 1e-12, "row {i}: {last}");
        }
    }
}

#[test]
fn a_periodic_tick_between_communication_points_is_refused_naming_the_clock() {
    let fmu = trigger_as(r#"intervalVariability="constant" intervalDecimal="0.125""#);
    // On the fixed grid, at validation: the step to change is the macro step.
    let e = run(&fmu, 0.05).err().expect("refused");
    assert!(
        e.starts_with(
            "master.macro_step: module `a`: periodic input clock `trigger` ticks every 0.125 s \
             from 0 s after the start, between the communication points of the 0.05 s step"
        ),
        "{e}"
    );
    // A step that does not land on a tick (variable steps, or the module driven
    // directly) stops at that step, naming the clock.
    let mut m = load(&fmu).unwrap();
    let options = InstantiateOptions {
        event_mode_used: true,
        early_return_allowed: false,
    };
    m.instantiate(options).unwrap();
    m.enter_initialization_mode(None, 0.0, Some(1.0)).unwrap();
    m.exit_initialization_mode().unwrap();
    m.do_step(0.0, 0.1, false).unwrap();
    let e = m
        .do_step(0.1, 0.1, false)
        .err()
        .expect("refused")
        .to_string();
    assert!(
        e.contains(
            "periodic input clock `trigger` (interval 0.125 s, shift 0 s) ticks at t = 0.125, \
             inside the step of 0.1 s from t = 0.1"
        ),
        "{e}"
    );
    // A macro step that divides the interval runs: ticks at 0, 0.125, ..., 0.875.
    let csv = run(&fmu, 0.125).unwrap_or_else(|e| panic!("{e}"));
    let last = csv.lines().last().unwrap();
    assert_eq!(last.split(',').nth(3), Some("8"), "{csv}");
}

#[test]
fn time_based_clocks_without_fmi3_get_interval_decimal_are_refused_by_name() {
    // c_clocks exports no fmi3GetIntervalDecimal: a clock whose timing only the FMU knows
    // cannot be scheduled.
    for (attributes, kind) in [
        (r#"intervalVariability="countdown""#, ""),
        (r#"intervalVariability="changing""#, ""),
        (r#"intervalVariability="fixed""#, ", no intervalDecimal"),
        (
            r#"intervalVariability="tunable" shiftDecimal="0.1""#,
            ", no intervalDecimal",
        ),
    ] {
        let e = refused(&trigger_as(attributes));
        let variability = attributes.split('"').nth(1).unwrap();
        assert_eq!(
            e,
            format!(
                "the wasm binary does not export `fmi3GetIntervalDecimal` (needed by input clock \
                 `trigger` (intervalVariability=\"{variability}\"{kind}): the master asks the FMU \
                 when it ticks)"
            )
        );
    }
}

#[test]
fn input_clocks_of_no_fmi3_kind_are_refused_by_name() {
    for (attributes, says) in [
        (
            r#"intervalVariability="constant""#,
            "a constant clock declares its interval (intervalDecimal or intervalCounter)",
        ),
        (
            r#"intervalVariability="sometimes""#,
            "not an FMI 3.0 intervalVariability",
        ),
    ] {
        let e = refused(&trigger_as(attributes));
        let variability = attributes.split('"').nth(1).unwrap();
        assert!(
            e.starts_with(&format!(
                "modelDescription.xml: input clock `trigger` (intervalVariability=\"{variability}\"): {says}"
            )),
            "{e}"
        );
    }
    let e = refused(&trigger_as(
        r#"intervalVariability="constant" intervalDecimal="0""#,
    ));
    assert!(
        e.contains("<Clock name=\"trigger\">: the interval and resolution must be positive"),
        "{e}"
    );
}

#[test]
fn a_clock_with_a_dimension_is_refused_as_the_standard_has_no_clock_arrays() {
    let fmu = c_clocks_with(|xml| {
        xml.replace(
            r#"description="ticks every period seconds"/>"#,
            r#"description="ticks every period seconds"><Dimension start="2"/></Clock>"#,
        )
    });
    let e = refused(&fmu);
    assert!(
        e.contains("<Clock name=\"tick\"> has a <Dimension>: FMI 3.0 restricts clocks to scalar"),
        "{e}"
    );
}

#[test]
fn an_fmu_without_co_simulation_names_the_interface_types_it_offers() {
    let xml = |interfaces: &str| {
        format!(
            r#"<fmiModelDescription fmiVersion="3.0" modelName="M" instantiationToken="t">
  {interfaces}
  <ModelVariables><Float64 name="x" valueReference="1"/></ModelVariables>
</fmiModelDescription>"#
        )
    };
    let e = parse(&xml(r#"<ScheduledExecution modelIdentifier="m"/>"#))
        .err()
        .unwrap()
        .to_string();
    assert_eq!(
        e,
        "modelDescription.xml: the FMU offers only Scheduled Execution (no <CoSimulation> \
         element): binary modules run in FMI 3.0 Co-Simulation, and Scheduled Execution is not \
         supported"
    );
    let both = r#"<ModelExchange modelIdentifier="m"/><ScheduledExecution modelIdentifier="m"/>"#;
    let e = parse(&xml(both)).err().unwrap().to_string();
    assert!(
        e.contains("offers only Model Exchange and Scheduled Execution")
            && e.contains("are not supported"),
        "{e}"
    );
    // Co-Simulation beside Scheduled Execution is used.
    let e = parse(&xml(
        r#"<CoSimulation modelIdentifier="m"/><ScheduledExecution modelIdentifier="m"/>"#,
    ));
    assert!(e.is_ok(), "{e:?}");
}

#[test]
fn clocks_need_event_mode_and_the_clock_exports() {
    let e = refused(&c_clocks_with(|xml| {
        xml.replace(r#" hasEventMode="true""#, "")
    }));
    assert!(
        e.contains("output clock `tick`: clocks tick only in Event Mode")
            && e.contains("hasEventMode=\"true\""),
        "{e}"
    );
    // The first-order lag of `tests.rs` with Event Mode but no fmi3GetClock.
    let xml = super::tests::XML
        .replace("canHandle", "hasEventMode=\"true\" canHandle")
        .replace(
            "<Int32 name",
            "<Clock name=\"c\" valueReference=\"5\" causality=\"output\" intervalVariability=\"triggered\"/>\n    <Int32 name",
        );
    let event_mode = r#"(func (export "fmi3EnterEventMode") (param i32) (result i32) (i32.const 0))
  (func (export "fmi3EnterStepMode") (param i32) (result i32) (i32.const 0))
  (func (export "fmi3UpdateDiscreteStates") (param i32 i32 i32 i32 i32 i32 i32) (result i32) (i32.const 0))
  (func (export "fmi3FreeInstance") (param i32))"#;
    let wat = super::tests::WAT.replace(
        r#"(func (export "fmi3FreeInstance") (param i32))"#,
        event_mode,
    );
    let e = refused(&super::tests::fmu(&xml, &wat));
    assert_eq!(
        e,
        "the wasm binary does not export `fmi3GetClock` and `fmi3SetClock` (needed by output \
         clock `c`)"
    );
}
