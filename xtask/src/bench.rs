//! `cargo xtask bench`: macro-steps per second of the two-mass oscillator preset, natively
//! (criterion, `core/benches/macro_step.rs`) and as wasm in headless Chromium
//! (`www/bench.html`, driven by `xtask/js/bench_browser.mjs`). Results are printed and
//! written into the generated section of `docs/benchmarks.md`.
use crate::setup::{self, SetupOptions};
use crate::shell::{self, output, repo_root, run, section, Result};
use crate::{serve, wasm};
use std::fs;
use std::process::Command;

/// Macro-steps per timed run in the browser; the native bench uses the same count.
pub const DEFAULT_STEPS: u32 = 10_000;
/// Timed browser runs (median reported), after a warm-up of at least a second.
const BROWSER_RUNS: u32 = 7;

/// Markers around the generated part of docs/benchmarks.md.
const BEGIN: &str = "<!-- xtask bench: begin (generated, do not edit) -->";
const END: &str = "<!-- xtask bench: end -->";

/// The map benchmark alone (`bench --map`), against `www/` as `cargo xtask wasm` last built
/// it: for repeated measurements without a rebuild in between.
pub fn bench_map_only() -> Result<()> {
    let tc = setup::setup(SetupOptions::default())?;
    let root = repo_root();
    if !root.join("www/pkg/cosim_wasm_bg.wasm").exists() {
        return Err("www/pkg is empty: run `cargo xtask wasm` first".into());
    }
    let chromium = tc.chromium.ok_or("chromium not found (install chromium)")?;
    let addr = serve::start(&root.join("www"), 0)?;
    section("map benchmark (wasm in headless Chromium, Web Workers)");
    crate::bench_map::run(addr, &chromium.display().to_string()).map(|_| ())
}

/// Runs both benchmarks, prints the numbers and updates docs/benchmarks.md.
pub fn bench(steps: u32) -> Result<()> {
    let tc = setup::setup(SetupOptions::default())?;
    let root = repo_root();

    section("native benchmark (criterion)");
    // The native bench's step count is a constant in the bench file (criterion takes no args).
    run(shell::cargo().current_dir(&root).args([
        "bench",
        "-p",
        "cosim-core",
        "--bench",
        "macro_step",
    ]))?;
    let estimates = root.join("target/criterion/macro_step/two-mass-oscillator/new/estimates.json");
    let json =
        fs::read_to_string(&estimates).map_err(|e| format!("{}: {e}", estimates.display()))?;
    let ns_per_run = json_number_after(&json, "\"mean\"", "\"point_estimate\":")
        .ok_or("no mean estimate in criterion's estimates.json")?;
    let native = f64::from(DEFAULT_STEPS) / (ns_per_run * 1e-9);
    println!(
        "native: {native:.0} macro-steps/s ({DEFAULT_STEPS} steps in {:.3} ms)",
        ns_per_run * 1e-6
    );

    section("browser benchmark (wasm in headless Chromium)");
    let size = wasm::build(&tc)?;
    let chromium = tc
        .chromium
        .clone()
        .ok_or("chromium not found (install chromium)")?;
    let addr = serve::start(&root.join("www"), 0)?;
    let out = output(
        Command::new("node")
            .current_dir(&root)
            .arg("xtask/js/bench_browser.mjs")
            .env("COSIM_BASE_URL", format!("http://{addr}"))
            .env("COSIM_CHROMIUM", &chromium)
            .env("BENCH_STEPS", steps.to_string())
            .env("BENCH_RUNS", BROWSER_RUNS.to_string()),
    )?;
    let line = out
        .lines()
        .find_map(|l| l.strip_prefix("BENCH "))
        .ok_or_else(|| format!("the browser benchmark printed no result:\n{out}"))?;
    if line.contains("\"error\"") {
        return Err(format!("the browser benchmark failed: {line}"));
    }
    let browser = json_number_after(line, "", "\"stepsPerSecond\":").ok_or("no stepsPerSecond")?;
    let browser_version = json_string_after(line, "\"browser\":").unwrap_or_default();
    println!("browser: {browser:.0} macro-steps/s ({steps} steps, median of {BROWSER_RUNS})");

    section("map benchmark (wasm in headless Chromium, Web Workers)");
    crate::bench_map::run(addr, &chromium.display().to_string())?;

    let wasm_rustc = format!(
        "on the {} route, {}",
        crate::wasm_opt::route_text(&tc),
        json_string_after(line, "\"wasmOpt\":")
            .map_or("without wasm-opt".to_string(), |v| format!("then {v}"))
    );
    let rates: Vec<f64> = json_numbers_after(line, "\"allRates\":[");
    let spread = crate::bench_map::Timing::of(&rates);
    let report = Report {
        native,
        browser,
        steps,
        browser_version,
        wasm_rustc,
        wasm_gzip: size.gzip,
        wasm_raw: size.raw,
        spread_pct: spread.spread_pct(),
    };
    let md = report.markdown();
    println!("\n{md}");
    write_doc(&md)
}

struct Report {
    native: f64,
    browser: f64,
    steps: u32,
    browser_version: String,
    wasm_rustc: String,
    wasm_gzip: u64,
    wasm_raw: u64,
    /// (max − min) / median of the timed browser runs, in percent.
    spread_pct: f64,
}

