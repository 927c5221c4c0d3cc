//! `cargo xtask test`: every check CI runs, as named stages. A failing stage does not stop
//! the others, so one run shows everything that is wrong; the last line is the tally.
use crate::setup::{self, SetupOptions, Toolchain};
use crate::shell::{self, fmt_duration, repo_root, run, run_with_timeout, section, which, Result};
use crate::{serve, wasm};
use std::fs;
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

/// Options of `cargo xtask test`.
#[derive(Clone, Copy, Debug, Default)]
pub struct TestOptions {
    /// Skip `setup` and only detect the toolchain (faster when iterating locally).
    pub no_setup: bool,
}

/// Outcome of one stage.
enum Outcome {
    Passed,
    Failed(String),
    Skipped(String),
}

struct Stage {
    name: &'static str,
    outcome: Outcome,
    took: Duration,
}

/// Longest the page tests may take before they count as hung.
const E2E_LIMIT: Duration = Duration::from_secs(15 * 60);

/// Runs all stages and returns an error if any failed.
pub fn test(opts: TestOptions) -> Result<()> {
    let started = Instant::now();
    let mut stages = Vec::new();
    let mut stage = |name: &'static str, f: &mut dyn FnMut() -> Result<Option<String>>| {
        section(&format!("stage: {name}"));
        let t = Instant::now();
        let outcome = match f() {
            Ok(None) => Outcome::Passed,
            Ok(Some(why)) => Outcome::Skipped(why),
            Err(e) => Outcome::Failed(e),
        };
        if let Outcome::Failed(e) = &outcome {
            println!("stage {name} FAILED: {e}");
        }
        stages.push(Stage {
            name,
            outcome,
            took: t.elapsed(),
        });
    };

    let mut tc: Option<Toolchain> = None;
    stage("setup", &mut || {
        tc = Some(if opts.no_setup {
            setup::detect()?
        } else {
            setup::setup(SetupOptions::default())?
        });
        Ok(None)
    });
    let tc = tc;
    let need_tc = || tc.as_ref().ok_or_else(|| "setup failed".to_string());

    stage("fmt", &mut || {
        if shell::output(shell::cargo().args(["fmt", "--version"])).is_err() {
            return Ok(Some("rustfmt not installed".into()));
        }
        run(shell::cargo()
            .current_dir(repo_root())
            .args(["fmt", "--all", "--check"]))
        .map(|_| None)
    });
    stage("native tests", &mut || {
        run(shell::cargo()
            .current_dir(repo_root())
            .args(["test", "--workspace"])
            // No debug info: panics still report file and line, and on 2 cores generating
            // debug info for optimised test builds costs minutes per clean run.
            .env("CARGO_PROFILE_TEST_DEBUG", "0"))
        .map(|_| None)
    });
    stage("mpi", &mut || mpi_tests(need_tc()?));
    stage("docs", &mut || {
        let mut c = shell::cargo();
        c.current_dir(repo_root())
            .env("RUSTDOCFLAGS", "-D warnings")
            .args(["doc", "-p", "cosim-core", "--no-deps"]);
        run(&mut c).map(|_| None)
    });
    stage("no_std native", &mut || {
        let mut c = shell::cargo();
        c.current_dir(repo_root())
            .args(["build", "-p", "cosim-core"])
            .args(no_std_args());
        run(&mut c).map(|_| None)
    });
    stage("no_std wasm32", &mut || {
        let tc = need_tc()?;
        let mut c = wasm::cargo_wasm(tc, "check", wasm::NO_STD);
        c.args(["-p", "cosim-core"]).args(no_std_args());
        run(&mut c).map(|_| None)
    });
    let mut built = false;
    stage("wasm package", &mut || {
        wasm::build(need_tc()?)?;
        built = true;
        Ok(None)
    });
    stage("wasm browser tests", &mut || browser_unit_tests(need_tc()?));
    stage("page e2e tests", &mut || {
        if !built {
            return Err("the wasm package did not build".into());
        }
        page_tests(need_tc()?)
    });

    print_summary(&stages, started.elapsed())
}

/// `cosim run --mpi` on 2 and 4 ranks of this machine against one process
/// (cli/tests/mpi.rs), built with the `mpi` feature; skipped, saying what to install, only
/// when setup found no MPI.
fn mpi_tests(tc: &Toolchain) -> Result<Option<String>> {
    let mpirun = match &tc.mpi {
        Ok(p) => p,
        Err(why) => return Ok(Some(why.clone())),
    };
    run(shell::cargo()
        .current_dir(repo_root())
        .args([
            "test",
            "-p",
            "cosim-cli",
            "--features",
            "mpi",
            "--test",
            "mpi",
        ])
        .env("COSIM_MPIRUN", mpirun)
        .env("CARGO_PROFILE_TEST_DEBUG", "0"))
    .map(|_| None)
}

