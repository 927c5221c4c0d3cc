//! `cargo xtask setup`: installs what builds and tests need, skipping what is present,
//! so a warm machine takes about a second. README.md ("Two commands") says why the wasm32
//! standard library may come from Debian's rustc-web.
use crate::shell::{self, output, repo_root, run, run_with_timeout, section, which, Result};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// How the wasm32-unknown-unknown standard library is obtained.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WasmRoute {
    /// rustup's prebuilt target (the normal route on a laptop with internet).
    Rustup,
    /// Debian's rustc-web in /usr/bin, building std from source with `-Z build-std`.
    Debian {
        /// `wasm-ld-19` if installed (closer to rustc's LLVM), else `wasm-ld`.
        linker: String,
    },
}

/// What later commands need to know about the machine.
#[derive(Clone, Debug)]
pub struct Toolchain {
    /// Route for wasm32 builds.
    pub wasm: WasmRoute,
    /// Chromium (or Chrome) for browser tests, if any.
    pub chromium: Option<PathBuf>,
    /// ChromeDriver for wasm-bindgen-test-runner, if any.
    pub chromedriver: Option<PathBuf>,
    /// `mpirun` of an MPI that `cosim-cli --features mpi` builds against, or what to
    /// install for it.
    pub mpi: std::result::Result<PathBuf, String>,
}

/// Options of `cargo xtask setup`.
#[derive(Clone, Copy, Debug, Default)]
pub struct SetupOptions {
    /// Also install clang + wasi-libc for C example modules (off by default: large).
    pub c_toolchain: bool,
}

/// Installs Debian packages once per process: runs `apt-get update` only before the
/// first real install, and only for packages that `dpkg-query` reports missing.
struct Apt {
    updated: bool,
    usable: bool,
}

impl Apt {
    fn new() -> Apt {
        let usable =
            which("apt-get").is_some() && which("dpkg-query").is_some() && shell::is_root();
        Apt {
            updated: false,
            usable,
        }
    }

    fn installed(pkg: &str) -> bool {
        output(Command::new("dpkg-query").args(["-W", "-f=${Status}", pkg]))
            .map(|s| s.contains("install ok installed"))
            .unwrap_or(false)
    }

    /// Installs the missing ones of `pkgs`; an error names them when apt cannot be used.
    fn ensure(&mut self, pkgs: &[&str]) -> Result<()> {
        let missing: Vec<&str> = pkgs
            .iter()
            .copied()
            .filter(|p| !Apt::installed(p))
            .collect();
        if missing.is_empty() {
            return Ok(());
        }
        if !self.usable {
            return Err(format!(
                "missing Debian packages {missing:?} and apt-get is not usable here (needs root); install them by hand"
            ));
        }
        if !self.updated {
            run(apt_get().arg("update").arg("-q"))?;
            self.updated = true;
        }
        run(apt_get().args(["install", "-y", "-q"]).args(&missing))
    }
}

fn apt_get() -> Command {
    let mut c = Command::new("apt-get");
    c.env("DEBIAN_FRONTEND", "noninteractive");
    c
}

/// Runs every setup step and reports the toolchain found.
pub fn setup(opts: SetupOptions) -> Result<Toolchain> {
    section("setup");
    let mut apt = Apt::new();
    let wasm = wasm_std(&mut apt)?;
    wasm_bindgen_cli()?;
    let (chromium, chromedriver) = browser(&mut apt);
    npm_packages()?;
    let mpi = mpi(&mut apt);
    if opts.c_toolchain {
        println!("setup: C to wasm (clang, wasi-libc, libclang-rt-dev-wasm32)");
        apt.ensure(&["clang", "wasi-libc", "libclang-rt-dev-wasm32"])?;
    } else {
        // TODO(C modules): once example modules are written in C, make this default; the
        // packages are about 150 MB, too much to install on every CI run before they are used.
        println!("setup: C to wasm toolchain skipped (pass --c-toolchain to install it)");
    }
    Ok(Toolchain {
        wasm,
        chromium,
        chromedriver,
        mpi,
    })
}

