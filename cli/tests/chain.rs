//! `cosim run` on a `chain` scenario: the CSV bytes are the same across runs and for 1,
//! 2 and 3 threads, and hold the watched mass, the cut forces, their coupling bodies and
//! the reference.

use std::path::PathBuf;
use std::process::Command;

fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/chain-100.json")
}

fn run(threads: Option<usize>) -> (Vec<u8>, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_cosim"));
    cmd.arg("run").arg(fixture());
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
