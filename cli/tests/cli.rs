//! The `cosim` binary end to end: presets, runs, and clear failures with non-zero exit
//! codes for bad input (issue 2 acceptance).

use std::path::PathBuf;
use std::process::{Command, Output};

fn cosim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cosim"))
        .args(args)
        .output()
        .expect("cosim runs")
}

fn temp_file(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cosim-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn preset_json() -> serde_json::Value {
    let out = cosim(&["preset", "two-mass-oscillator"]);
    assert!(out.status.success());
    serde_json::from_slice(&out.stdout).expect("preset prints JSON")
}

fn run_expecting_error(name: &str, doc: &str, expected: &[&str]) {
    let path = temp_file(name, doc);
    let out = cosim(&["run", path.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{name}: {stderr}");
    for e in expected {
        assert!(stderr.contains(e), "{name}: expected `{e}` in: {stderr}");
    }
    assert!(out.stdout.is_empty(), "{name}: no CSV on failure");
}

#[test]
fn presets_are_listed_and_printed_as_scenario_json() {
    let out = cosim(&["presets"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("two-mass-oscillator"));
    let doc = preset_json();
    assert_eq!(doc["schema_version"], 1);
}

#[test]
fn run_writes_time_outputs_and_reference_as_csv() {
    let path = temp_file("preset.json", &preset_json().to_string());
    let csv_path = path.with_extension("csv");
    let out = cosim(&[
        "run",
        path.to_str().unwrap(),
        "--out",
        csv_path.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let csv = std::fs::read_to_string(&csv_path).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next().unwrap(),
        "time,mass1.s1,mass1.v1,mass2.Fk,mass1.s1:reference,mass1.v1:reference,mass2.Fk:reference"
    );
    let rows: Vec<Vec<f64>> = lines
        .map(|l| l.split(',').map(|x| x.parse().unwrap()).collect())
        .collect();
    assert_eq!(
        rows.len(),
        1001,
        "0.1 s at 1e-4 s is 1000 macro-steps plus the start"
    );
    // The first row is the initial state: s1 = 0.01 m at rest, and co-simulation equals reference.
    assert_eq!(&rows[0][..4], &[0.0, 0.01, 0.0, -0.01 * 2e5]);
    for j in 1..4 {
        assert!((rows[0][j] - rows[0][j + 3]).abs() <= 1e-12 * rows[0][j].abs().max(1e-300));
    }
    // First-order extrapolation at 1e-4 s tracks the reference closely.
    let worst = rows.iter().map(|r| (r[1] - r[4]).abs()).fold(0.0, f64::max);
    assert!(worst < 1e-4, "position error {worst}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("global NRMSE"));
}

#[test]
fn bad_input_gives_a_message_naming_the_field_and_exit_code_1() {
    run_expecting_error(
        "malformed.json",
        "{\"schema_version\": 1, \"modules\": [",
        &["malformed JSON", "line 1"],
    );

    let mut doc = preset_json();
    doc["modules"][1]["model"] = "NoSuchModel".into();
    run_expecting_error(
        "unknown-model.json",
        &doc.to_string(),
        &["modules[1].model", "NoSuchModel"],
    );

    let mut doc = preset_json();
    doc["connections"].as_array_mut().unwrap().remove(0);
    run_expecting_error(
        "unconnected.json",
        &doc.to_string(),
        &["mass1.Fk", "not connected"],
    );

    let mut doc = preset_json();
    doc["modules"][1]["parameters"]["ck"] = serde_json::Value::Null; // what JSON makes of NaN
    run_expecting_error("nan.json", &doc.to_string(), &["modules[1].parameters.ck"]);

    let mut doc = preset_json();
    doc["modules"][1]["parameters"]["ck"] = (-3.0).into();
    run_expecting_error(
        "negative.json",
        &doc.to_string(),
        &["modules[1].parameters.ck", "-3"],
    );

    for h in [0.0, -1e-3] {
        let mut doc = preset_json();
        doc["master"]["macro_step"] = h.into();
        run_expecting_error(
            "zero-step.json",
            &doc.to_string(),
            &["master.macro_step", "positive"],
        );
    }
}

#[test]
fn wrong_command_lines_exit_with_2() {
    assert_eq!(cosim(&[]).status.code(), Some(2));
    assert_eq!(cosim(&["frobnicate"]).status.code(), Some(2));
    assert_eq!(cosim(&["preset", "no-such-preset"]).status.code(), Some(1));
    let missing = cosim(&["run", "/definitely/not/here.json"]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("cannot read"));
}

#[test]
fn a_stop_time_between_macro_steps_is_the_last_csv_row_or_refused_with_the_nearest() {
    // The two-mass preset (ΔT = 1e-4 s) stopped at 0.09995 s: 999 steps and one of 5e-5 s.
    let mut doc = preset_json();
    doc["run"]["stop"] = serde_json::json!(0.09995);
    let path = temp_file("stop-between.json", &doc.to_string());
    let out = cosim(&["run", path.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let csv = String::from_utf8(out.stdout).unwrap();
    assert_eq!(csv.lines().count(), 1 + 1001);
    let last = csv.lines().last().unwrap();
    assert!(last.starts_with("9.995e-2,"), "{last}");
    let before = csv.lines().nth(1000).unwrap();
    assert!(before.starts_with("9.99e-2,"), "{before}");

    // Model-based correction takes only whole macro-steps: refused, naming both neighbours.
    doc["master"]["correction"] = serde_json::json!({"alpha": 1.0});
    run_expecting_error(
        "stop-corrected.json",
        &doc.to_string(),
        &[
            "run.stop",
            "model-based correction",
            "stop at 0.0999 s or 0.1 s",
        ],
    );
}
