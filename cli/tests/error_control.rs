//! `cosim run` on an error-controlled scenario (issue 15, seed 002): the `H`, `k` and
//! `error` columns, the last step on the stop time, accepted and rejected steps in the
//! summary, and bad settings named by their JSON path.

use std::path::PathBuf;
use std::process::{Command, Output};

fn cosim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cosim"))
        .args(args)
        .output()
        .expect("cosim runs")
}

fn temp_file(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cosim-error-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// Seed 000's two masses with `step_control` set to `control`.
fn scenario(control: serde_json::Value) -> serde_json::Value {
    let out = cosim(&["preset", "two-mass-oscillator"]);
    assert!(out.status.success());
    let mut doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    doc["master"]["macro_step"] = 1e-4.into();
    doc["master"]["start_up"] = "ramp_up".into();
    doc["master"]["step_control"] = control;
    doc["run"]["stop"] = 5e-3.into();
    doc
}

#[test]
fn run_writes_h_k_and_error_and_counts_rejections() {
    let control = serde_json::json!({
        "method": "error", "estimator": "ex_milne", "rtol": 1e-6,
        "atol": {"pos": 1e-8, "vel": 1e-5, "u": 1e-3}
    });
    let path = temp_file("error.json", &scenario(control).to_string());
    let csv_path = path.with_extension("csv");
    let out = cosim(&[
        "run",
        path.to_str().unwrap(),
        "--out",
        csv_path.to_str().unwrap(),
    ]);
    let summary = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{summary}");
    // A first step of 1e-4 s is far too large for rtol 1e-6: rejected and retried.
    assert!(summary.contains("accepted, H from"), "{summary}");
    assert!(!summary.contains("; 0 rejected attempts"), "{summary}");
    let csv = std::fs::read_to_string(csv_path).unwrap();
    let mut lines = csv.lines();
    let header = lines.next().unwrap();
    assert!(header.ends_with(",H,k,error"), "{header}");
    let rows: Vec<Vec<f64>> = lines
        .skip(1)
        .map(|l| l.split(',').map(|v| v.parse().unwrap()).collect())
        .collect();
    let n = rows[0].len();
    assert_eq!(
        rows.last().unwrap()[0],
        5e-3,
        "the last step lands on the stop time"
    );
    assert!(rows
        .iter()
        .all(|r| r[n - 1] <= 1.0 && (0.0..=5.0).contains(&r[n - 2])));
}

#[test]
fn bad_error_control_settings_name_their_field() {
    let with = |extra: serde_json::Value| {
        let mut c = serde_json::json!({"method": "error", "estimator": "ex_milne", "rtol": 1e-4});
        for (k, v) in extra.as_object().unwrap() {
            c[k] = v.clone();
        }
        scenario(c)
    };
    for (doc, field) in [
        (
            with(serde_json::json!({"rtol": 0})),
            "master.step_control.rtol",
        ),
        (
            with(serde_json::json!({"estimator": "im_milne"})),
            "master.step_control.estimator",
        ),
        (
            with(serde_json::json!({"h_min": 1e-3, "h_max": 1e-4})),
            "master.step_control.h_min",
        ),
        (
            with(serde_json::json!({"order": {"variable": {"k_max": 6}}})),
            "master.step_control.order.variable.k_max",
        ),
    ] {
        let path = temp_file("bad.json", &doc.to_string());
        let out = cosim(&["run", path.to_str().unwrap()]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert!(stderr.contains(field), "expected `{field}` in: {stderr}");
    }
    let path = temp_file("stability.json", &with(serde_json::json!({})).to_string());
    let out = cosim(&["stability", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("master.step_control"));
}
