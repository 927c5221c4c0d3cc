//! Time-based input clocks whose timing only the FMU knows, with the C test FMU
//! `examples/fmus/c_timers` (`tests/fixtures/fmus/c_timers.fmu`): a tunable periodic clock
//! (interval and shift asked in Initialization Mode, the interval changed at an event), a
//! countdown and a changing clock, run on a 0.05 s grid and compared row by row with the
//! tick times the model's definition gives (a countdown made due at once included); a
//! reset forgets the schedule; ticks off the grid and qualifiers the standard forbids are
//! errors naming the clock.

use super::archive::{write_stored, Archive};
use super::{BinaryModule, RuntimeLimits};
use crate::module::{InstantiateOptions, Module};
use crate::scenario::{self, data_url};
use crate::simulation::Simulation;
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use serde_json::{json, Value};

const C_TIMERS: &[u8] = include_bytes!("../../../tests/fixtures/fmus/c_timers.fmu");
const H: f64 = 0.05;

/// `c_timers.fmu` with `modelDescription.xml` edited by `edit`.
fn c_timers_with(edit: impl Fn(&str) -> String) -> Vec<u8> {
    let archive = Archive::parse(C_TIMERS).unwrap();
    let names: Vec<String> = archive.names().map(str::to_string).collect();
    let files: Vec<(String, Vec<u8>)> = names
        .into_iter()
        .map(|n| {
            let mut bytes = archive.read(&n).unwrap().unwrap();
            if n == "modelDescription.xml" {
                let xml = core::str::from_utf8(&bytes).unwrap();
                let changed = edit(xml);
                assert_ne!(changed, xml, "the edit applies");
                bytes = changed.into_bytes();
            }
            (n, bytes)
        })
        .collect();
    let refs: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(n, b)| (n.as_str(), b.as_slice()))
        .collect();
    write_stored(&refs)
}

