//! `cosim run --mpi` under `mpirun` on this machine (oversubscribed): 2 and 4 ranks write
//! the bytes of one process, with fixed macro-steps and under error control (rejected
//! attempts included), and what `--mpi` cannot distribute is refused on every rank with
//! one message. These need `--features mpi`; `cargo xtask test` runs them in its
//! `mpi` stage with `COSIM_MPIRUN` set by setup. The default build checks that `--mpi`
//! says how to get a build that has it.

#[cfg(not(feature = "mpi"))]
#[test]
fn without_the_feature_mpi_says_how_to_build_it() {
    let scenario =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/chain-100.json");
    let done = std::process::Command::new(env!("CARGO_BIN_EXE_cosim"))
        .arg("run")
        .arg(scenario)
        .arg("--mpi")
        .output()
        .expect("cosim runs");
    let stderr = String::from_utf8_lossy(&done.stderr);
    assert_eq!(done.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("built without MPI") && stderr.contains("--features mpi"));
    assert!(done.stdout.is_empty());
}

#[cfg(feature = "mpi")]
mod with_mpi {
    use std::path::{Path, PathBuf};
    use std::process::{Command, Output, Stdio};
    use std::time::{Duration, Instant};

    /// Longest one `mpirun` may take before it counts as hung.
    const LIMIT: Duration = Duration::from_secs(300);