/// Finds the wasm route without installing anything (for `--no-setup` runs).
pub fn detect() -> Result<Toolchain> {
    let wasm = if rustup_has_wasm32() {
        WasmRoute::Rustup
    } else if let Some(r) = debian_route() {
        r
    } else {
        return Err("no wasm32 standard library; run `cargo xtask setup`".into());
    };
    let (chromium, chromedriver) = find_browser();
    Ok(Toolchain {
        wasm,
        chromium,
        chromedriver,
        mpi: find_mpi(),
    })
}

const WASM_TARGET: &str = "wasm32-unknown-unknown";
const DEBIAN_WASM_PACKAGES: [&str; 4] = ["rustc-web", "cargo-web", "rust-web-src", "lld"];

fn rustup_has_wasm32() -> bool {
    which("rustup").is_some()
        && output(Command::new("rustup").args(["target", "list", "--installed"]))
            .map(|s| s.lines().any(|l| l.trim() == WASM_TARGET))
            .unwrap_or(false)
}

fn debian_route() -> Option<WasmRoute> {
    let ok = Path::new("/usr/bin/rustc").exists()
        && Path::new("/usr/bin/cargo").exists()
        && Path::new("/usr/lib/rustlib/src/rust/library").exists();
    let linker = ["wasm-ld-19", "wasm-ld"]
        .into_iter()
        .find(|l| which(l).is_some())?;
    ok.then(|| WasmRoute::Debian {
        linker: linker.to_string(),
    })
}

/// (a) The wasm32 std: rustup's target if installed, else Debian's route if installed,
/// else try rustup (20 s limit, it hangs on machines without its server), else apt.
fn wasm_std(apt: &mut Apt) -> Result<WasmRoute> {
    if rustup_has_wasm32() {
        println!("setup: wasm32 std: rustup target {WASM_TARGET} is installed");
        return Ok(WasmRoute::Rustup);
    }
    if let Some(r) = debian_route() {
        println!("setup: wasm32 std: Debian rustc-web route (std built from source) is installed");
        return Ok(r);
    }
    if which("rustup").is_some() {
        println!("setup: wasm32 std: trying rustup");
        let mut cmd = Command::new("rustup");
        cmd.args(["target", "add", WASM_TARGET]);
        if run_with_timeout(&mut cmd, Duration::from_secs(20))? && rustup_has_wasm32() {
            return Ok(WasmRoute::Rustup);
        }
    }
    println!("setup: wasm32 std: rustup cannot add the target; installing Debian's rustc-web");
    apt.ensure(&DEBIAN_WASM_PACKAGES)?;
    debian_route()
        .ok_or_else(|| "Debian rustc-web installed but /usr/bin/rustc or wasm-ld missing".into())
}

/// The exact `wasm-bindgen` version in Cargo.lock; the CLI must equal it.
pub fn locked_wasm_bindgen_version() -> Result<String> {
    let lock = fs::read_to_string(repo_root().join("Cargo.lock"))
        .map_err(|e| format!("reading Cargo.lock: {e}"))?;
    let mut lines = lock.lines();
    while let Some(l) = lines.next() {
        if l.trim() == "name = \"wasm-bindgen\"" {
            if let Some(v) = lines
                .next()
                .and_then(|v| v.trim().strip_prefix("version = \""))
            {
                return Ok(v.trim_end_matches('"').to_string());
            }
        }
    }
    Err("wasm-bindgen is not in Cargo.lock".into())
}

/// (b) wasm-bindgen-cli (with wasm-bindgen-test-runner) at the locked version.
fn wasm_bindgen_cli() -> Result<()> {
    let want = locked_wasm_bindgen_version()?;
    let have = which("wasm-bindgen")
        .and_then(|p| output(Command::new(p).arg("--version")).ok())
        .unwrap_or_default();
    let runner = which("wasm-bindgen-test-runner").is_some();
    if have.split_whitespace().nth(1) == Some(want.as_str()) && runner {
        println!("setup: wasm-bindgen-cli {want} is installed");
        return Ok(());
    }
    println!("setup: installing wasm-bindgen-cli {want} (about 2 minutes)");
    // No --locked: the CLI's lock file pins a crate version missing from this registry mirror.
    run(shell::cargo().args(["install", "wasm-bindgen-cli", "--version", &want]))
}

