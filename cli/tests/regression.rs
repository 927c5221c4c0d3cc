//! Byte-for-byte regression of the `cosim` CLI against outputs recorded before issue 10
//! (`tests/fixtures/regression/`): every case of `manifest.json` runs the built binary in
//! `tests/fixtures/` (where `fmus/` holds the example modules the binary presets name) and
//! compares its standard output, its exit status and, where the case names a file, its
//! standard error with the recorded files. All cases run; the test fails at the end with
//! each failing case and its first differing line.
//!
//! `COSIM_RECORD_FIXTURES=1` writes the files instead (see the folder's README.md: only
//! for changes meant to alter numbers, explained in the commit message).

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Cases run on this many threads (the slow ones, `convergence`, use a thread per order).
const WORKERS: usize = 2;

/// One line of the manifest.
struct Case {
    name: String,
    args: Vec<String>,
    /// File fed to standard input (relative to the regression folder).
    stdin: Option<String>,
    /// Files that must exist (relative to `tests/fixtures/`), e.g. `fmus/x.fmu`.
    needs: Vec<String>,
    status: i32,
    /// Expected standard output; `None`: it must be empty.
    stdout: Option<String>,
    /// Expected standard error; `None`: not compared (summaries are not pinned).
    stderr: Option<String>,
}

/// What one run of the binary gave.
struct Outcome {
    status: Option<i32>,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
}

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures")
}

fn regression_dir() -> PathBuf {
    fixtures_dir().join("regression")
}

fn strings(v: &Value, key: &str, case: &str) -> Vec<String> {
    match v.get(key) {
        None => Vec::new(),
        Some(list) => list
            .as_array()
            .unwrap_or_else(|| panic!("case `{case}`: `{key}` is not a list"))
            .iter()
            .map(|a| {
                a.as_str()
                    .unwrap_or_else(|| panic!("case `{case}`: `{key}` holds a non-string"))
                    .to_string()
            })
            .collect(),
    }
}

fn read_manifest() -> Vec<Case> {
    let path = regression_dir().join("manifest.json");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let root: Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let list = root["cases"]
        .as_array()
        .unwrap_or_else(|| panic!("{}: no `cases` list", path.display()));
    let cases: Vec<Case> = list
        .iter()
        .map(|v| {
            let name = v["name"]
                .as_str()
                .expect("every case has a name")
                .to_string();
            let text = |key: &str| v.get(key).and_then(Value::as_str).map(String::from);
            Case {
                args: strings(v, "args", &name),
                stdin: text("stdin"),
                needs: strings(v, "needs", &name),
                status: v.get("status").and_then(Value::as_i64).unwrap_or(0) as i32,
                stdout: text("stdout"),
                stderr: text("stderr"),
                name,
            }
        })
        .collect();
    let names: BTreeSet<&str> = cases.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names.len(), cases.len(), "case names must be unique");
    cases
}