impl Report {
    fn markdown(&self) -> String {
        let date =
            output(Command::new("date").args(["-u", "+%Y-%m-%d %H:%M UTC"])).unwrap_or_default();
        let cpu = output(&mut Command::new("lscpu"))
            .ok()
            .and_then(|s| {
                s.lines()
                    .find_map(|l| l.strip_prefix("Model name:").map(|m| m.trim().to_string()))
            })
            .unwrap_or_else(|| "unknown CPU".into());
        let cores = std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(0);
        let rustc = output(Command::new("rustc").arg("--version")).unwrap_or_default();
        // Other work on the machine slows both numbers; record it next to them.
        let load = fs::read_to_string("/proc/loadavg")
            .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
            .unwrap_or_else(|_| "unknown".into());
        format!(
            "Measured {date} on {cpu}, {cores} cores (load average {load} when done); native {rustc}, \
             wasm {wasm_rustc}; Chromium {browser}.\n\n\
             | what | macro-steps/s | note |\n|---|---:|---|\n\
             | native (criterion mean) | {native:.0} | `two-mass-oscillator`, {steps} steps per run |\n\
             | wasm in headless Chromium | {wasm:.0} | same scenario, median of {runs} runs (spread {spread:.1} %), main thread |\n\
             | ratio wasm / native | {ratio:.2} | |\n\n\
             Page wasm (`www/pkg/cosim_wasm_bg.wasm`): {raw} bytes, **{gz} bytes gzipped** ({gzk:.1} KiB).",
            date = date.trim(),
            rustc = rustc.trim(),
            wasm_rustc = self.wasm_rustc,
            browser = self.browser_version,
            native = self.native,
            steps = DEFAULT_STEPS,
            wasm = self.browser,
            runs = BROWSER_RUNS,
            ratio = self.browser / self.native,
            spread = self.spread_pct,
            raw = self.wasm_raw,
            gz = self.wasm_gzip,
            gzk = self.wasm_gzip as f64 / 1024.0,
        ) + &if self.steps != DEFAULT_STEPS {
            format!("\n\nNote: the browser run used {} steps per run (--steps).", self.steps)
        } else {
            String::new()
        }
    }
}

/// Replaces the generated section of docs/benchmarks.md (appends one if missing).
fn write_doc(md: &str) -> Result<()> {
    replace_doc_section(BEGIN, END, md)
}

/// Replaces the section between `begin` and `end` of docs/benchmarks.md with `md`
/// (appends one if missing).
pub fn replace_doc_section(begin: &str, end: &str, md: &str) -> Result<()> {
    let path = repo_root().join("docs/benchmarks.md");
    let old = fs::read_to_string(&path).unwrap_or_else(|_| "# Benchmarks\n".into());
    let section = format!("{begin}\n{md}\n{end}");
    let new = match (old.find(begin), old.find(end)) {
        (Some(a), Some(b)) if b > a => format!("{}{section}{}", &old[..a], &old[b + end.len()..]),
        _ => format!("{}\n{section}\n", old.trim_end()),
    };
    fs::write(&path, new).map_err(|e| format!("{}: {e}", path.display()))?;
    println!("updated {}", path.display());
    Ok(())
}

/// The number following `key` after the first `anchor` (crude, for known JSON shapes).
pub fn json_number_after(json: &str, anchor: &str, key: &str) -> Option<f64> {
    let from = json.find(anchor)?;
    let rest = &json[from..];
    let rest = rest[rest.find(key)? + key.len()..].trim_start();
    let end = rest
        .find(|c: char| !(c.is_ascii_digit() || "+-.eE".contains(c)))
        .unwrap_or(rest.len());
    rest[..end].parse().ok()
}

/// The numbers of the JSON array that starts right after `key` (e.g. `"allRates":[`).
fn json_numbers_after(json: &str, key: &str) -> Vec<f64> {
    let Some(at) = json.find(key) else {
        return Vec::new();
    };
    let rest = &json[at + key.len()..];
    rest[..rest.find(']').unwrap_or(rest.len())]
        .split(',')
        .filter_map(|v| v.trim().parse().ok())
        .collect()
}

pub fn json_string_after(json: &str, key: &str) -> Option<String> {
    let rest = &json[json.find(key)? + key.len()..];
    let rest = rest.trim_start().strip_prefix('"')?;
    Some(rest[..rest.find('"')?].to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_criterion_mean_not_median() {
        let j = r#"{"mean":{"confidence_interval":{"lower_bound":1.0,"upper_bound":3.0},"point_estimate":2.5e6,"standard_error":0.1},"median":{"point_estimate":9.0}}"#;
        assert_eq!(
            json_number_after(j, "\"mean\"", "\"point_estimate\":"),
            Some(2.5e6)
        );
        assert_eq!(
            json_string_after(r#"{"browser":"156.0.1"}"#, "\"browser\":"),
            Some("156.0.1".into())
        );
        assert_eq!(
            json_numbers_after(r#"{"allRates":[1.5,2e3, 4],"x":[9]}"#, "\"allRates\":["),
            vec![1.5, 2000.0, 4.0]
        );
    }
}
