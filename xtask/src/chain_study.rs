//! `cargo xtask chain-study damping|mass|threads|claims|tolerance|example1`: seed 002's
//! studies, each printed as the markdown table of the docs that hold it.
//!
//! - `damping` (case 1): ExSLocal against ImSLocal as d grows from 1e3 to 1e6 N·s/m.
//! - `mass` (case 3): the same as the mass falls from 0.1 to 1e-3 kg at d = 1e4 N·s/m.
//! - `threads`: mass-steps per second of both schemes on 1 and 2 threads.
//! - `claims`, `tolerance`, `example1`: docs/methods.md §14.14 and §14.11.5 / §14.12.4
//!   (`chain_claims.rs`).
//!
//! The first three run a reduced Example 2 chain with the release CLI.
//! Every point runs twice: with the banded whole-chain reference for seed 002's eqn 36
//! error, and without it for the time (bash's `time`: user CPU and wall seconds). Options:
//! `--masses N` (1000), `--subsystems R` (20), `--stop T` (1e-4 s), `--no-build` (use the
//! release binary as it is).
use crate::chain_claims;
use crate::shell::{self, repo_root, run, section, Result};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Chain size and horizon of a study.
pub struct StudyOptions {
    pub masses: u64,
    pub subsystems: u64,
    pub stop: f64,
    pub build: bool,
}

/// What one run reported.
struct Outcome {
    steps: u64,
    rejected: u64,
    iterations: u64,
    eqn36: Option<f64>,
    user: f64,
    wall: f64,
}

const SCHEMES: [(&str, &str, &str); 2] = [
    ("ExSLocal", "jacobi", "ex_s_local"),
    ("ImSLocal", "implicit", "im_s_local"),
];

