//! The clocks `cosim` serves and those it refuses, with `tests/fixtures/fmus/c_clocks.fmu`
//! whose `modelDescription.xml` is edited: an input clock declared periodic is ticked by
//! the master at its interval (`cosim run`); `cosim validate` refuses, at the module's
//! `source` and naming the module and the clock, a clock whose timing only the FMU knows
//! when the module lacks `fmi3GetIntervalDecimal`, a constant clock without its interval,
//! a clock array, clocks without Event Mode, and an FMU that offers only Scheduled
//! Execution.

use cosim_core::fmu::archive::{write_stored, Archive};
use cosim_core::scenario::data_url;
use serde_json::{json, Value};

mod fmu_fixture;
use fmu_fixture::cosim;

const FMU: &str = "c_clocks.fmu";
const TRIGGER: &str = r#"intervalVariability="triggered" description="counted into triggered""#;

/// `c_clocks.fmu` with `modelDescription.xml` edited by `edit`.
fn edited(edit: impl Fn(&str) -> String) -> Vec<u8> {
    let bytes = fmu_fixture::fixture(FMU);
    let archive = Archive::parse(&bytes).unwrap();
    let files: Vec<(String, Vec<u8>)> = archive
        .names()
        .map(|n| {
            let mut data = archive.read(n).unwrap().unwrap();
            if n == "modelDescription.xml" {
                let xml = String::from_utf8(data).unwrap();
                let changed = edit(&xml);
                assert_ne!(changed, xml, "the edit applies");
                data = changed.into_bytes();
            }
            (n.to_string(), data)
        })
        .collect();
    let refs: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(n, b)| (n.as_str(), b.as_slice()))
        .collect();
    write_stored(&refs)
}

/// `c_clocks.fmu` whose input clock `trigger` has `attributes` instead of being triggered.
fn trigger_as(attributes: &str) -> Vec<u8> {
    edited(|xml| xml.replace(TRIGGER, &format!("{attributes} description=\"periodic\"")))
}

/// One module `clocked` whose archive `fmu` is embedded (a data: URL), macro step
/// 0.05 s, run to 1 s.
fn scenario(fmu: &[u8]) -> Value {
    json!({
        "schema_version": 1,
        "modules": [{ "name": "clocked", "model": "Binary", "source": data_url(fmu) }],
        "connections": [],
        "master": { "algorithm": "jacobi", "macro_step": 0.05 },
        "run": { "start": 0.0, "stop": 1.0 },
        "reference": false
    })
}

/// What `cosim validate` prints when it refuses the scenario with `fmu`.
fn validate_error(tag: &str, fmu: &[u8]) -> String {
    fmu_fixture::validate_error(FMU, tag, scenario(fmu))
}

/// `cosim validate` and `cosim run` of the scenario with `fmu`: whether each succeeded,
/// the CSV and what the run printed on stderr.
fn run(tag: &str, fmu: &[u8]) -> (bool, bool, String, String) {
    let dir = fmu_fixture::temp_dir(FMU, tag);
    std::fs::write(dir.join("s.json"), scenario(fmu).to_string()).unwrap();
    let validated = cosim(&dir, &["validate", "s.json"]).status.success();
    let out = cosim(&dir, &["run", "s.json", "--out", "out.csv"]);
    let csv = std::fs::read_to_string(dir.join("out.csv")).unwrap_or_default();
    std::fs::remove_dir_all(&dir).ok();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (validated, out.status.success(), csv, stderr)
}

