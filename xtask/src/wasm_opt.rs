//! binaryen's `wasm-opt` over wasm-bindgen's output (`cargo xtask wasm --wasm-opt`), and
//! `www/pkg/build-info.json`, which says how the served binary was built (toolchain route,
//! name section, wasm-opt) so that the browser benchmarks can report it.
//!
//! wasm-opt comes from the npm package `binaryen` (a devDependency in package.json, pinned
//! by package-lock.json), so `npm ci` installs it on every machine; it runs as a Node
//! script and needs no system package. It is not part of the default build: measured on
//! this project (docs/benchmarks.md), -O3 gave no measurable speed and 0.3 % of the gzipped
//! size beyond what removing the name section gives, which wasm-bindgen does itself.
use crate::setup::{Toolchain, WasmRoute};
use crate::shell::{output, repo_root, run, Result};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Optimisation flags. `-O3` without `-g` also drops the name section. The wasm's features (SIMD, bulk memory,
/// reference types, …) are read from its `target_features` section.
pub const FLAGS: [&str; 1] = ["-O3"];

/// The installed `wasm-opt` of the npm package `binaryen`.
fn wasm_opt() -> Result<PathBuf> {
    let bin = repo_root().join("node_modules/.bin/wasm-opt");
    if bin.exists() {
        Ok(bin)
    } else {
        Err(format!(
            "{} missing: run `cargo xtask setup` (or `npm ci`) for the npm package binaryen",
            bin.display()
        ))
    }
}

/// `wasm-opt version 132 (version_132)`.
fn version(bin: &Path) -> Result<String> {
    Ok(output(Command::new(bin).arg("--version"))?
        .trim()
        .to_string())
}

/// Optimises `wasm` in place; returns the wasm-opt version and flags used.
pub fn optimise(wasm: &Path) -> Result<String> {
    let bin = wasm_opt()?;
    let tmp = wasm.with_extension("opt.wasm");
    run(Command::new(&bin).args(FLAGS).arg(wasm).arg("-o").arg(&tmp))?;
    fs::rename(&tmp, wasm).map_err(|e| format!("{} -> {}: {e}", tmp.display(), wasm.display()))?;
    Ok(format!("{} {}", version(&bin)?, FLAGS.join(" ")))
}

/// Which toolchain route built the wasm and with which rustc, e.g. `rustup (rustc 1.95.0 …)`.
pub fn route_text(tc: &Toolchain) -> String {
    let (route, rustc) = match tc.wasm {
        WasmRoute::Rustup => ("rustup", "rustc"),
        WasmRoute::Debian { .. } => ("Debian rustc-web with -Z build-std", "/usr/bin/rustc"),
    };
    let version = output(Command::new(rustc).arg("--version")).unwrap_or_default();
    format!("{route} ({})", version.trim())
}

/// Writes `www/pkg/build-info.json`: route and rustc, wasm-opt (or null when skipped),
/// whether the name section was kept.
pub fn write_build_info(
    pkg: &Path,
    tc: &Toolchain,
    wasm_opt: Option<&str>,
    keep_names: bool,
) -> Result<()> {
    let quote = |s: &str| format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""));
    let json = format!(
        "{{\"route\": {}, \"wasmOpt\": {}, \"names\": {keep_names}}}\n",
        quote(&route_text(tc)),
        wasm_opt.map_or("null".to_string(), quote)
    );
    let path = pkg.join("build-info.json");
    fs::write(&path, json).map_err(|e| format!("{}: {e}", path.display()))
}