/// `--no-default-features` plus every cosim-core feature except `std` and those that turn
/// `std` on (test support): each of them must build without std, so the check covers
/// optional code too (read from core/Cargo.toml).
fn no_std_args() -> Vec<String> {
    let manifest = fs::read_to_string(repo_root().join("core/Cargo.toml")).unwrap_or_default();
    let mut in_features = false;
    let mut features = Vec::new();
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_features = line == "[features]";
        } else if in_features && !line.starts_with('#') {
            if let Some((name, enables)) = line.split_once('=') {
                let name = name.trim();
                let needs_std = enables.contains("\"std\"");
                if !name.is_empty() && name != "default" && name != "std" && !needs_std {
                    features.push(name.to_string());
                }
            }
        }
    }
    let mut args = vec!["--no-default-features".to_string()];
    if !features.is_empty() {
        args.push("--features".into());
        args.push(features.join(","));
    }
    args
}

/// wasm-bindgen tests in `wasm/tests/`, run by wasm-bindgen-test-runner in headless Chromium.
fn browser_unit_tests(tc: &Toolchain) -> Result<Option<String>> {
    let driver = tc
        .chromedriver
        .as_ref()
        .ok_or("chromedriver not found (install chromium-driver)")?;
    let runner = which("wasm-bindgen-test-runner").ok_or("wasm-bindgen-test-runner not found")?;
    let root = repo_root();
    let mut c = wasm::cargo_wasm(tc, "test", wasm::STD);
    c.args(["-p", "cosim-wasm", "--tests"])
        .env("CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER", runner)
        .env("CHROMEDRIVER", driver)
        // Extra Chromium flags for a machine with a closed network (see the file).
        .env(
            "WASM_BINDGEN_TEST_WEBDRIVER_JSON",
            root.join("wasm/tests/webdriver.json"),
        )
        .env("WASM_BINDGEN_TEST_TIMEOUT", "120");
    run(&mut c).map(|_| None)
}

/// The page tests in `tests/e2e/` (written by the page's authors): node's test runner with
/// playwright-core, against www/ served on a free localhost port.
fn page_tests(tc: &Toolchain) -> Result<Option<String>> {
    let root = repo_root();
    let files = e2e_files()?;
    if files.is_empty() {
        return Ok(Some("no tests in tests/e2e/".into()));
    }
    let chromium = tc
        .chromium
        .as_ref()
        .ok_or("chromium not found (install chromium)")?;
    run(shell::cargo()
        .current_dir(&root)
        .args(["build", "-p", "cosim-cli"]))?;
    let cli = root.join("target/debug/cosim");
    let addr = serve::start(&root.join("www"), 0)?;
    println!("serving www/ at http://{addr}/");
    let mut c = Command::new("node");
    c.current_dir(&root)
        .args(["--test", "--test-reporter=spec", "--test-timeout=180000"])
        .args(files.iter().map(|f| f.strip_prefix(&root).unwrap_or(f)))
        .env("COSIM_BASE_URL", format!("http://{addr}"))
        .env("COSIM_CLI", &cli)
        .env("COSIM_CHROMIUM", chromium);
    if run_with_timeout(&mut c, E2E_LIMIT)? {
        Ok(None)
    } else {
        Err("node --test reported failures (or timed out)".into())
    }
}

/// `tests/e2e/*.test.mjs` if any exist, else every `*.mjs` there.
fn e2e_files() -> Result<Vec<PathBuf>> {
    let dir = repo_root().join("tests/e2e");
    let Ok(entries) = fs::read_dir(&dir) else {
        return Ok(Vec::new());
    };
    let mut all: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "mjs" || e == "js"))
        .collect();
    all.sort();
    let named: Vec<PathBuf> = all
        .iter()
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().contains(".test."))
        })
        .cloned()
        .collect();
    Ok(if named.is_empty() { all } else { named })
}

fn print_summary(stages: &[Stage], total: Duration) -> Result<()> {
    section("summary");
    let (mut passed, mut failed, mut skipped) = (0, 0, 0);
    for s in stages {
        let (word, note) = match &s.outcome {
            Outcome::Passed => {
                passed += 1;
                ("ok  ", String::new())
            }
            Outcome::Failed(e) => {
                failed += 1;
                ("FAIL", format!("  {}", e.lines().next().unwrap_or("")))
            }
            Outcome::Skipped(why) => {
                skipped += 1;
                ("skip", format!("  ({why})"))
            }
        };
        println!("  {word} {:<20} {:>8}{note}", s.name, fmt_duration(s.took));
    }
    let skip_note = if skipped > 0 {
        format!(", {skipped} skipped")
    } else {
        String::new()
    };
    // The last line is the plain tally CI reads: "stages: N passed, N failed".
    println!("all stages took {}", fmt_duration(total));
    println!("stages: {passed} passed, {failed} failed{skip_note}");
    if failed == 0 {
        Ok(())
    } else {
        Err(format!("{failed} stage(s) failed"))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn no_std_checks_cover_every_feature_but_std() {
        let args = super::no_std_args();
        assert_eq!(args[0], "--no-default-features");
        if let Some(list) = args.get(2) {
            assert!(
                list.split(',').all(|f| f != "std" && f != "default"),
                "{list}"
            );
        }
    }
}
