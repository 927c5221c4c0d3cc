//! `cosim run` on a `chain` scenario: the CSV bytes are the same across runs and for 1,
//! 2 and 3 threads, fixed-step and error-controlled (ExSLocal; ImSLocal with its
//! finite-difference Jacobian in rounds), and hold the watched mass, the cut forces, their
//! coupling bodies and the reference.

use std::path::PathBuf;
use std::process::Command;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("../tests/fixtures/{name}.json"))
}

fn run(threads: Option<usize>) -> (Vec<u8>, String) {
    run_file("chain-100", threads)
}

fn run_file(name: &str, threads: Option<usize>) -> (Vec<u8>, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_cosim"));
    cmd.arg("run").arg(fixture(name));
    if let Some(n) = threads {
        cmd.args(["--threads", &n.to_string()]);
    }
    let out = cmd.output().expect("cosim runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (
        out.stdout,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_chain_gives_the_same_bytes_across_runs_and_thread_counts() {
    let (sequential, summary) = run(None);
    assert_eq!(run(None).0, sequential, "two runs");
    for n in [1, 2, 3] {
        assert_eq!(run(Some(n)).0, sequential, "{n} threads");
    }
    let csv = String::from_utf8(sequential).expect("utf-8");
    let header = csv.lines().next().expect("header");
    for column in [
        "s7.x_watch",
        "c1.lambda",
        "s1.x_last",
        "s2.v_first",
        "c9.lambda:reference",
    ] {
        assert!(
            header.split(',').any(|c| c == column),
            "{column} in {header}"
        );
    }
    assert_eq!(csv.lines().count(), 1 + 101);
    assert!(summary.contains("eqn 36"), "{summary}");
}

#[test]
fn an_error_controlled_chain_gives_the_same_bytes_for_every_thread_count() {
    // Without --threads the masters step one module after the other; with it, through
    // the pool (the implicit one's finite-difference rounds too).
    for (name, corrector) in [
        ("chain-100-ex_s_local", false),
        ("chain-100-im_s_local", true),
    ] {
        let (sequential, summary) = run_file(name, None);
        for n in [1, 2, 3] {
            assert!(
                run_file(name, Some(n)).0 == sequential,
                "{name}: {n} threads"
            );
        }
        // The run is controlled and meets a rejection, so rollback is covered too.
        assert!(summary.contains("1 rejected attempts"), "{name}: {summary}");
        assert_eq!(
            summary.contains("corrector iterations"),
            corrector,
            "{summary}"
        );
        let csv = String::from_utf8(sequential).expect("utf-8");
        assert!(
            csv.lines().count() > 30,
            "{name}: {} rows",
            csv.lines().count()
        );
    }
}

#[test]
fn a_bad_chain_names_the_field_and_the_limit() {
    let dir = std::env::temp_dir().join(format!("cosim-chain-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("big.json");
    std::fs::write(
        &path,
        r#"{"schema_version": 1, "chain": {"masses": 2000000, "subsystems": 2399},
            "master": {"algorithm": "jacobi", "macro_step": 1e-6}, "run": {"stop": 1e-5}}"#,
    )
    .expect("writes");
    let out = Command::new(env!("CARGO_BIN_EXE_cosim"))
        .args(["run", path.to_str().expect("path")])
        .output()
        .expect("cosim runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("chain.masses") && err.contains("1000000"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).ok();
}
