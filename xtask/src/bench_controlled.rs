//! `cargo xtask bench --controlled`: accepted macro-steps per second of controlled runs
//! (seed 003's defect control next to fixed-step runs of the same example), natively
//! (criterion, `core/benches/controlled_steps.rs`) and as wasm in headless Chromium
//! (`www/bench.html?mode=to-end`). The bench lists its cases in
//! `target/criterion/controlled_steps_cases.txt`, so both sides run the same ones.
use crate::bench::{json_number_after, replace_doc_section};
use crate::setup::{self, SetupOptions};
use crate::shell::{self, output, repo_root, run, section, Result};
use crate::{serve, wasm};
use std::fs;
use std::process::Command;

/// Timed browser runs per case (median reported).
const BROWSER_RUNS: u32 = 7;
const BEGIN: &str = "<!-- xtask bench --controlled: begin (generated, do not edit) -->";
const END: &str = "<!-- xtask bench --controlled: end -->";

/// One case as the native bench listed it.
struct Case {
    label: String,
    spec: String,
    h: Option<String>,
    accepted: u64,
}

/// Runs the controlled-step cases natively and in Chromium and updates docs/benchmarks.md.
pub fn bench() -> Result<()> {
    let tc = setup::setup(SetupOptions::default())?;
    let root = repo_root();
    section("native benchmark (criterion): controlled steps");
    run(shell::cargo().current_dir(&root).args([
        "bench",
        "-p",
        "cosim-core",
        "--bench",
        "controlled_steps",
    ]))?;
    let criterion = root.join("target/criterion");
    let listing = fs::read_to_string(criterion.join("controlled_steps_cases.txt"))
        .map_err(|e| format!("the bench wrote no case list: {e}"))?;
    let cases = parse_cases(&listing)?;

    section("browser benchmark (wasm in headless Chromium): controlled steps");
    wasm::build(&tc)?;
    let chromium = tc.chromium.clone().ok_or("chromium not found")?;
    let addr = serve::start(&root.join("www"), 0)?;
    let mut rows = String::new();
    for c in &cases {
        let estimates = criterion.join(format!("controlled_steps/{}/new/estimates.json", c.label));
        let json =
            fs::read_to_string(&estimates).map_err(|e| format!("{}: {e}", estimates.display()))?;
        let ns = json_number_after(&json, "\"mean\"", "\"point_estimate\":")
            .ok_or("no mean estimate in criterion's estimates.json")?;
        let native = c.accepted as f64 / (ns * 1e-9);
        let mut query = format!("mode=to-end&preset={}", c.spec.replace('|', "%7C"));
        if let Some(h) = &c.h {
            query.push_str(&format!("&h={h}"));
        }
        let out = output(
            Command::new("node")
                .current_dir(&root)
                .arg("xtask/js/bench_browser.mjs")
                .env("COSIM_BASE_URL", format!("http://{addr}"))
                .env("COSIM_CHROMIUM", &chromium)
                .env("BENCH_RUNS", BROWSER_RUNS.to_string())
                .env("BENCH_QUERY", &query),
        )?;
        let line = out
            .lines()
            .find_map(|l| l.strip_prefix("BENCH "))
            .ok_or_else(|| format!("the browser benchmark printed no result:\n{out}"))?;
        if line.contains("\"error\"") {
            return Err(format!("the browser benchmark failed: {line}"));
        }
        let browser = json_number_after(line, "", "\"stepsPerSecond\":").ok_or("no rate")?;
        println!("{}: native {native:.0} /s, wasm {browser:.0} /s", c.label);
        rows.push_str(&format!(
            "| `{}` | `{}`{} | {} | {native:.0} | {browser:.0} | {:.2} |\n",
            c.label,
            // A `|` inside a table cell must be escaped, even in code.
            c.spec.replace('|', "\\|"),
            c.h.as_ref()
                .map(|h| format!(", H = {h} s"))
                .unwrap_or_default(),
            c.accepted,
            browser / native
        ));
    }
    let date = output(Command::new("date").args(["-u", "+%Y-%m-%d %H:%M UTC"])).unwrap_or_default();
    let load = fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default();
    let md = format!(
        "Measured {} (load average {load} when done); accepted macro-steps per second of one whole \
         run, criterion mean natively, median of {BROWSER_RUNS} runs in headless Chromium.\n\n\
         | case | scenario | accepted steps | native /s | wasm /s | wasm / native |\n\
         |---|---|---:|---:|---:|---:|\n{rows}",
        date.trim()
    );
    println!("\n{md}");
    replace_doc_section(BEGIN, END, &md)
}

fn parse_cases(listing: &str) -> Result<Vec<Case>> {
    listing
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split(' ').collect();
            match f.as_slice() {
                [label, spec, h, accepted] => Ok(Case {
                    label: label.to_string(),
                    spec: spec.to_string(),
                    h: (!h.is_empty()).then(|| h.to_string()),
                    accepted: accepted
                        .parse()
                        .map_err(|_| format!("bad count in `{l}`"))?,
                }),
                _ => Err(format!("bad case line `{l}`")),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_case_list_the_bench_writes() {
        let cases = parse_cases("a p|fixed 0.2 100\nb p  99\n").expect("parses");
        assert_eq!(cases.len(), 2);
        assert_eq!(
            (cases[0].spec.as_str(), cases[0].h.as_deref()),
            ("p|fixed", Some("0.2"))
        );
        assert_eq!((cases[1].h.as_deref(), cases[1].accepted), (None, 99));
        assert!(parse_cases("only two").is_err());
    }
}