fn run(case: &Case) -> Result<Outcome, String> {
    if let Some(missing) = case
        .needs
        .iter()
        .find(|f| !fixtures_dir().join(f).is_file())
    {
        return Err(format!(
            "needs tests/fixtures/{missing}, which is missing (`cargo xtask fmus` builds it)"
        ));
    }
    let input = match &case.stdin {
        Some(f) => Some(read(f)?),
        None => None,
    };
    let mut child = Command::new(env!("CARGO_BIN_EXE_cosim"))
        .args(&case.args)
        .current_dir(fixtures_dir())
        .stdin(if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start cosim: {e}"))?;
    if let (Some(bytes), Some(mut pipe)) = (input, child.stdin.take()) {
        pipe.write_all(&bytes)
            .map_err(|e| format!("cannot write standard input: {e}"))?;
    }
    let out = child
        .wait_with_output()
        .map_err(|e| format!("cosim did not finish: {e}"))?;
    Ok(Outcome {
        status: out.status.code(),
        stdout: out.stdout,
        stderr: out.stderr,
    })
}

fn read(file: &str) -> Result<Vec<u8>, String> {
    let path = regression_dir().join(file);
    std::fs::read(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

/// `None` when equal, else where and how `actual` first differs from `expected`.
fn first_difference(expected: &[u8], actual: &[u8]) -> Option<String> {
    if expected == actual {
        return None;
    }
    let show = |line: Option<&[u8]>| match line {
        None => "(end of output)".to_string(),
        Some(l) => {
            let (body, newline) = match l.strip_suffix(b"\n") {
                Some(body) => (body, ""),
                None => (l, " (no newline at the end)"),
            };
            let text = String::from_utf8_lossy(body);
            let mut shown: String = text.chars().take(300).collect();
            if shown.len() < text.len() {
                shown.push('…');
            }
            format!("`{shown}`{newline}")
        }
    };
    let (mut e, mut a) = (
        expected.split_inclusive(|b| *b == b'\n'),
        actual.split_inclusive(|b| *b == b'\n'),
    );
    for number in 1.. {
        let (le, la) = (e.next(), a.next());
        if le != la {
            let column = match (le, la) {
                (Some(x), Some(y)) => {
                    let same = x.iter().zip(y).take_while(|(p, q)| p == q).count();
                    format!(", byte {}", same + 1)
                }
                _ => String::new(),
            };
            return Some(format!(
                "line {number}{column}:\n      expected {}\n      actual   {}",
                show(le),
                show(la)
            ));
        }
    }
    unreachable!("unequal outputs differ in some line")
}

/// Every mismatch of one case, one message each.
fn check(case: &Case) -> Vec<String> {
    let got = match run(case) {
        Ok(o) => o,
        Err(e) => return vec![e],
    };
    let mut problems = Vec::new();
    if got.status != Some(case.status) {
        problems.push(format!(
            "exit status {:?}, expected {} (stderr: {})",
            got.status,
            case.status,
            String::from_utf8_lossy(&got.stderr).trim_end()
        ));
    }
    let mut compare = |stream: &str, file: Option<&String>, actual: &[u8]| {
        let expected = match file {
            Some(f) => match read(f) {
                Ok(bytes) => bytes,
                Err(e) => return problems.push(e),
            },
            None => Vec::new(),
        };
        if let Some(diff) = first_difference(&expected, actual) {
            let what = file.map_or("empty".to_string(), |f| format!("regression/{f}"));
            problems.push(format!("{stream} differs from {what} at {diff}"));
        }
    };
    compare("stdout", case.stdout.as_ref(), &got.stdout);
    if case.stderr.is_some() {
        compare("stderr", case.stderr.as_ref(), &got.stderr);
    }
    problems
}

/// Recording: in manifest order (later cases read what earlier ones wrote, e.g. the preset
/// JSON); a file two cases share must come out the same from both.
fn record(cases: &[Case]) {
    let mut written: BTreeMap<String, (String, Vec<u8>)> = BTreeMap::new();
    let mut failures = Vec::new();
    for case in cases {
        let got = match run(case) {
            Ok(o) => o,
            Err(e) => {
                failures.push(format!("{}: {e}", case.name));
                continue;
            }
        };
        if got.status != Some(case.status) {
            failures.push(format!(
                "{}: exit status {:?}, the manifest says {} (stderr: {})",
                case.name,
                got.status,
                case.status,
                String::from_utf8_lossy(&got.stderr).trim_end()
            ));
        }
        let streams = [(&case.stdout, got.stdout), (&case.stderr, got.stderr)];
        for (i, (file, bytes)) in streams.into_iter().enumerate() {
            let Some(file) = file else {
                if i == 0 && !bytes.is_empty() {
                    failures.push(format!("{}: stdout is not empty but no file", case.name));
                }
                continue;
            };
            if let Some((first, earlier)) = written.get(file) {
                if *earlier != bytes {
                    failures.push(format!("{}: {file} differs from case `{first}`", case.name));
                }
                continue;
            }
            let path = regression_dir().join(file);
            let dir = path.parent().expect("a fixture file has a folder");
            std::fs::create_dir_all(dir).expect("fixture folder");
            std::fs::write(&path, &bytes).expect("fixture file");
            written.insert(file.clone(), (case.name.clone(), bytes));
        }
    }
    println!(
        "recorded {} files from {} cases",
        written.len(),
        cases.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Files in the regression folder (relative paths) that no case names.
fn unnamed_files(cases: &[Case]) -> Vec<String> {
    let named: BTreeSet<&str> = cases
        .iter()
        .flat_map(|c| [&c.stdout, &c.stderr, &c.stdin])
        .flatten()
        .map(String::as_str)
        .collect();
    let root = regression_dir();
    let mut stack = vec![root.clone()];
    let mut unnamed = Vec::new();
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir)
            .expect("regression folder")
            .flatten()
        {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let rel = path.strip_prefix(&root).expect("inside the folder");
            let rel = rel.to_string_lossy().replace('\\', "/");
            if !["manifest.json", "README.md", ".gitattributes"].contains(&rel.as_str())
                && !named.contains(rel.as_str())
            {
                unnamed.push(rel);
            }
        }
    }
    unnamed.sort();
    unnamed
}

#[test]
fn every_recorded_cli_output_is_reproduced_byte_for_byte() {
    let cases = read_manifest();
    if std::env::var("COSIM_RECORD_FIXTURES").as_deref() == Ok("1") {
        return record(&cases);
    }
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..WORKERS {
            s.spawn(|| loop {
                let index = next.fetch_add(1, Ordering::Relaxed);
                let Some(case) = cases.get(index) else {
                    break;
                };
                let problems = check(case);
                if !problems.is_empty() {
                    let text = format!(
                        "case `{}` (cosim {}):\n  {}",
                        case.name,
                        case.args.join(" "),
                        problems.join("\n  ")
                    );
                    failures
                        .lock()
                        .expect("no worker panics")
                        .push((index, text));
                }
            });
        }
    });
    let mut failures = failures.into_inner().expect("no worker panics");
    failures.sort();
    let mut failures: Vec<String> = failures.into_iter().map(|(_, text)| text).collect();
    let unnamed = unnamed_files(&cases);
    if !unnamed.is_empty() {
        failures.push(format!(
            "files no case names (stale fixtures?): {}",
            unnamed.join(", ")
        ));
    }
    println!("{} cases", cases.len());
    assert!(
        failures.is_empty(),
        "{} of {} cases differ from the recorded outputs:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