fn find_browser() -> (Option<PathBuf>, Option<PathBuf>) {
    let chromium = [
        "chromium",
        "chromium-browser",
        "google-chrome",
        "google-chrome-stable",
    ]
    .into_iter()
    .find_map(which);
    (chromium, which("chromedriver"))
}

/// (c) Chromium + ChromeDriver; installed from Debian when possible, otherwise a clear
/// message (browser stages then fail, the rest still runs).
fn browser(apt: &mut Apt) -> (Option<PathBuf>, Option<PathBuf>) {
    let (c, d) = find_browser();
    if c.is_some() && d.is_some() {
        println!(
            "setup: browser: {} and {} found",
            show_opt(&c),
            show_opt(&d)
        );
        return (c, d);
    }
    println!("setup: browser: installing chromium + chromium-driver");
    if let Err(e) = apt.ensure(&["chromium", "chromium-driver"]) {
        println!(
            "setup: WARNING: {e}\n       browser tests need Chromium or Chrome plus the matching ChromeDriver on PATH"
        );
    }
    find_browser()
}

fn show_opt(p: &Option<PathBuf>) -> String {
    p.as_ref()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|| "(none)".into())
}

/// (d) npm packages of the root package.json (uPlot for the page, playwright-core for tests).
fn npm_packages() -> Result<()> {
    let root = repo_root();
    if which("npm").is_none() {
        return Err("npm not found: install Node.js 20 or newer with npm".into());
    }
    let lock = root.join("package-lock.json");
    let stamp = root.join("node_modules/.package-lock.json");
    if is_newer(&stamp, &lock) && is_newer(&stamp, &root.join("package.json")) {
        println!("setup: npm packages are installed");
        return Ok(());
    }
    let verb = if lock.exists() { "ci" } else { "install" };
    println!("setup: npm {verb}");
    run(Command::new("npm")
        .current_dir(&root)
        .args([verb, "--no-audit", "--no-fund"]))
}

fn is_newer(a: &Path, b: &Path) -> bool {
    let m = |p: &Path| fs::metadata(p).and_then(|m| m.modified()).ok();
    match (m(a), m(b)) {
        (Some(a), Some(b)) => a >= b,
        _ => false,
    }
}

/// Debian packages for `cosim run --mpi`: Open MPI (library, headers, `mpicc`, `mpirun`)
/// and libclang, which the `mpi` crate's bindgen reads `mpi.h` with.
const MPI_PACKAGES: [&str; 3] = ["libopenmpi-dev", "openmpi-bin", "libclang-dev"];

fn find_mpi() -> std::result::Result<PathBuf, String> {
    match (which("mpirun"), which("mpicc")) {
        (Some(mpirun), Some(_)) => Ok(mpirun),
        _ => Err(format!(
            "no MPI: install Open MPI and libclang (Debian: apt-get install {}), or an MPI \
             whose `mpicc` and `mpirun` are on PATH",
            MPI_PACKAGES.join(" ")
        )),
    }
}

/// (e) Open MPI for the `mpi` feature of cosim-cli (`cosim run --mpi`). Not fatal: without
/// it the MPI test stage is skipped with what to install.
fn mpi(apt: &mut Apt) -> std::result::Result<PathBuf, String> {
    let installed = match apt.usable {
        true => apt.ensure(&MPI_PACKAGES),
        false => Ok(()),
    };
    let found = installed.and_then(|()| find_mpi());
    match &found {
        Ok(mpirun) => println!("setup: MPI: {} found", mpirun.display()),
        Err(e) => println!("setup: WARNING: {e}"),
    }
    found
}
