//! Repository-wide style checks (rust-analyzer's `tidy` pattern). They are ordinary tests, so `cargo test --workspace` enforces them.
//! The no_std rule is not here: the "no_std wasm32" stage proves it by compiling.
#![cfg(test)]

use crate::shell::repo_root;
use std::fs;
use std::path::{Path, PathBuf};

/// "No file over 500 lines": the hard ceiling.
const MAX_LINES: usize = 500;

/// Source folders checked; build output and vendored code are skipped.
const ROOTS: [&str; 6] = ["core", "wasm", "cli", "xtask", "tests", "www"];
const SKIP_DIRS: [&str; 6] = [
    "target",
    "node_modules",
    "pkg",
    "pkg-wasmi",
    "vendor",
    "out",
];

fn files(ext: &[&str]) -> Vec<PathBuf> {
    fn walk(dir: &Path, ext: &[&str], out: &mut Vec<PathBuf>) {
        let Ok(entries) = fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            let name = e.file_name().to_string_lossy().into_owned();
            if p.is_dir() {
                if !SKIP_DIRS.contains(&name.as_str()) && !name.starts_with('.') {
                    walk(&p, ext, out);
                }
            } else if p.extension().is_some_and(|x| ext.iter().any(|e| x == *e)) {
                out.push(p);
            }
        }
    }
    let root = repo_root();
    let mut out = Vec::new();
    for r in ROOTS {
        walk(&root.join(r), ext, &mut out);
    }
    out.sort();
    out
}

fn rel(p: &Path) -> String {
    p.strip_prefix(repo_root())
        .unwrap_or(p)
        .display()
        .to_string()
}

fn check(what: &str, bad: Vec<String>) {
    assert!(bad.is_empty(), "{what}:\n  {}", bad.join("\n  "));
}

#[test]
fn every_rust_file_starts_with_a_module_doc() {
    let bad = files(&["rs"])
        .into_iter()
        .filter(|p| {
            let text = fs::read_to_string(p).unwrap_or_default();
            !text
                .lines()
                .find(|l| !l.trim().is_empty())
                .is_some_and(|l| l.starts_with("//!"))
        })
        .map(|p| rel(&p))
        .collect();
    check("files whose first line is not a `//!` module doc", bad);
}

#[test]
fn files_stay_short() {
    let bad = files(&["rs", "js", "mjs"])
        .into_iter()
        .filter_map(|p| {
            let n = fs::read_to_string(&p)
                .map(|t| t.lines().count())
                .unwrap_or(0);
            (n > MAX_LINES).then(|| format!("{} ({n} lines)", rel(&p)))
        })
        .collect();
    check(
        &format!("files over {MAX_LINES} lines; split them along a real seam"),
        bad,
    );
}

#[test]
fn no_tests_that_cannot_fail() {
    // Spelled in pieces so this file does not match itself.
    let patterns = [concat!("#[", "ignore"), concat!("#[", "should_panic")];
    let bad = files(&["rs"])
        .into_iter()
        .flat_map(|p| {
            let text = fs::read_to_string(&p).unwrap_or_default();
            let hits: Vec<String> = text
                .lines()
                .enumerate()
                .filter(|(_, l)| patterns.iter().any(|pat| l.contains(pat)))
                .map(|(i, _)| format!("{}:{}", rel(&p), i + 1))
                .collect();
            hits
        })
        .collect();
    check(
        "ignored or should_panic tests (assert on None/Err instead)",
        bad,
    );
}

#[test]
fn wasm_bindings_never_unwrap() {
    let pattern = concat!(".unwrap", "()");
    let bad = files(&["rs"])
        .into_iter()
        .filter(|p| rel(p).starts_with("wasm/src"))
        .flat_map(|p| {
            let text = fs::read_to_string(&p).unwrap_or_default();
            let hits: Vec<String> = text
                .lines()
                .enumerate()
                .filter(|(_, l)| l.contains(pattern) && !l.trim_start().starts_with("//"))
                .map(|(i, _)| format!("{}:{}", rel(&p), i + 1))
                .collect();
            hits
        })
        .collect();
    check("unwrap() in wasm/src (return a JsError instead)", bad);
}

#[test]
fn comments_cite_the_repository_not_outside_notes() {
    // The repository stands alone: the mathematics is cited from docs/methods.md, never from
    // notes outside it. Spelled in pieces so this file does not match itself.
    let patterns = [
        concat!("../", "shared/notes"),
        concat!("/work/", "shared"),
        concat!(" di", "gest §"),
        concat!("di", "gest Q"),
    ];
    let mut bad = Vec::new();
    for p in files(&["rs", "js", "mjs", "html", "md"]) {
        let text = fs::read_to_string(&p).unwrap_or_default();
        for (k, line) in text.lines().enumerate() {
            if patterns.iter().any(|pat| line.contains(pat)) {
                bad.push(format!("{}:{}: {}", rel(&p), k + 1, line.trim()));
            }
        }
    }
    check(
        "citations of notes outside the repository (cite docs/methods.md)",
        bad,
    );
}
