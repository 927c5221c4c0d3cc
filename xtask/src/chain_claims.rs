//! `cargo xtask chain-study claims|tolerance|example1`: the tables of docs/methods.md
//! §14.14 (seed 002's §8 rows 4, 8, 9, 10 and the tolerance proportionality on the
//! substitute chain) and of §14.11.5 / §14.12.4 (the tolerance proportionality on
//! Example 1), printed in the docs' format.
//!
//! `claims` and `tolerance` run the substitute chain (20 masses in 4 segments of 5, 50 µs,
//! segments on the BDF) with the release CLI, the same scenario as
//! `tests/tests/chain/mod.rs` builds for the tests (keep the two alike); the CLI's global
//! NRMSE is the tests' error (printed with three digits and rounded here to the tables' two,
//! so a last digit can be one off the rounding of the full value). `example1` runs the core's Example 1 tests (debug build) and
//! tabulates the lines they print.
use crate::chain_study::{stamp, time_cli};
use crate::shell::{self, repo_root, section, Result};
use std::path::Path;
use std::process::Stdio;

/// The estimators in the docs' order: (scenario name, docs name).
const ESTIMATORS: [(&str, &str); 5] = [
    ("ex_local", "ExLocal"),
    ("ex_milne", "ExMilne"),
    ("ex_s_local", "ExSLocal"),
    ("im_milne", "ImMilne"),
    ("im_s_local", "ImSLocal"),
];
/// The segments' BDF tolerance of the claims (`SEGMENT_RTOL` of the tests).
const SEGMENT_RTOL: f64 = 1e-9;
/// The segments' tolerance of the tolerance study (`TIGHT_SEGMENT_RTOL`).
const TIGHT_SEGMENT_RTOL: f64 = 1e-11;
/// The horizon in s (`STOP`).
const STOP: f64 = 5e-5;
const RTOLS: [f64; 4] = [1e-2, 1e-3, 1e-4, 1e-5];

/// What one finished run gave.
struct Point {
    accepted: u64,
    rejected: u64,
    error: f64,
}

impl Point {
    fn mean_h(&self) -> f64 {
        STOP / self.accepted as f64
    }
    /// `steps / rejected / mean H / error`, as the docs' cells.
    fn cell(&self) -> String {
        format!(
            "{} / {} / {} / {}",
            self.accepted,
            self.rejected,
            sci(self.mean_h(), 2),
            sci(self.error, 2)
        )
    }
}

/// `x` as C's `%.{digits}e` writes it (`9.71e-08`), the form of the docs' tables.
fn sci(x: f64, digits: usize) -> String {
    let s = format!("{x:.digits$e}");
    match s.split_once('e') {
        Some((mantissa, exp)) => {
            let (sign, digits) = exp.strip_prefix('-').map_or(("+", exp), |d| ("-", d));
            format!("{mantissa}e{sign}{digits:0>2}")
        }
        None => s,
    }
}