#[test]
fn cosim_run_ticks_a_periodic_input_clock_at_its_interval() {
    let fmu = trigger_as(r#"intervalVariability="fixed" intervalDecimal="0.2" shiftDecimal="0.1""#);
    let (validated, ok, csv, stderr) = run("run", &fmu);
    assert!(validated && ok, "{stderr}");
    // Ticks at t = 0.1, 0.3, 0.5, 0.7, 0.9 (rows 2, 6, 10, 14, 18), each counted from the
    // row after it; `last_trigger` is the tick's time.
    let rows: Vec<Vec<&str>> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    assert_eq!(rows.len(), 21, "{csv}");
    let triggered: Vec<&str> = rows.iter().map(|r| r[3]).collect();
    let expected: Vec<String> = (0..21usize)
        .map(|i| (0..i).filter(|j| j % 4 == 2).count().to_string())
        .collect();
    assert_eq!(triggered, expected, "{csv}");
    // The FMU's own clock adds up 0.05 s steps: 0.9 to the last bit but one.
    let last: f64 = rows[20][4].parse().unwrap();
    assert!((last - 0.9).abs() < 1e-12, "{csv}");
    assert_eq!(
        csv.lines().next(),
        Some("time,clocked.tick,clocked.ticks,clocked.triggered,clocked.last_trigger,clocked.status,clocked.frame")
    );
}

#[test]
fn cosim_validate_refuses_a_macro_step_that_steps_over_periodic_ticks() {
    let fmu = trigger_as(r#"intervalVariability="constant" intervalDecimal="0.125""#);
    let err = validate_error("off-grid", &fmu);
    assert!(
        err.contains(
            "master.macro_step: module `clocked`: periodic input clock `trigger` ticks every \
             0.125 s from 0 s after the start, between the communication points of the 0.05 s \
             step: the master ticks periodic clocks at communication points"
        ),
        "{err}"
    );
}

#[test]
fn cosim_validate_refuses_clocks_it_cannot_serve_naming_module_and_clock() {
    let at = "modules[0].source: module `clocked`: modelDescription.xml: ";
    // c_clocks exports no fmi3GetIntervalDecimal: a clock whose timing only the FMU
    // knows (countdown, or tunable without intervalDecimal) cannot be scheduled.
    let err = validate_error(
        "countdown",
        &trigger_as(r#"intervalVariability="countdown""#),
    );
    assert!(
        err.contains(
            "modules[0].source: module `clocked`: the wasm binary does not export \
             `fmi3GetIntervalDecimal` (needed by input clock `trigger` \
             (intervalVariability=\"countdown\"): the master asks the FMU when it ticks)"
        ),
        "{err}"
    );
    let err = validate_error("tunable", &trigger_as(r#"intervalVariability="tunable""#));
    assert!(
        err.contains(
            "modules[0].source: module `clocked`: the wasm binary does not export \
             `fmi3GetIntervalDecimal` (needed by input clock `trigger` \
             (intervalVariability=\"tunable\", no intervalDecimal)"
        ),
        "{err}"
    );
    let err = validate_error("constant", &trigger_as(r#"intervalVariability="constant""#));
    assert!(
        err.contains(&format!(
            "{at}input clock `trigger` (intervalVariability=\"constant\"): a constant clock \
             declares its interval"
        )),
        "{err}"
    );
    let array = edited(|xml| {
        xml.replace(
            r#"description="ticks every period seconds"/>"#,
            r#"description="ticks every period seconds"><Dimension start="3"/></Clock>"#,
        )
    });
    let err = validate_error("array", &array);
    assert!(
        err.contains(&format!(
            "{at}<Clock name=\"tick\"> has a <Dimension>: FMI 3.0 restricts clocks to scalar variables"
        )),
        "{err}"
    );
    let no_events = edited(|xml| xml.replace(r#" hasEventMode="true""#, ""));
    let err = validate_error("no-events", &no_events);
    assert!(
        err.contains(&format!(
            "{at}output clock `tick`: clocks tick only in Event Mode"
        )),
        "{err}"
    );
    let scheduled = edited(|xml| {
        let cs = xml.lines().find(|l| l.contains("<CoSimulation")).unwrap();
        xml.replace(cs, r#"  <ScheduledExecution modelIdentifier="c_clocks"/>"#)
    });
    let err = validate_error("scheduled", &scheduled);
    assert!(
        err.contains(&format!(
            "{at}the FMU offers only Scheduled Execution (no <CoSimulation> element)"
        )),
        "{err}"
    );
}
