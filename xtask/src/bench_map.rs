//! Map part of `cargo xtask bench`: time per map point of a 256 × 256 spectral-radius map
//! (two-mass oscillator, ZOH with model-based correction) in wasm in headless Chromium,
//! computed in row tiles over 1 Web Worker and over all of them (`www/bench_map.html`,
//! driven by `xtask/js/bench_map_browser.mjs`). Written into its own generated section of
//! `docs/benchmarks.md`, next to the native numbers of `cosim map` / criterion / NumPy.
use crate::shell::{output, repo_root, Result};
use std::fmt::Display;
use std::fs;
use std::process::Command;

/// Map size per axis.
pub const MAP_N: u32 = 256;
const BEGIN: &str = "<!-- xtask bench map: begin (generated, do not edit) -->";
const END: &str = "<!-- xtask bench map: end -->";

fn number(json: &str, anchor: &str, key: &str) -> Option<f64> {
    let rest = &json[json.find(anchor)?..];
    let rest = rest[rest.find(key)? + key.len()..].trim_start();
    let end = rest
        .find(|c: char| !(c.is_ascii_digit() || "+-.eE".contains(c)))
        .unwrap_or(rest.len());
    rest[..end].parse().ok()
}

/// Runs the browser map benchmark against the served `www/` at `addr`; returns markdown.
pub fn run(addr: impl Display, chromium: &str) -> Result<String> {
    let out = output(
        Command::new("node")
            .current_dir(repo_root())
            .arg("xtask/js/bench_map_browser.mjs")
            .env("COSIM_BASE_URL", format!("http://{addr}"))
            .env("COSIM_CHROMIUM", chromium)
            .env("BENCH_MAP_N", MAP_N.to_string()),
    )?;
    let line = out
        .lines()
        .find_map(|l| l.strip_prefix("BENCH_MAP "))
        .ok_or_else(|| format!("the map benchmark printed no result:\n{out}"))?;
    if line.contains("\"error\"") {
        return Err(format!("the map benchmark failed: {line}"));
    }
    let get = |anchor: &str, key: &str| {
        number(line, anchor, key).ok_or(format!("no {key} after {anchor} in {line}"))
    };
    let (one_s, one_us) = (
        get("\"one\"", "\"seconds\":")?,
        get("\"one\"", "\"usPerPoint\":")?,
    );
    let (all_s, all_us, workers) = (
        get("\"all\"", "\"seconds\":")?,
        get("\"all\"", "\"usPerPoint\":")?,
        get("\"all\"", "\"workers\":")?,
    );
    let load = fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into());
    let date = output(Command::new("date").args(["-u", "+%Y-%m-%d %H:%M UTC"])).unwrap_or_default();
    let md = format!(
        "Measured {} (load average {load} when done): {MAP_N} × {MAP_N} map of ρ(Φ), two-mass oscillator, \
         Jacobi ZOH with model-based correction, ΔT = 10^-3.5 s, c_k 1…1e10 × d_k 1…1e7 (log), rows as tiles.\n\n\
         | wasm in headless Chromium | wall time (s) | µs per map point |\n|---|---:|---:|\n\
         | 1 Web Worker | {one_s:.2} | {one_us:.1} |\n\
         | {workers:.0} Web Workers (all) | {all_s:.2} | {all_us:.1} |",
        date.trim()
    );
    println!("{md}");
    write_doc(&md)?;
    Ok(md)
}

/// Replaces the generated map section of docs/benchmarks.md (appends one if missing).
fn write_doc(md: &str) -> Result<()> {
    let path = repo_root().join("docs/benchmarks.md");
    let old = fs::read_to_string(&path).unwrap_or_else(|_| "# Benchmarks\n".into());
    let section = format!("{BEGIN}\n{md}\n{END}");
    let new = match (old.find(BEGIN), old.find(END)) {
        (Some(a), Some(b)) if b > a => format!("{}{section}{}", &old[..a], &old[b + END.len()..]),
        _ => format!(
            "{}\n\n## Spectral-radius map in the browser\n\n{section}\n",
            old.trim_end()
        ),
    };
    fs::write(&path, new).map_err(|e| format!("{}: {e}", path.display()))
}