    fn fixture(name: &str) -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/fixtures")
            .join(name)
    }

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("cosim-mpi-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("scratch dir");
        dir.join(name)
    }

    /// Waits for `cmd` at most [`LIMIT`]; a hung MPI job fails the test instead of CI.
    fn finish(mut cmd: Command) -> Output {
        cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = cmd.spawn().expect("the command starts");
        let started = Instant::now();
        while child.try_wait().expect("waits").is_none() {
            if started.elapsed() > LIMIT {
                let _ = child.kill();
                panic!("{cmd:?} hung for {LIMIT:?}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        child.wait_with_output().expect("output")
    }

    /// `mpirun -n ranks cosim run scenario --mpi --out out` (as root too, oversubscribed: this
    /// machine has fewer cores than ranks).
    fn mpirun(ranks: usize, scenario: &Path, out: &Path) -> Output {
        let mpirun = std::env::var("COSIM_MPIRUN").unwrap_or_else(|_| "mpirun".into());
        let mut cmd = Command::new(mpirun);
        cmd.args(["--oversubscribe", "--allow-run-as-root", "-n"])
            .arg(ranks.to_string())
            .arg(env!("CARGO_BIN_EXE_cosim"))
            .arg("run")
            .arg(scenario)
            .arg("--mpi")
            .arg("--out")
            .arg(out)
            // Containers often forbid the cross-process memory copy; shared memory still works.
            .env("OMPI_MCA_btl_vader_single_copy_mechanism", "none");
        finish(cmd)
    }

    fn one_process(scenario: &Path, out: &Path) {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_cosim"));
        cmd.arg("run").arg(scenario).arg("--out").arg(out);
        let done = finish(cmd);
        assert!(
            done.status.success(),
            "{}",
            String::from_utf8_lossy(&done.stderr)
        );
    }

    #[test]
    fn two_and_four_ranks_write_the_bytes_of_one_process() {
        let scenario = fixture("chain-100.json");
        let single = scratch("one.csv");
        one_process(&scenario, &single);
        let expected = std::fs::read(&single).expect("one-process CSV");
        assert_eq!(String::from_utf8_lossy(&expected).lines().count(), 1 + 101);
        for ranks in [2, 4] {
            let out = scratch(&format!("ranks-{ranks}.csv"));
            let done = mpirun(ranks, &scenario, &out);
            let stderr = String::from_utf8_lossy(&done.stderr);
            assert!(done.status.success(), "{ranks} ranks: {stderr}");
            let got = std::fs::read(&out).expect("rank 0 wrote the CSV");
            assert!(
                got == expected,
                "{ranks} ranks: the CSV differs from one process"
            );
            // Rank 0's summary, and the traffic of every rank (neighbours exchange).
            assert!(stderr.contains("eqn 36"), "{stderr}");
            assert!(stderr.contains(&format!("mpi: {ranks} ranks")), "{stderr}");
            assert!(stderr.contains(&format!("rank {}:", ranks - 1)), "{stderr}");
        }
    }

    /// A 40-mass chain in 4 segments under error control with `estimator` at `rtol` over
    /// 0.2 ms (`extra`: more step-control settings).
    fn controlled(
        name: &str,
        (algorithm, estimator, rtol): (&str, &str, &str),
        extra: &str,
    ) -> PathBuf {
        let scenario = scratch(name);
        let text = format!(
            r#"{{"schema_version": 1,
                "chain": {{"masses": 40, "subsystems": 4, "watch": [7, 33], "cuts": [1, 2, 3]}},
                "master": {{"algorithm": "{algorithm}", "macro_step": 1e-8,
                           "step_control": {{"method": "error", "estimator": "{estimator}",
                                             "rtol": {rtol}, "atol": {{"u": 0.1}}{extra}}}}},
                "run": {{"stop": 2e-4}}}}"#
        );
        std::fs::write(&scenario, text).expect("scenario written");
        scenario
    }

    /// The `N rejected attempts` of a run's summary.
    fn rejected(stderr: &str) -> u32 {
        let before = stderr.split(" rejected attempts").next().unwrap_or("");
        let n = before.rsplit(|c: char| !c.is_ascii_digit()).next();
        n.and_then(|n| n.parse().ok())
            .expect("a summary with rejections")
    }

    #[test]
    fn explicit_and_implicit_error_control_on_2_and_4_ranks_writes_the_bytes_of_one_process() {
        // Tolerances at which each of them rejects attempts on this chain.
        let masters = [
            ("jacobi", "ex_s_local", "1e-3"),
            ("jacobi", "ex_local", "1e-5"),
            ("jacobi", "ex_milne", "1e-5"),
            ("implicit", "im_s_local", "1e-3"),
            ("implicit", "im_milne", "1e-3"),
        ];
        for master in masters {
            let estimator = master.1;
            let scenario = controlled(&format!("{estimator}.json"), master, "");
            let single = scratch(&format!("{estimator}-one.csv"));
            let mut cmd = Command::new(env!("CARGO_BIN_EXE_cosim"));
            cmd.arg("run").arg(&scenario).arg("--out").arg(&single);
            let alone = finish(cmd);
            let alone_err = String::from_utf8_lossy(&alone.stderr);
            assert!(alone.status.success(), "{alone_err}");
            // Step control at work: the run rejected attempts and rolled them back.
            assert!(rejected(&alone_err) >= 1, "{estimator}: {alone_err}");
            let expected = std::fs::read(&single).expect("one-process CSV");
            for ranks in [2, 4] {
                let out = scratch(&format!("{estimator}-{ranks}.csv"));
                let done = mpirun(ranks, &scenario, &out);
                let stderr = String::from_utf8_lossy(&done.stderr);
                assert!(
                    done.status.success(),
                    "{estimator}, {ranks} ranks: {stderr}"
                );
                let got = std::fs::read(&out).expect("rank 0 wrote the CSV");
                assert!(
                    got == expected,
                    "{estimator}, {ranks} ranks: the CSV differs from one process"
                );
                // The same decisions: the summary of one process (accepted and rejected
                // attempts, module states restored, the global error).
                let summary = |e: &str| {
                    let line = e.lines().find(|l| l.contains("rejected attempts"));
                    line.map(str::to_owned)
                };
                assert_eq!(summary(&stderr), summary(&alone_err), "{stderr}");
                assert!(stderr.contains("all-gathers"), "{stderr}");
            }
        }
    }

    #[test]
    fn a_failing_controlled_step_stops_every_rank_and_rank_0_says_it_once() {
        // A step-size floor above what the tolerance allows: the controller gives up, on
        // every rank at the same attempt.
        let scenario = scratch("floor.json");
        std::fs::write(
            &scenario,
            r#"{"schema_version": 1, "chain": {"masses": 40, "subsystems": 4},
                "master": {"algorithm": "jacobi", "macro_step": 1e-6,
                           "step_control": {"method": "error", "estimator": "ex_s_local",
                                            "rtol": 1e-9, "atol": {"u": 1e-9}, "h_min": 1e-6}},
                "run": {"stop": 1e-4}}"#,
        )
        .expect("scenario written");
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_cosim"));
        cmd.arg("run")
            .arg(&scenario)
            .arg("--out")
            .arg(scratch("floor-one.csv"));
        let alone = finish(cmd);
        assert!(!alone.status.success());
        let alone_err = String::from_utf8_lossy(&alone.stderr).into_owned();
        let message = alone_err.lines().last().expect("an error line").to_string();
        for ranks in [2, 4] {
            let done = mpirun(ranks, &scenario, &scratch("floor-mpi.csv"));
            let stderr = String::from_utf8_lossy(&done.stderr);
            assert!(!done.status.success(), "{stderr}");
            assert_eq!(stderr.matches(message.as_str()).count(), 1, "{stderr}");
        }
    }

    #[test]
    fn what_mpi_cannot_distribute_is_refused_with_one_message() {
        let low_order = r#", "corrector": {"jacobian": "low_order"}"#;
        let implicit = controlled(
            "implicit.json",
            ("implicit", "im_s_local", "1e-3"),
            low_order,
        );
        let small = scratch("three.json");
        std::fs::write(
            &small,
            r#"{"schema_version": 1, "chain": {"masses": 6, "subsystems": 3},
            "master": {"algorithm": "jacobi", "macro_step": 1e-8}, "run": {"stop": 1e-7}}"#,
        )
        .expect("scenario written");
        for (scenario, ranks, message) in [
            (&implicit, 2, "finite-difference interface Jacobian only"),
            (
                &small,
                4,
                "--mpi on 4 ranks needs at least 4 subsystems; the chain has 3",
            ),
        ] {
            let done = mpirun(ranks, scenario, &scratch("refused.csv"));
            let stderr = String::from_utf8_lossy(&done.stderr);
            assert!(!done.status.success(), "{scenario:?} ran");
            assert_eq!(stderr.matches(message).count(), 1, "{stderr}");
        }
    }

    #[test]
    fn a_failing_step_stops_every_rank_and_rank_0_says_it_once() {
        // Seed 002's start values at H = 1e-5 s: the zero-order hold is unstable and the
        // first segment's integrator gives up after a few macro-steps.
        let scenario = scratch("diverges.json");
        std::fs::write(
            &scenario,
            r#"{"schema_version": 1, "chain": {"masses": 40, "subsystems": 4},
                "master": {"algorithm": "jacobi", "macro_step": 1e-5}, "run": {"stop": 2e-3}}"#,
        )
        .expect("scenario written");
        let single = scratch("diverges-one.csv");
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_cosim"));
        cmd.arg("run").arg(&scenario).arg("--out").arg(&single);
        let alone = finish(cmd);
        assert!(!alone.status.success());
        let alone_err = String::from_utf8_lossy(&alone.stderr).into_owned();
        let message = alone_err.lines().last().expect("an error line").to_string();
        assert!(message.contains("module `s1`"), "{alone_err}");
        let out = scratch("diverges-4.csv");
        let done = mpirun(4, &scenario, &out);
        let stderr = String::from_utf8_lossy(&done.stderr);
        assert!(!done.status.success(), "{stderr}");
        assert_eq!(stderr.matches(message.as_str()).count(), 1, "{stderr}");
        let rows = std::fs::read(&out).expect("rank 0 wrote the rows computed");
        assert!(
            rows == std::fs::read(&single).expect("rows"),
            "rows before the failure"
        );
    }
}