/// Runs study `which` and prints its table.
pub fn study(which: &str, o: &StudyOptions) -> Result<()> {
    if which == "example1" {
        // From the core's tests (debug build): no release CLI needed.
        return chain_claims::example1();
    }
    let root = repo_root();
    if o.build {
        section("release build of the CLI");
        run(shell::cargo()
            .current_dir(&root)
            .args(["build", "--release", "-p", "cosim-cli"]))?;
    }
    let cli = root.join("target/release/cosim");
    let dir = root.join("target/chain-study").join(which);
    fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let (label, points): (&str, Vec<(String, String)>) = match which {
        "damping" => (
            "d (N·s/m)",
            ["1e3", "1e4", "1e5", "5e5", "1e6"]
                .iter()
                .map(|d| (d.to_string(), format!(r#""d": {d}"#)))
                .collect(),
        ),
        "mass" => (
            "m (kg)",
            ["1e-1", "3e-2", "1e-2", "8e-3", "3e-3", "1e-3"]
                .iter()
                .map(|m| (m.to_string(), format!(r#""m": {m}"#)))
                .collect(),
        ),
        "threads" => return threads(&cli, &dir, o),
        "claims" => return chain_claims::claims(&cli, &dir),
        "tolerance" => return chain_claims::tolerance(&cli, &dir),
        other => {
            return Err(format!(
            "chain-study: `{other}` is not damping, mass, threads, claims, tolerance or example1"
        ))
        }
    };
    section(&format!(
        "{} masses in {} subsystems over {} s, {which}",
        o.masses, o.subsystems, o.stop
    ));
    println!("{}\n", stamp("Started"));
    println!(
        "| {label} | scheme | macro-steps | rejected | mean H (s) | corrector iterations | eqn 36 error | CPU time (s) | wall (s) | parallel cost |"
    );
    println!("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (value, parameters) in &points {
        for (name, algorithm, estimator) in SCHEMES {
            let scenario =
                |reference: bool| chain_scenario(o, parameters, algorithm, estimator, reference);
            let with_ref = run_cli(&cli, &dir, &scenario(true), None)?;
            let timed = run_cli(&cli, &dir, &scenario(false), None)?;
            let eqn36 = with_ref.eqn36.map_or("-".into(), |e| format!("{e:.3e}"));
            println!(
                "| {value} | {name} | {} | {} | {:.3e} | {} | {eqn36} | {:.2} | {:.2} | {} |",
                timed.steps,
                timed.rejected,
                o.stop / timed.steps as f64,
                timed.iterations,
                timed.user,
                timed.wall,
                timed.steps + timed.iterations,
            );
        }
    }
    println!("\n{}", stamp("Done"));
    Ok(())
}

/// Mass-steps per second (masses × accepted macro-steps / s) on 1 and 2 threads.
fn threads(cli: &Path, dir: &Path, o: &StudyOptions) -> Result<()> {
    section(&format!(
        "{} masses in {} subsystems over {} s: threads",
        o.masses, o.subsystems, o.stop
    ));
    println!("{}\n", stamp("Started"));
    println!("| scheme | threads | macro-steps | CPU time (s) | wall (s) | mass-steps per CPU-second | mass-steps per second (wall) |");
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for (name, algorithm, estimator) in SCHEMES {
        let scenario = chain_scenario(o, "", algorithm, estimator, false);
        for n in [1, 2] {
            let r = run_cli(cli, dir, &scenario, Some(n))?;
            let mass_steps = (o.masses * r.steps) as f64;
            println!(
                "| {name} | {n} | {} | {:.2} | {:.2} | {:.2e} | {:.2e} |",
                r.steps,
                r.user,
                r.wall,
                mass_steps / r.user,
                mass_steps / r.wall
            );
        }
    }
    println!("\n{}", stamp("Done"));
    Ok(())
}

/// The chain with seed 002's parameters but `parameters`, error-controlled as the
/// `chain-1000-masses` preset (rtol 1e-3, atol_λ 0.1 N, SF 6, r 0.5–2, k ≤ 5).
fn chain_scenario(
    o: &StudyOptions,
    parameters: &str,
    algorithm: &str,
    estimator: &str,
    reference: bool,
) -> String {
    format!(
        r#"{{"schema_version": 1,
  "chain": {{"masses": {}, "subsystems": {}, "seed": 1, "parameters": {{{parameters}}}}},
  "master": {{"algorithm": "{algorithm}", "macro_step": 1e-8,
    "step_control": {{"method": "error", "estimator": "{estimator}", "rtol": 1e-3,
      "atol": {{"pos": 1e-9, "vel": 1e-6, "u": 0.1}}, "rtol_u": 1e-3, "safety_factor": 6,
      "r_min": 0.5, "r_max": 2, "h_min": 1e-12, "order": {{"variable": {{"k_max": 5}}}}}}}},
  "run": {{"stop": {}}}, "reference": {reference}}}"#,
        o.masses, o.subsystems, o.stop
    )
}

/// What one `cosim run` printed on standard error, whether it finished, and its times.
pub(crate) struct Timed {
    pub finished: bool,
    pub stderr: String,
    pub user: f64,
    pub wall: f64,
}

/// Runs `cosim run` on `scenario` under bash's `time` (user CPU and wall seconds).
pub(crate) fn time_cli(
    cli: &Path,
    dir: &Path,
    scenario: &str,
    threads: Option<u32>,
) -> Result<Timed> {
    let file: PathBuf = dir.join("scenario.json");
    fs::write(&file, scenario).map_err(|e| format!("{}: {e}", file.display()))?;
    let threads = threads.map_or(String::new(), |n| format!(" --threads {n}"));
    let script = format!(
        "TIMEFORMAT='%3U %3R'; {{ time '{}' run '{}'{threads} > '{}' 2> '{}'; }} 2>&1",
        cli.display(),
        file.display(),
        dir.join("out.csv").display(),
        dir.join("summary.txt").display()
    );
    let out = Command::new("bash")
        .args(["-c", &script])
        .output()
        .map_err(|e| format!("bash: {e}"))?;
    let stderr = fs::read_to_string(dir.join("summary.txt")).unwrap_or_default();
    let times = String::from_utf8_lossy(&out.stdout);
    let mut t = times
        .split_whitespace()
        .filter_map(|v| v.parse::<f64>().ok());
    let (user, wall) = (t.next().unwrap_or(f64::NAN), t.next().unwrap_or(f64::NAN));
    Ok(Timed {
        finished: out.status.success(),
        stderr,
        user,
        wall,
    })
}

/// Runs `cosim run` on `scenario` under bash's `time` and reads its summary line.
fn run_cli(cli: &Path, dir: &Path, scenario: &str, threads: Option<u32>) -> Result<Outcome> {
    let run = time_cli(cli, dir, scenario, threads)?;
    if !run.finished {
        return Err(format!("cosim run failed: {}", run.stderr));
    }
    let line = run.stderr.lines().last().unwrap_or_default();
    Ok(Outcome {
        steps: count_before(line, " macro-steps").unwrap_or(0),
        rejected: count_before(line, " rejected attempts").unwrap_or(0),
        iterations: count_before(line, " corrector iterations").unwrap_or(0),
        eqn36: line
            .split("on the coupling-body states ")
            .nth(1)
            .and_then(|s| s.split([';', ' ']).next())
            .and_then(|s| s.parse().ok()),
        user: run.user,
        wall: run.wall,
    })
}

/// When and under what load a study ran, for the line under its table.
pub(crate) fn stamp(what: &str) -> String {
    let date = Command::new("date")
        .args(["-u", "+%Y-%m-%d %H:%M UTC"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    let load = fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default();
    format!("{what} {date}, load average {load} (1, 5, 15 min)")
}

/// The whole number just before `what` in `line`.
pub(crate) fn count_before(line: &str, what: &str) -> Option<u64> {
    let head = &line[..line.find(what)?];
    head.rsplit([' ', ',', ';']).next()?.parse().ok()
}
