//! `cosim run` on a defect-controlled scenario (issue 11): variable steps that end on the
//! stop time, the `H` and `defect` columns, no rollback in the summary, the run-wide RMS
//! defects, and bad settings named by their JSON path.

use std::path::PathBuf;
use std::process::{Command, Output};

fn cosim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cosim"))
        .args(args)
        .output()
        .expect("cosim runs")
}

fn temp_file(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cosim-defect-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// Seed 000's two masses under defect control, monitoring the connection defects (the
/// exact masses report output and input derivatives up to 2 but no midpoint samples).
fn scenario(tol: serde_json::Value, output_order: u32) -> serde_json::Value {
    let out = cosim(&["preset", "two-mass-oscillator"]);
    assert!(out.status.success());
    let mut doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let master = &mut doc["master"];
    master["extrapolation_order"] = 0.into();
    master["start_up"] = "ramp_up".into();
    master["macro_step"] = 1e-5.into();
    master["defects"] = serde_json::json!({
        "input_order": 2, "output_order": output_order, "monitored": "connection"
    });
    master["step_control"] = serde_json::json!({"method": "defect", "tol": tol});
    doc["run"]["stop"] = 2e-3.into();
    doc
}

#[test]
fn run_writes_step_sizes_and_defects_and_never_rolls_back() {
    let path = temp_file("defect.json", &scenario(1.0.into(), 2).to_string());
    let csv_path = path.with_extension("csv");
    let out = cosim(&[
        "run",
        path.to_str().unwrap(),
        "--out",
        csv_path.to_str().unwrap(),
    ]);
    let summary = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{summary}");
    assert!(
        summary.contains("0 rejected attempts rolled back"),
        "{summary}"
    );
    assert!(
        summary.contains("RMS connection defect mass1.Fk"),
        "{summary}"
    );
    let csv = std::fs::read_to_string(csv_path).unwrap();
    let mut lines = csv.lines();
    let header = lines.next().unwrap();
    assert!(
        header.starts_with("time,mass1.s1,mass1.v1,mass2.Fk,mass1.s1:reference")
            && header.ends_with(",H,defect"),
        "{header}"
    );
    let rows: Vec<Vec<f64>> = lines
        .skip(1)
        .map(|l| l.split(',').map(|v| v.parse().unwrap()).collect())
        .collect();
    let (h, defect) = (rows[0].len() - 2, rows[0].len() - 1);
    let last = rows.last().unwrap();
    assert_eq!(last[0], 2e-3, "the last step lands on the stop time");
    let (h_min, h_max) = rows
        .iter()
        .fold((f64::MAX, 0.0f64), |(a, b), r| (a.min(r[h]), b.max(r[h])));
    assert!(h_max > 1.5 * h_min, "steps vary: {h_min}..{h_max}");
    assert!(rows
        .iter()
        .all(|r| r[defect] >= 0.0 && r[defect].is_finite()));
}

#[test]
fn bad_defect_settings_name_their_field() {
    for (doc, field) in [
        (scenario(0.0.into(), 2), "master.step_control.tol"),
        (scenario((-1.0).into(), 2), "master.step_control.tol"),
        (scenario(1e-3.into(), 3), "master.defects.output_order"),
    ] {
        let path = temp_file("bad.json", &doc.to_string());
        let out = cosim(&["run", path.to_str().unwrap()]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert!(stderr.contains(field), "expected `{field}` in: {stderr}");
    }
    // The propagation-matrix analysis does not model this master and says so.
    let path = temp_file("stability.json", &scenario(1e-3.into(), 2).to_string());
    let out = cosim(&["stability", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("master.defects"));
}
