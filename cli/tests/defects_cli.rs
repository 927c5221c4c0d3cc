//! `cosim defects` end to end: the E3 sweep's CSV and slopes, the E1 response, and exit
//! code 2 with a message naming the option for mistakes.

use std::process::{Command, Output};

fn cosim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cosim"))
        .args(args)
        .output()
        .expect("cosim runs")
}

fn temp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("cosim-defects-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir.join(name)
}

#[test]
fn e3_writes_one_row_per_step_size_and_prints_the_slopes() {
    let csv = temp("e3.csv");
    let out = cosim(&[
        "defects",
        "E3",
        "--slaves",
        "exact",
        "--init",
        "consistent",
        "--orders",
        "0,2",
        "--out",
        csv.to_str().unwrap(),
    ]);
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&csv).expect("csv");
    let mut lines = text.lines();
    let header = lines.next().expect("header");
    assert!(
        header.starts_with("experiment,slaves,init,m,n,h,"),
        "{header}"
    );
    assert!(header.ends_with(",bound,error_over_bound"), "{header}");
    let rows: Vec<&str> = lines.collect();
    assert_eq!(rows.len(), 32, "16 step sizes × 2 orders");
    assert!(
        rows[0].starts_with("E3,exact,consistent,0,0,1e-3,"),
        "{}",
        rows[0]
    );
    // Every ratio of Theorem 1 is below 1.
    for r in &rows {
        let ratio: f64 = r.rsplit(',').next().unwrap().parse().expect("ratio");
        assert!(ratio > 0.0 && ratio < 1.0, "{r}");
    }
    assert!(
        report.contains("order 0:") && report.contains("order 2:"),
        "{report}"
    );
    // Exact slaves, consistent start, order 2: third-order output defects.
    let line = report
        .lines()
        .find(|l| l.contains("order 2:"))
        .expect("order 2");
    assert!(line.contains("output defect [3.0"), "{line}");
}

#[test]
fn e1_writes_the_piecewise_response_against_the_exact_one() {
    let csv = temp("e1.csv");
    let out = cosim(&["defects", "e1", "--out", csv.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&csv).expect("csv");
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("t,H,t2o.omega,o2t.tau,exact_t2o.omega,exact_o2t.tau")
    );
    // Five samples in each of the 50 steps of h = 1.
    assert_eq!(lines.count(), 250);
    assert!(String::from_utf8_lossy(&out.stdout).contains("50 steps"));
}

#[test]
fn mistakes_name_the_option() {
    for (args, expect) in [
        (vec!["defects"], "experiment"),
        (vec!["defects", "E7"], "unknown experiment `E7`"),
        (vec!["defects", "E3", "--orders", "0,3"], "--orders: `3`"),
        (vec!["defects", "E3", "--slaves", "rk4"], "--slaves: `rk4`"),
        (vec!["defects", "E3", "--init", "exact"], "--init: `exact`"),
        (vec!["defects", "E3", "--fit", "1:0.1"], "--fit"),
        (vec!["defects", "E3", "--out"], "--out needs a value"),
    ] {
        let out = cosim(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(expect), "{args:?}: {err}");
    }
}