/// One module `t` with archive `fmu` and `parameters`, macro step 0.05 s, run to 1 s.
fn run(fmu: &[u8], parameters: Value) -> Result<String, String> {
    let s = json!({
        "schema_version": 1,
        "modules": [{ "name": "t", "model": "Binary", "source": data_url(fmu),
                      "parameters": parameters }],
        "connections": [],
        "master": { "algorithm": "jacobi", "macro_step": H },
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

/// The rows of `csv` (after its header, checked), split at commas.
fn rows(csv: &str) -> Vec<Vec<String>> {
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("time,t.samples,t.last_sample,t.alarms,t.last_alarm,t.pulses")
    );
    let rows: Vec<Vec<String>> = lines
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect();
    assert_eq!(rows.len(), 21, "{csv}");
    rows
}

/// Checks that a clock ticked at the rows `ticks` (row k is t = 0.05 k): its count
/// (column `count`) and last tick time (column `last`, if any) at row i show the ticks
/// before row i (a clock is activated before the step from its tick, and the row at a
/// communication point is written before that step).
fn check(rows: &[Vec<String>], name: &str, ticks: &[usize], count: usize, last: Option<usize>) {
    for (i, row) in rows.iter().enumerate() {
        let before: Vec<usize> = ticks.iter().copied().filter(|&j| j < i).collect();
        assert_eq!(
            row[count],
            before.len().to_string(),
            "{name}: count at row {i}"
        );
        if let Some(col) = last {
            let expected = before.last().map_or(-1.0, |&j| j as f64 * H);
            let got: f64 = row[col].parse().unwrap();
            // The FMU's own time adds up 0.05 s steps: equal to the last bits.
            assert!(
                (got - expected).abs() < 1e-12,
                "{name}: last tick at row {i}: {got}"
            );
        }
    }
}

#[test]
fn computed_tunable_countdown_and_changing_clocks_tick_at_the_times_the_fmu_gives() {
    let csv = run(C_TIMERS, json!({})).unwrap_or_else(|e| panic!("{e}"));
    let rows = rows(&csv);
    // sample: interval 0.1 s and shift 0.05 s from Initialization Mode: 0.05, 0.15, 0.25;
    // the FMU doubles the interval at its 3rd tick (fmi3IntervalChanged, from 0.25): 0.45,
    // 0.65, 0.85.
    check(&rows, "sample", &[1, 3, 5, 9, 13, 17], 1, Some(2));
    // alarm: first 0.3 s after the start; each later tick 0.1 s (delay) after the tick of
    // sample that armed it: 0.45 + 0.1, 0.65 + 0.1, 0.85 + 0.1.
    check(&rows, "alarm", &[6, 11, 15, 19], 3, Some(4));
    // pulse: 0.2, then 0.1 and 0.2 in turn: 0.3, 0.5, 0.6, 0.8, 0.9.
    check(&rows, "pulse", &[4, 6, 10, 12, 16, 18], 5, None);
    // The last row written out (the FMU's clock adds 0.05 s steps: 0.85 and 0.95 to one ulp).
    assert_eq!(
        rows[20][1..].join(","),
        "6,8.500000000000001e-1,4,9.500000000000001e-1,6"
    );
}

#[test]
fn a_fixed_clock_keeps_the_interval_of_initialization_mode() {
    // As `fixed` (and the pre-release spelling `calculated`), sample is not asked again:
    // every 0.1 s from 0.05. The alarm, armed by a tick of sample, then ticks together
    // with sample from 0.45 on (one Event Mode: the FMU counts the alarm, then re-arms it).
    for variability in ["fixed", "calculated"] {
        let fmu = c_timers_with(|xml| {
            xml.replace(
                r#"intervalVariability="tunable""#,
                &format!(r#"intervalVariability="{variability}""#),
            )
        });
        let csv = run(&fmu, json!({})).unwrap_or_else(|e| panic!("{variability}: {e}"));
        let rows = rows(&csv);
        let sample: Vec<usize> = (0..10).map(|k| 1 + 2 * k).collect();
        check(&rows, "sample", &sample, 1, Some(2));
        check(&rows, "alarm", &[6, 9, 11, 13, 15, 17, 19], 3, Some(4));
    }
}

#[test]
fn a_parameter_moves_the_computed_ticks() {
    // period 0.2, offset 0, delay 0.25: sample at 0, 0.2, 0.4, then every 0.4: 0.8; the
    // alarm at 0.3, then 0.25 after sample's 0.4: 0.65.
    let csv = run(
        C_TIMERS,
        json!({ "period": 0.2, "offset": 0.0, "delay": 0.25 }),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let rows = rows(&csv);
    check(&rows, "sample", &[0, 4, 8, 16], 1, Some(2));
    check(&rows, "alarm", &[6, 13], 3, Some(4));
}

#[test]
fn a_computed_tick_between_communication_points_is_an_error_naming_clock_and_time() {
    let e = run(C_TIMERS, json!({ "period": 0.12 })).expect_err("refused");
    assert!(
        e.contains(
            "periodic input clock `sample` (interval 0.12 s, shift 0.05 s) ticks at t = \
             0.16999999999999998, inside the step of 0.05 s from t = 0.15000000000000002"
        ),
        "{e}"
    );
    let e = run(C_TIMERS, json!({ "delay": 0.12 })).expect_err("refused");
    assert!(
        e.contains(
            "countdown input clock `alarm` is due at t = 0.5700000000000001, inside the step \
             of 0.05 s from t = 0.55: the master activates clocks at communication points"
        ),
        "{e}"
    );
}

#[test]
fn a_qualifier_the_standard_forbids_for_the_kind_is_an_error_naming_the_clock() {
    // As a changing clock, alarm is asked when it ticked (0.3); the FMU answers
    // fmi3IntervalNotYetKnown, which only a countdown clock may.
    let fmu = c_timers_with(|xml| {
        xml.replace(
            r#"intervalVariability="countdown""#,
            r#"intervalVariability="changing""#,
        )
    });
    let e = run(&fmu, json!({})).expect_err("refused");
    assert!(
        e.contains(
            "changing input clock `alarm`: fmi3GetIntervalDecimal returned \
             fmi3IntervalNotYetKnown in Event Mode, which FMI 3.0 allows only for countdown clocks"
        ),
        "{e}"
    );
}

#[test]
fn a_countdown_made_due_at_once_ticks_in_a_further_event_mode_at_the_same_point() {
    // delay 0: the tick of sample that arms the alarm (0.45, 0.65, 0.85) makes it due at
    // once; the master activates it in a second Event Mode at that communication point.
    let csv = run(C_TIMERS, json!({ "delay": 0.0 })).unwrap_or_else(|e| panic!("{e}"));
    let rows = rows(&csv);
    check(&rows, "sample", &[1, 3, 5, 9, 13, 17], 1, Some(2));
    check(&rows, "alarm", &[6, 9, 13, 17], 3, Some(4));
}

#[test]
fn a_reset_forgets_the_schedule_and_initialization_mode_gives_it_again() {
    let mut m = BinaryModule::from_fmu(C_TIMERS, &BTreeMap::new(), RuntimeLimits::default())
        .unwrap_or_else(|e| panic!("{e}"));
    let port = |m: &BinaryModule, name: &str| {
        let vars = &m.model_description().module.variables;
        vars.iter().find(|v| v.name == name).unwrap().value_ref
    };
    let (samples, alarms) = (port(&m, "samples"), port(&m, "alarms"));
    let options = InstantiateOptions {
        event_mode_used: true,
        early_return_allowed: false,
    };
    m.instantiate(options).unwrap();
    let counts = |m: &mut BinaryModule, start: f64, steps: usize| {
        m.enter_initialization_mode(None, start, None).unwrap();
        m.exit_initialization_mode().unwrap();
        for k in 0..steps {
            let t = start + k as f64 * H;
            m.do_step(t, H, false)
                .unwrap_or_else(|e| panic!("t = {t}: {e}"));
        }
        let mut got = [0.0; 2];
        m.get_float64(&[samples, alarms], &mut got).unwrap();
        got
    };
    // From 0 to 0.3: sample at 0.05, 0.15, 0.25 (interval doubled at the 3rd); the alarm,
    // due at 0.3, not yet.
    assert_eq!(counts(&mut m, 0.0, 6), [3.0, 0.0]);
    // From 1.02 after fmi3Reset: sample at 1.07 (the old schedule would have it at 1.05,
    // inside the first step, and the alarm overdue), the alarm at 1.32.
    m.reset().unwrap();
    assert_eq!(counts(&mut m, 1.02, 2), [1.0, 0.0]);
    m.reset().unwrap();
    assert_eq!(counts(&mut m, 1.02, 7), [3.0, 1.0]);
}
