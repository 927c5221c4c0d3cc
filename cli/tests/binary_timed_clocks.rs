//! Time-based input clocks whose timing the FMU gives, through `cosim`, with
//! `tests/fixtures/fmus/c_timers.fmu` (`examples/fmus/c_timers`): `cosim validate` and
//! `cosim run` tick its tunable periodic, countdown and changing clocks at the times
//! `fmi3GetIntervalDecimal` gives (the CSV checked cell by cell); a parameter that puts a
//! tick between communication points makes `cosim run` fail naming the module, the clock
//! and the time.

use serde_json::{json, Value};

mod fmu_fixture;
use fmu_fixture::cosim;

const FMU: &str = "c_timers.fmu";

/// Module `timers` (the fixture beside the scenario) with `parameters`, macro step
/// 0.05 s, run to 1 s.
fn scenario(parameters: Value) -> Value {
    json!({
        "schema_version": 1,
        "modules": [{ "name": "timers", "model": "Binary", "source": "fmus/c_timers.fmu",
                      "parameters": parameters }],
        "connections": [],
        "master": { "algorithm": "jacobi", "macro_step": 0.05 },
        "run": { "start": 0.0, "stop": 1.0 },
        "reference": false
    })
}

/// `cosim validate` and `cosim run` of `s`: whether each succeeded, the CSV, stderr.
fn run(tag: &str, s: &Value) -> (bool, bool, String, String) {
    let dir = fmu_fixture::temp_dir(FMU, tag);
    std::fs::write(dir.join("s.json"), s.to_string()).unwrap();
    let validated = cosim(&dir, &["validate", "s.json"]).status.success();
    let out = cosim(&dir, &["run", "s.json", "--out", "out.csv"]);
    let csv = std::fs::read_to_string(dir.join("out.csv")).unwrap_or_default();
    std::fs::remove_dir_all(&dir).ok();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (validated, out.status.success(), csv, stderr)
}

/// Counts of a clock's ticks at rows 0..=20 when it ticked at the rows `ticks`: a tick at
/// row j is counted from row j + 1 (activated before the step that starts there).
fn counts(ticks: &[usize]) -> Vec<String> {
    (0..21)
        .map(|i| ticks.iter().filter(|&&j| j < i).count().to_string())
        .collect()
}

#[test]
fn cosim_run_ticks_the_clocks_at_the_times_the_fmu_gives() {
    let (validated, ok, csv, stderr) = run("run", &scenario(json!({})));
    assert!(validated && ok, "{stderr}");
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some(
            "time,timers.samples,timers.last_sample,timers.alarms,timers.last_alarm,timers.pulses"
        )
    );
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 21, "{csv}");
    let column = |k: usize| -> Vec<String> { rows.iter().map(|r| r[k].to_string()).collect() };
    // sample: 0.05, 0.15, 0.25, then (interval doubled at the 3rd tick) 0.45, 0.65, 0.85.
    assert_eq!(column(1), counts(&[1, 3, 5, 9, 13, 17]), "{csv}");
    // alarm (countdown): 0.3, then 0.1 s after each tick of sample that re-armed it.
    assert_eq!(column(3), counts(&[6, 11, 15, 19]), "{csv}");
    // pulse (changing): 0.2, then 0.1 and 0.2 in turn.
    assert_eq!(column(5), counts(&[4, 6, 10, 12, 16, 18]), "{csv}");
    assert_eq!(
        rows[20][1..].join(","),
        "6,8.500000000000001e-1,4,9.500000000000001e-1,6"
    );
}

#[test]
fn cosim_run_refuses_a_tick_between_communication_points_naming_module_clock_and_time() {
    let (validated, ok, _, stderr) = run("off-grid", &scenario(json!({ "delay": 0.12 })));
    // The due time is known only once the FMU runs: `validate` passes, `run` stops.
    assert!(validated, "{stderr}");
    assert!(!ok);
    assert!(
        stderr.contains("`timers`")
            && stderr.contains(
                "countdown input clock `alarm` is due at t = 0.5700000000000001, inside the step \
                 of 0.05 s from t = 0.55"
            ),
        "{stderr}"
    );
}
