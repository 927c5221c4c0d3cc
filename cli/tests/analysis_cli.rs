//! `cosim stability`, `cosim map` and `cosim convergence` end to end on the two-mass
//! preset: output shapes, thread-count independence, and exit codes 1 / 2 for mistakes.

use std::path::PathBuf;
use std::process::{Command, Output};

fn cosim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cosim"))
        .args(args)
        .output()
        .expect("cosim runs")
}

fn scenario(name: &str, edit: impl Fn(&mut serde_json::Value)) -> PathBuf {
    let out = cosim(&["preset", "two-mass-oscillator"]);
    let mut v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("preset JSON");
    edit(&mut v);
    let dir = std::env::temp_dir().join(format!("cosim-analysis-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let p = dir.join(name);
    std::fs::write(&p, v.to_string()).expect("write scenario");
    p
}

#[test]
fn stability_reports_rho_and_eigenvalues() {
    // 4th-order hold above its 1.772e-4 limit (docs/methods.md §10.6 Q2) is unstable.
    let p = scenario("unstable.json", |v| {
        v["master"]["extrapolation_order"] = 4.into();
        v["master"]["macro_step"] = 3e-4.into();
    });
    let out = cosim(&["stability", p.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("spectral radius") && text.contains("unstable"),
        "{text}"
    );
    assert_eq!(
        text.lines().filter(|l| l.starts_with("  ")).count(),
        19,
        "{text}"
    );
}

#[test]
fn map_csv_is_the_same_on_one_and_two_threads() {
    let p = scenario("map.json", |_| {});
    let run = |threads: &str| {
        let out = cosim(&[
            "map",
            p.to_str().unwrap(),
            "--x",
            "mass2.ck:1:1e10:5:log",
            "--y",
            "master.macro_step:1e-5:1e-3:3:log",
            "--threads",
            threads,
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).expect("utf-8")
    };
    let one = run("1");
    assert_eq!(one.lines().next(), Some("x,y,value,status"));
    assert_eq!(one.lines().count(), 1 + 15);
    assert_eq!(one, run("2"));
}

/// The map benchmark's scenario: model-based correction at ΔT = 10^-3.5 s on a 0.1 s run,
/// not a whole number of steps. `cosim run` refuses it (the corrector needs whole steps);
/// `cosim map` and `cosim stability` analyse one step's matrix and accept it.
#[test]
fn analyses_accept_a_stop_time_that_a_corrected_run_refuses() {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../bench/map_scenario.json");
    let p = p.to_str().unwrap();
    let run = cosim(&["run", p]);
    assert_eq!(run.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&run.stderr).contains("run.stop"),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    for args in [
        &[
            "map",
            p,
            "--x",
            "mass2.ck:1:1e10:3:log",
            "--y",
            "mass2.dk:1:1e7:2:log",
        ][..],
        &["stability", p][..],
    ] {
        let out = cosim(args);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn convergence_writes_curves_and_slopes() {
    let p = scenario("conv.json", |v| {
        v["analysis"] = serde_json::json!({"view": "convergence", "macro_steps": [1e-4, 5e-5, 2.5e-5], "orders": [0, 1]});
    });
    let out = cosim(&["convergence", p.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let csv = String::from_utf8_lossy(&out.stdout);
    assert_eq!(csv.lines().count(), 1 + 4 * 3, "{csv}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("slope"));
}

#[test]
fn mistakes_exit_with_one_or_two() {
    let p = scenario("plain.json", |_| {});
    let path = p.to_str().unwrap();
    let bad_param = cosim(&[
        "map",
        path,
        "--x",
        "mass9.ck:1:2:2",
        "--y",
        "mass2.dk:1:2:2",
    ]);
    assert_eq!(bad_param.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&bad_param.stderr).contains("mass9"));
    let bad_axis = cosim(&["map", path, "--x", "mass2.ck:1:2", "--y", "mass2.dk:1:2:2"]);
    assert_eq!(bad_axis.status.code(), Some(2));
    let missing = cosim(&["stability", "/nonexistent/scenario.json"]);
    assert_eq!(missing.status.code(), Some(1));
}
