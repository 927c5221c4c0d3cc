//! `cargo xtask wasm`: builds cosim-wasm for wasm32, runs wasm-bindgen into `www/pkg`
//! (without the name section unless `--keep-names`; wasm-opt over it with `--wasm-opt`),
//! copies uPlot and dagre into `www/vendor`, and reports the gzipped size of the .wasm.
use crate::setup::{Toolchain, WasmRoute};
use crate::shell::{self, repo_root, run, section, which, Result};
use std::fs;
use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};

/// The wasm32 target triple.
pub const TARGET: &str = "wasm32-unknown-unknown";
/// `-Z build-std` crates for ordinary builds on the Debian route.
pub const STD: &str = "std,panic_abort";
/// `-Z build-std` crates that prove cosim-core is no_std: without `std` in the sysroot,
/// any `std::` use fails to compile.
pub const NO_STD: &str = "core,alloc";
/// wasm SIMD (f64x2) for every cosim build: the analysis' small matrix products vectorise
/// as they do natively with SSE2 (all current engines: Chrome 91, Firefox 89, Safari 16.4).
/// Not in `.cargo/config.toml`: the example FMUs (`xtask/src/fmus.rs`) must stay without
/// SIMD for the wasmi interpreter, and cargo would merge the config's flags into theirs.
const RUSTFLAGS: &str = "-C target-feature=+simd128";

/// A cargo command for wasm32 on the machine's route. `build_std` applies only to the
/// Debian route (rustup ships a prebuilt std).
pub fn cargo_wasm(tc: &Toolchain, subcommand: &str, build_std: &str) -> Command {
    let mut c = cargo_wasm_route(tc, subcommand, build_std);
    // No debug info in wasm test/check builds: nothing reads it, and with `-Z build-std`
    // it roughly doubles the time to compile std.
    c.env("CARGO_PROFILE_DEV_DEBUG", "0")
        .env("CARGO_PROFILE_TEST_DEBUG", "0")
        .env("CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS", RUSTFLAGS);
    c
}

fn cargo_wasm_route(tc: &Toolchain, subcommand: &str, build_std: &str) -> Command {
    match &tc.wasm {
        WasmRoute::Rustup => {
            let mut c = shell::cargo();
            c.current_dir(repo_root())
                .arg(subcommand)
                .args(["--target", TARGET]);
            c
        }
        WasmRoute::Debian { linker } => {
            let mut c = Command::new("/usr/bin/cargo");
            c.current_dir(repo_root())
                .arg(subcommand)
                .args(["--target", TARGET, "-Z", &format!("build-std={build_std}")])
                // A separate target dir: the host toolchain (rustup) and Debian's rustc
                // would otherwise invalidate each other's artifacts.
                .args(["--target-dir", "target/wasm-debian"])
                .env("RUSTC", "/usr/bin/rustc")
                .env("RUSTC_BOOTSTRAP", "1")
                .env("CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_LINKER", linker);
            if PathBuf::from("/usr/bin/rustdoc").exists() {
                c.env("RUSTDOC", "/usr/bin/rustdoc");
            }
            c
        }
    }
}

/// Where a wasm32 artifact of `profile` lands for this route.
pub fn artifact_dir(tc: &Toolchain, profile: &str) -> PathBuf {
    let target_dir = match tc.wasm {
        WasmRoute::Rustup => repo_root().join("target"),
        WasmRoute::Debian { .. } => repo_root().join("target/wasm-debian"),
    };
    target_dir.join(TARGET).join(profile)
}

/// Sizes of the page's wasm binary, in bytes.
#[derive(Clone, Copy, Debug)]
pub struct WasmSize {
    /// `www/pkg/cosim_wasm_bg.wasm` as served.
    pub raw: u64,
    /// The same, `gzip -9`.
    pub gzip: u64,
}

/// How `build_with` finishes the wasm after `cargo build --release`.
#[derive(Clone, Copy, Debug, Default)]
pub struct WasmOptions {
    /// Keep the name section (function names in browser profiles; 0.55 MB, 10 % of the
    /// gzipped download). Off: wasm-bindgen removes it.
    pub keep_names: bool,
    /// Run binaryen's wasm-opt -O3 over wasm-bindgen's output (`wasm_opt.rs`). Off by
    /// default: measured, it gave no speed and 0.3 % of the gzipped size beyond removing the
    /// name section (docs/benchmarks.md, "The release step for wasm").
    pub wasm_opt: bool,
    /// Benchmarks only: binary modules in wasmi inside the page's wasm (cosim-wasm
    /// feature `bench-wasmi`), into `www/pkg-wasmi` for `xtask/js/bench_engines.mjs`.
    pub bench_wasmi: bool,
}

