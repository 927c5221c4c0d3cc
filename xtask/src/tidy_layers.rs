//! The layer rule of `cosim-core`: every top-level folder (or file) of `core/src` may
//! import only the layers below it ([`LAYERS`], bottom first; folders on one layer do not
//! import each other). The test reads each file's `crate::name` paths (in `use` lines and
//! in code) and fails on any edge that points up or sideways, naming file, line and edge.
//! Test code may import anything: modules declared `#[cfg(test)] mod name;` (with their
//! folders), files named `tests.rs` or `*_tests.rs`, files under a `tests/` folder, the
//! test doubles of `testing/` and items marked `#[cfg(test)]` are skipped; code that is
//! not a test may not import `testing`.
//! `docs/architecture.md` states the same order; a second test keeps the two in step.
#![cfg(test)]

use crate::shell::repo_root;
use std::fs;
use std::path::{Path, PathBuf};

/// The layers of `core/src`, bottom first. A name is a folder (`module/`) or a file
/// (`time.rs`); names on one line share a layer.
const LAYERS: [&[&str]; 11] = [
    &["time", "limits"],
    &["module"],
    &["error"],
    &["solvers"],
    &["models", "fmu"],
    &["coupling"],
    &["master"],
    &["analysis"],
    &["scenario"],
    &["simulation", "ssp"],
    &["lib"],
];

/// Top-level folders of test doubles (behind a feature): test code only, in no layer.
const TEST_SUPPORT: [&str; 1] = ["testing"];

fn layer_of(name: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&name))
}

fn core_src() -> PathBuf {
    repo_root().join("core/src")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Path relative to `core/src`, with `/` separators.
fn inside(p: &Path) -> String {
    p.strip_prefix(core_src())
        .unwrap_or(p)
        .to_string_lossy()
        .replace('\\', "/")
}

/// Whether a file is test code; `gated` lists the files and folders (ending in `/`) of
/// modules declared under `#[cfg(test)]`.
fn is_test_file(rel: &str, gated: &[String]) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    name == "tests.rs"
        || name.ends_with("_tests.rs")
        || rel.starts_with("tests/")
        || rel.contains("/tests/")
        || TEST_SUPPORT.contains(&top_of(rel))
        || gated
            .iter()
            .any(|g| rel == g || (g.ends_with('/') && rel.starts_with(g.as_str())))
}

/// The folder of a file's child modules: `a/b.rs` and `a/b/mod.rs` keep theirs in `a/b/`.
fn module_dir(rel: &str) -> String {
    match rel {
        "lib.rs" => String::new(),
        _ => match rel.strip_suffix("/mod.rs") {
            Some(dir) => format!("{dir}/"),
            None => format!("{}/", rel.trim_end_matches(".rs")),
        },
    }
}

/// `name` of a `mod name;` line (any visibility).
fn mod_declaration(line: &str) -> Option<&str> {
    let rest = match line.strip_prefix("pub") {
        Some(vis) if vis.starts_with('(') => vis.split_once(')')?.1.trim_start(),
        Some(vis) => vis.trim_start(),
        None => line,
    };
    rest.strip_prefix("mod ")?.strip_suffix(';').map(str::trim)
}

/// Files and folders of the modules declared `#[cfg(test)] mod name;` in `files`.
fn cfg_test_modules(files: &[PathBuf]) -> Vec<String> {
    let mut out = Vec::new();
    for p in files {
        let rel = inside(p);
        let text = fs::read_to_string(p).unwrap_or_default();
        let mut gated = false;
        for line in text.lines() {
            let t = code_part(line).trim();
            if t == "#[cfg(test)]" {
                gated = true;
                continue;
            }
            if gated && t.starts_with("#[") {
                continue;
            }
            if let Some(name) = mod_declaration(t).filter(|_| gated) {
                let dir = module_dir(&rel);
                out.push(format!("{dir}{name}.rs"));
                out.push(format!("{dir}{name}/"));
            }
            gated = false;
        }
    }
    out
}

/// The layer name of a file: its top-level folder, or the file's stem at the top.
fn top_of(rel: &str) -> &str {
    match rel.split_once('/') {
        Some((folder, _)) => folder,
        None => rel.trim_end_matches(".rs"),
    }
}

/// The line without its `//` comment (a `//` inside a string literal is kept).
fn code_part(line: &str) -> &str {
    let mut in_string = false;
    let mut escaped = false;
    let bytes = line.as_bytes();
    for i in 0..bytes.len() {
        let c = bytes[i];
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
        } else if c == b'"' {
            in_string = true;
        } else if c == b'/' && bytes.get(i + 1) == Some(&b'/') {
            return &line[..i];
        }
    }
    line
}

/// Lines of code outside `#[cfg(test)]` items, with their 1-based numbers and without
/// comments.
fn code_lines(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut lines = text.lines().enumerate().peekable();
    while let Some((i, line)) = lines.next() {
        let code = code_part(line);
        if code.trim() != "#[cfg(test)]" {
            out.push((i + 1, code));
            continue;
        }
        // Skip the item the attribute applies to: further attributes, then either one
        // statement (`mod x;`, `use ...;`) or a braced block.
        let mut depth = 0i32;
        let mut opened = false;
        for (_, next) in lines.by_ref() {
            let code = code_part(next);
            let t = code.trim();
            if !opened && (t.is_empty() || t.starts_with("#[")) {
                continue;
            }
            depth += code.matches('{').count() as i32 - code.matches('}').count() as i32;
            opened |= code.contains('{');
            if (opened && depth <= 0) || (!opened && t.ends_with(';')) {
                break;
            }
        }
    }
    out
}