/// The substitute chain as `tests/tests/chain/mod.rs::scenario_json` builds it; `order`
/// `None` is the order controller with k ≤ 5.
fn scenario(estimator: &str, d: f64, rtol: f64, order: Option<u32>, segment_rtol: f64) -> String {
    const SEGMENTS: usize = 4;
    const MASSES: usize = 5;
    let total = SEGMENTS * MASSES;
    let mut modules = Vec::new();
    let mut connections = Vec::new();
    for s in 0..SEGMENTS {
        modules.push(format!(
            r#"{{"name": "seg{}", "model": "MassChain.Segment", "parameters": {{"n": {MASSES}, "first": {}, "total": {total}, "seed": 1, "d": {d:?}}}, "solver": {{"method": "bdf", "rtol": {segment_rtol:?}, "atol": {:?}}}}}"#,
            s + 1,
            s * MASSES + 1,
            1e-3 * segment_rtol
        ));
    }
    for s in 1..SEGMENTS {
        let (a, b, c) = (
            format!("seg{s}"),
            format!("seg{}", s + 1),
            format!("cut{s}"),
        );
        modules.push(format!(
            r#"{{"name": "{c}", "model": "MassChain.Cut", "parameters": {{"dc": {d:?}}}}}"#
        ));
        for (from, to) in [
            (format!("{a}.x_last"), format!("{c}.x_left")),
            (format!("{a}.v_last"), format!("{c}.v_left")),
            (format!("{b}.x_first"), format!("{c}.x_right")),
            (format!("{b}.v_first"), format!("{c}.v_right")),
            (format!("{c}.lambda"), format!("{a}.lambda_right")),
            (format!("{c}.lambda"), format!("{b}.lambda_left")),
        ] {
            connections.push(format!(r#"{{"from": "{from}", "to": "{to}"}}"#));
        }
    }
    let order = match order {
        Some(k) => format!(r#"{{"fixed": {k}}}"#),
        None => r#"{"variable": {"k_max": 5}}"#.to_string(),
    };
    let algorithm = if estimator.starts_with("im_") {
        "implicit"
    } else {
        "jacobi"
    };
    format!(
        r#"{{"schema_version": 1, "title": "substitute chain", "description": "seed 002 chain study",
  "modules": [{}],
  "connections": [{}],
  "master": {{"algorithm": "{algorithm}", "macro_step": 1e-8,
    "step_control": {{"method": "error", "estimator": "{estimator}", "rtol": {rtol:?},
      "atol": {{"pos": {:?}, "vel": {rtol:?}, "u": {:?}}},
      "safety_factor": 6, "r_min": 0.5, "r_max": 2, "order": {order}}}}},
  "run": {{"start": 0.0, "stop": {STOP:?}}}, "reference": true, "plot": []}}"#,
        modules.join(",\n    "),
        connections.join(",\n    "),
        1e-3 * rtol,
        1e2 * rtol
    )
}

/// One run: `None` when it ended with H below H_min (the tests' "ended early").
fn point(cli: &Path, dir: &Path, scenario: &str) -> Result<Option<Point>> {
    let run = time_cli(cli, dir, scenario, None)?;
    if !run.finished {
        return if run.stderr.contains("H_min") {
            Ok(None)
        } else {
            Err(format!("cosim run failed: {}", run.stderr))
        };
    }
    let line = run.stderr.lines().last().unwrap_or_default();
    let number_after = |what: &str| {
        line.split(what)
            .nth(1)
            .and_then(|s| s.split([';', ' ', ',']).next())
            .and_then(|s| s.parse::<f64>().ok())
    };
    let count = |what: &str| crate::chain_study::count_before(line, what);
    match (
        count(" accepted"),
        count(" rejected attempts"),
        number_after("global NRMSE "),
    ) {
        (Some(accepted), Some(rejected), Some(error)) => Ok(Some(Point {
            accepted,
            rejected,
            error,
        })),
        _ => Err(format!("no steps or error in the summary `{line}`")),
    }
}

/// Seed 002's §8 rows 4 (explicit against implicit over d) and 8-10 (fixed k against
/// the order controller, every estimator, d = 1e4 N·s/m).
pub fn claims(cli: &Path, dir: &Path) -> Result<()> {
    section("substitute chain: seed 002's §8 rows 4, 8, 9, 10 (docs/methods.md §14.14)");
    println!("{}\n", stamp("Started"));
    println!("| d (N s/m) | ExSLocal steps / rejected / mean H (s) / error | ImSLocal | H̄ explicit / H̄ implicit |");
    println!("|---|---|---|---|");
    for d in [1e4, 1e5, 5e5] {
        let ex = point(
            cli,
            dir,
            &scenario("ex_s_local", d, 1e-3, None, SEGMENT_RTOL),
        )?;
        let im = point(
            cli,
            dir,
            &scenario("im_s_local", d, 1e-3, None, SEGMENT_RTOL),
        )?;
        let (ex_cell, im_cell, ratio) = match (&ex, &im) {
            (Some(e), Some(i)) => (
                e.cell(),
                i.cell(),
                format!("{:.2}", e.mean_h() / i.mean_h()),
            ),
            _ => (ends(&ex), ends(&im), "-".into()),
        };
        println!("| {} | {ex_cell} | {im_cell} | {ratio} |", sci(d, 0));
    }
    for (estimator, name) in ESTIMATORS {
        println!("\n**{name}** (steps / rejected / mean H in s / error):\n");
        println!("| rtol | k = 0 | k = 1 | k = 2 | k = 3 | k = 4 | k variable |");
        println!("|---|---|---|---|---|---|---|");
        for rtol in RTOLS {
            let mut row = format!("| {} |", sci(rtol, 0));
            for order in [Some(0), Some(1), Some(2), Some(3), Some(4), None] {
                // ExLocal at k = 4 needs input derivatives of order 5, which segments lack.
                let cell = if estimator == "ex_local" && order == Some(4) {
                    "n/a".to_string()
                } else {
                    let s = scenario(estimator, 1e4, rtol, order, SEGMENT_RTOL);
                    ends(&point(cli, dir, &s)?)
                };
                row.push_str(&format!(" {cell} |"));
            }
            println!("{row}");
        }
    }
    println!("\n{}", stamp("Done"));
    Ok(())
}

fn ends(p: &Option<Point>) -> String {
    p.as_ref()
        .map_or("ends (H < H_min)".to_string(), Point::cell)
}

/// Tolerance proportionality on the substitute chain: every estimator with variable k,
/// the segments at rtol 1e-11; global error / accepted steps.
pub fn tolerance(cli: &Path, dir: &Path) -> Result<()> {
    section("substitute chain: tolerance proportionality (docs/methods.md §14.14)");
    println!("{}\n", stamp("Started"));
    let names: Vec<&str> = ESTIMATORS.iter().map(|(_, n)| *n).collect();
    println!("| rtol | {} |", names.join(" | "));
    println!("|---|---|---|---|---|---|");
    let mut falls = true;
    let mut last = [f64::INFINITY; 5];
    for rtol in RTOLS {
        // This table writes numbers as Rust does (`1e-2`, `1.07e-1`), as the docs do.
        let mut row = format!("| {rtol:.0e} |");
        for (j, (estimator, _)) in ESTIMATORS.iter().enumerate() {
            let s = scenario(estimator, 1e4, rtol, None, TIGHT_SEGMENT_RTOL);
            let cell = match point(cli, dir, &s)? {
                Some(p) => {
                    falls &= p.error < last[j];
                    last[j] = p.error;
                    format!("{:.2e} / {}", p.error, p.accepted)
                }
                None => {
                    falls = false;
                    "ends (H < H_min)".to_string()
                }
            };
            row.push_str(&format!(" {cell} |"));
        }
        println!("{row}");
    }
    println!("\n(global error / accepted steps.) Every error below the one above it: {falls}.");
    println!("{}", stamp("Done"));
    Ok(())
}

/// One line the Example 1 tests print: `estimator rtol 1e-3: e = …, time-weighted …, N
/// accepted, M rejected`, as (estimator, rtol, cell).
fn example1_line(line: &str) -> Option<(String, String, String)> {
    let (head, tail) = line.split_once(": e = ")?;
    let (estimator, rtol) = head.split_once(" rtol ")?;
    // The first line of a test follows libtest's `test name ... ` on the same line.
    let estimator = estimator.rsplit(' ').next()?;
    let mut fields = tail.split(", ");
    let e = two_digits(fields.next()?)?;
    let weighted = two_digits(fields.next()?.strip_prefix("time-weighted ")?)?;
    let accepted = fields.next()?.strip_suffix(" accepted")?;
    let rejected = fields.next()?.strip_suffix(" rejected")?;
    Some((
        estimator.to_string(),
        rtol.to_string(),
        format!("{e} / {weighted} / {accepted} / {rejected}"),
    ))
}

/// A number the tests printed with three decimals (`2.535e-4`) rounded half up to two
/// (`2.54e-4`), as the docs write it; rounding the parsed f64 could give `2.53e-4`.
fn two_digits(printed: &str) -> Option<String> {
    let (mantissa, exp) = printed.split_once('e')?;
    let m: f64 = mantissa.parse().ok()?;
    let rounded = (m.abs() * 100.0 + 1e-6).round() / 100.0 * m.signum();
    let exp: i32 = exp.parse().ok()?;
    // 9.995 rounds to 10.00: one more in the exponent.
    Some(if rounded.abs() >= 10.0 {
        format!("{:.2}e{}", rounded / 10.0, exp + 1)
    } else {
        format!("{rounded:.2}e{exp}")
    })
}

/// Example 1's tolerance tables from the core's tests (debug build): every estimator with
/// variable k, eqn 36 at the run's points / time-weighted / accepted / rejected.
pub fn example1() -> Result<()> {
    section("Example 1: tolerance proportionality (docs/methods.md §14.11.5, §14.12.4)");
    println!("{}\n", stamp("Started"));
    // A failing assertion still prints every line: tabulate them and say so.
    let out = shell::cargo()
        .current_dir(repo_root())
        .args([
            "test",
            "-p",
            "cosim-core",
            "--lib",
            "example_1_the_global_error_falls_with_rtol",
            "--",
            "--nocapture",
            "--test-threads",
            "1",
        ])
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cargo test: {e}"))?;
    let printed = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        println!("The tests FAILED (an asserted decade did not lower the error):\n{printed}");
    }
    let rows: Vec<(String, String, String)> = printed.lines().filter_map(example1_line).collect();
    let rtols: Vec<String> = rows.iter().fold(Vec::new(), |mut v, (_, r, _)| {
        if !v.contains(r) {
            v.push(r.clone());
        }
        v
    });
    for group in [&ESTIMATORS[..3], &ESTIMATORS[3..]] {
        let names: Vec<&str> = group.iter().map(|(_, n)| *n).collect();
        println!("\n| rtol | {} |", names.join(" | "));
        println!("|---{}|", "|---".repeat(group.len()));
        for rtol in &rtols {
            let cells: Vec<&str> = group
                .iter()
                .map(|(estimator, _)| {
                    rows.iter()
                        .find(|(e, r, _)| e == estimator && r == rtol)
                        .map_or("-", |(_, _, c)| c.as_str())
                })
                .collect();
            println!("| {rtol} | {} |", cells.join(" | "));
        }
    }
    println!("\n(eqn 36 at the run's points / time-weighted / accepted / rejected.)");
    println!("{}", stamp("Done"));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_numbers_as_the_docs_tables() {
        assert_eq!(sci(9.7087e-8, 2), "9.71e-08");
        assert_eq!(sci(1e4, 0), "1e+04");
        assert_eq!(sci(0.1345, 2), "1.35e-01");
    }

    #[test]
    fn reads_the_lines_the_example_1_tests_print() {
        let line =
            "ex_s_local rtol 1e-3: e = 4.040e-2, time-weighted 6.570e-5, 450 accepted, 23 rejected";
        let (estimator, rtol, cell) = example1_line(line).expect("parses");
        assert_eq!((estimator.as_str(), rtol.as_str()), ("ex_s_local", "1e-3"));
        assert_eq!(cell, "4.04e-2 / 6.57e-5 / 450 / 23");
        assert!(example1_line("test foo ... ok").is_none());
        assert_eq!(two_digits("2.535e-4").as_deref(), Some("2.54e-4"));
        assert_eq!(two_digits("9.996e-3").as_deref(), Some("1.00e-2"));
        let first = format!("test simulation::t::example_1 ... {line}");
        assert_eq!(example1_line(&first).map(|(e, _, _)| e), Some(estimator));
    }
}