/// Builds the page's wasm package (name section removed) and vendored JS; returns the .wasm size.
pub fn build(tc: &Toolchain) -> Result<WasmSize> {
    build_with(tc, WasmOptions::default())
}

/// As `build`, with the release steps of `opts`.
pub fn build_with(tc: &Toolchain, opts: WasmOptions) -> Result<WasmSize> {
    section("wasm build");
    let root = repo_root();
    let mut cargo = cargo_wasm(tc, "build", STD);
    cargo.args(["--release", "-p", "cosim-wasm"]);
    if opts.bench_wasmi {
        cargo.args(["--features", "bench-wasmi"]);
    }
    run(&mut cargo)?;
    let wasm = artifact_dir(tc, "release").join("cosim_wasm.wasm");
    let bindgen = which("wasm-bindgen").ok_or("wasm-bindgen not found; run `cargo xtask setup`")?;
    let pkg = root.join(if opts.bench_wasmi {
        "www/pkg-wasmi"
    } else {
        "www/pkg"
    });
    let mut bindgen = Command::new(bindgen);
    bindgen.args(["--target", "web", "--no-typescript"]);
    if !opts.keep_names {
        bindgen.arg("--remove-name-section");
    }
    run(bindgen.arg("--out-dir").arg(&pkg).arg(&wasm))?;
    let served = pkg.join("cosim_wasm_bg.wasm");
    let opt = if opts.wasm_opt {
        let before = wasm_size(&served)?;
        let used = crate::wasm_opt::optimise(&served)?;
        println!(
            "wasm: {used}: {} -> {} bytes gzipped",
            before.gzip,
            wasm_size(&served)?.gzip
        );
        Some(used)
    } else {
        None
    };
    crate::wasm_opt::write_build_info(&pkg, tc, opt.as_deref(), opts.keep_names)?;
    vendor()?;
    crate::fmus::build(tc)?;
    let size = wasm_size(&served)?;
    println!(
        "wasm: {} {} bytes ({:.1} KiB), gzipped {} bytes ({:.1} KiB)",
        served.display(),
        size.raw,
        size.raw as f64 / 1024.0,
        size.gzip,
        size.gzip as f64 / 1024.0
    );
    if !opts.bench_wasmi {
        let record = format!("raw_bytes={}\ngzip_bytes={}\n", size.raw, size.gzip);
        let _ = fs::write(root.join("target/wasm-size.txt"), record);
    }
    Ok(size)
}

/// Files copied from node_modules into www/vendor (gitignored), so the page has no CDN.
const VENDORED: [(&str, &str); 4] = [
    ("node_modules/uplot/dist/uPlot.esm.js", "uPlot.esm.js"),
    ("node_modules/uplot/dist/uPlot.min.css", "uPlot.min.css"),
    // The system diagram's automatic layout (an ES module with no imports).
    (
        "node_modules/@dagrejs/dagre/dist/dagre.esm.js",
        "dagre.esm.js",
    ),
    (
        "node_modules/@dagrejs/dagre/dist/dagre.esm.js.LEGAL.txt",
        "dagre.esm.js.LEGAL.txt",
    ),
];

fn vendor() -> Result<()> {
    let root = repo_root();
    let dir = root.join("www/vendor");
    fs::create_dir_all(&dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    for (from, to) in VENDORED {
        fs::copy(root.join(from), dir.join(to)).map_err(|e| {
            format!("copying {from} (run `cargo xtask setup` for npm packages): {e}")
        })?;
    }
    println!("wasm: copied uPlot and dagre into www/vendor/");
    Ok(())
}

/// Raw and gzip -9 size; gzip is measured with the system `gzip` to stay std-only.
fn wasm_size(path: &PathBuf) -> Result<WasmSize> {
    let raw = fs::metadata(path)
        .map_err(|e| format!("{}: {e}", path.display()))?
        .len();
    let mut child = Command::new("gzip")
        .args(["-9", "-c"])
        .arg(path)
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run gzip: {e}"))?;
    let mut n = 0u64;
    let mut buf = [0u8; 1 << 16];
    if let Some(mut out) = child.stdout.take() {
        loop {
            match out.read(&mut buf) {
                Ok(0) => break,
                Ok(k) => n += k as u64,
                Err(e) => return Err(format!("reading gzip output: {e}")),
            }
        }
    }
    let _ = child.wait();
    Ok(WasmSize { raw, gzip: n })
}