/// Every top-level name a line reaches through `crate::`, including each branch of
/// `crate::{a::x, b}`.
fn crate_targets(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        let before = rest[..at].chars().next_back();
        rest = &rest[at + "crate::".len()..];
        // `$crate::` and identifiers ending in `crate` are not paths from the crate root.
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
            continue;
        }
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 0;
            let mut start = 0;
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => {
                        out.extend(first_ident(&group[start..i]));
                        break;
                    }
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        out.extend(first_ident(&group[start..i]));
                        start = i + 1;
                    }
                    _ => {}
                }
            }
        } else {
            out.extend(first_ident(rest));
        }
    }
    out
}

fn first_ident(s: &str) -> Option<String> {
    let s = s.trim_start();
    let ident: String = s
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    (!ident.is_empty()).then_some(ident)
}

/// `file:line: from -> to (why)` for every edge that breaks the order.
fn violations() -> Vec<String> {
    let mut files = Vec::new();
    rust_files(&core_src(), &mut files);
    files.sort();
    let gated = cfg_test_modules(&files);
    let mut bad = Vec::new();
    for p in files {
        let rel = inside(&p);
        if is_test_file(&rel, &gated) {
            continue;
        }
        let from = top_of(&rel);
        let Some(from_layer) = layer_of(from) else {
            bad.push(format!(
                "core/src/{rel}: `{from}` is in no layer; add it to LAYERS and docs/architecture.md"
            ));
            continue;
        };
        let text = fs::read_to_string(&p).unwrap_or_default();
        for (line, code) in code_lines(&text) {
            for to in crate_targets(code) {
                if to == from {
                    continue;
                }
                let why = match layer_of(&to) {
                    None if TEST_SUPPORT.contains(&to.as_str()) => "test doubles, for tests only",
                    None => "not a layer (name the folder the item lives in)",
                    Some(l) if l == from_layer => "same layer",
                    Some(l) if l > from_layer => "points up",
                    Some(_) => continue,
                };
                bad.push(format!("core/src/{rel}:{line}: {from} -> {to} ({why})"));
            }
        }
    }
    bad
}

#[test]
fn core_layers_only_import_downwards() {
    let bad = violations();
    assert!(
        bad.is_empty(),
        "imports against the layer order (bottom first: {}); move the item down or the \
         code up:\n  {}",
        order_line(),
        bad.join("\n  ")
    );
}

#[test]
fn every_top_level_name_has_a_layer() {
    let mut missing = Vec::new();
    for e in fs::read_dir(core_src()).into_iter().flatten().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let name = name.trim_end_matches(".rs");
        if layer_of(name).is_none() && !TEST_SUPPORT.contains(&name) {
            missing.push(name.to_string());
        }
    }
    assert!(
        missing.is_empty(),
        "top-level names of core/src without a layer: {missing:?}"
    );
}

/// The order as docs/architecture.md writes it: `` `time` → `module` → … `` with
/// `` `models` / `fmu` `` for one layer (the crate root `lib` is left out).
fn order_line() -> String {
    LAYERS
        .iter()
        .filter(|l| **l != ["lib"])
        .map(|l| {
            l.iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(" / ")
        })
        .collect::<Vec<_>>()
        .join(" → ")
}

#[test]
fn architecture_doc_states_the_same_order() {
    let doc = fs::read_to_string(repo_root().join("docs/architecture.md")).unwrap_or_default();
    let line = order_line();
    assert!(
        doc.contains(&line),
        "docs/architecture.md must state the layer order as\n  {line}"
    );
}

#[test]
fn the_parser_finds_edges_and_skips_test_code() {
    assert_eq!(
        crate_targets("use crate::{analysis::x, master::{a, b}, error};"),
        ["analysis", "master", "error"]
    );
    assert_eq!(
        crate_targets("let v = crate::solvers::expm(&a)?; $crate::x::y"),
        ["solvers"]
    );
    assert_eq!(
        crate_targets(code_part("x(); // crate::scenario")),
        Vec::<String>::new()
    );
    assert_eq!(
        crate_targets(code_part("f(\"a // b\", crate::time::X)")),
        ["time"]
    );
    let text = "use crate::a::X;\n#[cfg(test)]\nmod tests {\n    use crate::b::Y;\n}\n\
                #[cfg(test)]\nuse crate::c::Z;\nuse crate::d::W;\n";
    let seen: Vec<(usize, Vec<String>)> = code_lines(text)
        .into_iter()
        .map(|(n, c)| (n, crate_targets(c)))
        .filter(|(_, t)| !t.is_empty())
        .collect();
    assert_eq!(seen, [(1, vec!["a".into()]), (8, vec!["d".into()])]);
    assert!(is_test_file("analysis/sweep/tests.rs", &[]));
    assert!(is_test_file("master/tests/events.rs", &[]));
    assert!(is_test_file("analysis/convergence_tests.rs", &[]));
    assert!(is_test_file("testing/controllers.rs", &[]));
    assert!(!is_test_file("analysis/sweep/map.rs", &[]));
    assert_eq!(module_dir("scenario/presets.rs"), "scenario/presets/");
    assert_eq!(module_dir("master/mod.rs"), "master/");
    assert_eq!(mod_declaration("pub(crate) mod mock;"), Some("mock"));
    assert_eq!(
        mod_declaration("mod what_they_show;"),
        Some("what_they_show")
    );
    assert_eq!(mod_declaration("mod inline {"), None);
    let gated = ["master/mock.rs".to_string(), "master/mock/".to_string()];
    assert!(is_test_file("master/mock.rs", &gated));
    assert!(!is_test_file("master/run.rs", &gated));
    assert_eq!(top_of("time.rs"), "time");
    assert_eq!(top_of("analysis/sweep/map.rs"), "analysis");
}
