//! Project automation, run as `cargo xtask <command>` (alias in `.cargo/config.toml`).
//!
//! Commands:
//! - `setup [--c-toolchain]`: install what is missing (wasm32 std, wasm-bindgen-cli,
//!   Chromium, npm packages, Open MPI for `cosim run --mpi`); fast when everything is present.
//! - `wasm [--keep-names] [--wasm-opt]`: build the page's wasm package into `www/pkg`
//!   (name section removed unless `--keep-names`, for profiles; binaryen's wasm-opt -O3 with
//!   `--wasm-opt`) and vendor uPlot and dagre into `www/vendor`; `--bench-wasmi`: a build
//!   with wasmi inside into `www/pkg-wasmi`, for comparing engines (`xtask/js/bench_engines.mjs`).
//! - `fmus`: build the example binary modules into `.fmu` files (also part of `wasm`).
//! - `serve [--port N] [--no-build]`: setup + wasm, then serve `www/` on 127.0.0.1.
//! - `test [--no-setup]`: every check CI runs (`.ci/run` calls this).
//! - `bench [--steps N]`: criterion benchmark natively and the same preset in Chromium;
//!   `bench --map` the map benchmark alone, on the wasm built last.
//! - `chain-study damping|mass|threads|claims|tolerance|example1`: seed 002's studies, each
//!   printed as its table in the docs.
//!
//! Std only, on purpose: this crate must build before anything else is installed.
mod bench;
mod bench_controlled;
mod bench_map;
mod chain_claims;
mod chain_study;
mod fmus;
mod serve;
mod setup;
mod shell;
mod test;
mod tidy;
mod tidy_layers;
mod wasm;
mod wasm_opt;

use shell::Result;
use std::process::ExitCode;

const USAGE: &str = "usage: cargo xtask <command>

commands:
  setup [--c-toolchain]      install missing tools (wasm32 std, wasm-bindgen-cli, chromium, npm packages, Open MPI)
  wasm [--keep-names] [--wasm-opt] [--bench-wasmi]
                             build www/pkg (wasm-bindgen --target web, name section removed unless
                             --keep-names; wasm-opt -O3 with --wasm-opt) and www/vendor (uPlot, dagre);
                             --bench-wasmi: wasmi inside, into www/pkg-wasmi (benchmarks only)
  fmus                       build the example binary modules (examples/fmus) into www/fmus/*.fmu
  serve [--port N] [--no-build]
                             setup + wasm, then serve www/ at http://127.0.0.1:N/ (default 8080)
  test [--no-setup]          run every check: fmt, native tests, mpi, docs, no_std, browser tests, page tests
  bench [--steps N]          macro-step benchmark natively (criterion) and in Chromium (wasm)
  bench --controlled         accepted steps/s of step-controlled runs next to fixed-step ones, both ways
  bench --map                the map benchmark alone (native, NumPy, Chromium) on the www/pkg built last
  chain-study damping|mass|threads [--masses N] [--subsystems R] [--stop T] [--no-build]
                             ExSLocal against ImSLocal on a chain over d or m, or on 1 and 2 threads
  chain-study claims|tolerance [--no-build]
                             seed 002's §8 rows 4, 8-10 and the tolerance table on the 20-mass chain
  chain-study example1       Example 1's tolerance tables (from the core's tests)";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match dispatch(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn dispatch(args: &[String]) -> Result<()> {
    let (cmd, rest) = match args.split_first() {
        Some((c, r)) => (c.as_str(), r),
        None => {
            println!("{USAGE}");
            return Ok(());
        }
    };
    let mut flags = Flags::new(rest);
    let result = match cmd {
        "setup" => {
            let c_toolchain = flags.switch("--c-toolchain");
            flags.finish()?;
            setup::setup(setup::SetupOptions { c_toolchain }).map(|_| ())
        }
        "wasm" => {
            let opts = wasm::WasmOptions {
                keep_names: flags.switch("--keep-names"),
                wasm_opt: flags.switch("--wasm-opt"),
                bench_wasmi: flags.switch("--bench-wasmi"),
            };
            flags.finish()?;
            let tc = setup::setup(setup::SetupOptions::default())?;
            wasm::build_with(&tc, opts).map(|_| ())
        }
        "fmus" => {
            flags.finish()?;
            let tc = setup::setup(setup::SetupOptions::default())?;
            fmus::build(&tc).map(|_| ())
        }
        "serve" => {
            let port = flags.value("--port")?.unwrap_or(8080);
            let no_build = flags.switch("--no-build");
            flags.finish()?;
            if !no_build {
                let tc = setup::setup(setup::SetupOptions::default())?;
                wasm::build(&tc)?;
            }
            serve::serve_forever(&shell::repo_root().join("www"), port)
        }
        "test" => {
            let no_setup = flags.switch("--no-setup");
            flags.finish()?;
            test::test(test::TestOptions { no_setup })
        }
        "bench" => {
            let steps = flags.value("--steps")?.unwrap_or(bench::DEFAULT_STEPS);
            let controlled = flags.switch("--controlled");
            let map = flags.switch("--map");
            flags.finish()?;
            match (controlled, map) {
                (true, _) => bench_controlled::bench(),
                (false, true) => bench::bench_map_only(),
                (false, false) => bench::bench(steps),
            }
        }
        "chain-study" => {
            let options = chain_study::StudyOptions {
                masses: flags.value("--masses")?.unwrap_or(1000),
                subsystems: flags.value("--subsystems")?.unwrap_or(20),
                stop: flags.value("--stop")?.unwrap_or(1e-4),
                build: !flags.switch("--no-build"),
            };
            let which = flags
                .rest
                .first()
                .map(|s| s.to_string())
                .unwrap_or_default();
            flags.rest.retain(|a| *a != which);
            flags.finish()?;
            chain_study::study(&which, &options)
        }
        "help" | "--help" | "-h" => {
            println!("{USAGE}");
            Ok(())
        }
        other => Err(format!("unknown command `{other}`\n\n{USAGE}")),
    };
    result
}

/// Minimal flag parsing: each flag is taken once; leftovers are an error.
struct Flags<'a> {
    rest: Vec<&'a str>,
}

impl<'a> Flags<'a> {
    fn new(args: &'a [String]) -> Self {
        Flags {
            rest: args.iter().map(String::as_str).collect(),
        }
    }

    fn switch(&mut self, name: &str) -> bool {
        let before = self.rest.len();
        self.rest.retain(|a| *a != name);
        self.rest.len() != before
    }

    fn value<T: std::str::FromStr>(&mut self, name: &str) -> Result<Option<T>> {
        let Some(i) = self.rest.iter().position(|a| *a == name) else {
            return Ok(None);
        };
        let v = self
            .rest
            .get(i + 1)
            .ok_or(format!("{name} needs a number"))?;
        let n = v
            .parse()
            .map_err(|_| format!("{name} needs a number, got `{v}`"))?;
        self.rest.drain(i..=i + 1);
        Ok(Some(n))
    }

    fn finish(self) -> Result<()> {
        match self.rest.first() {
            None => Ok(()),
            Some(a) => Err(format!("unexpected argument `{a}`\n\n{USAGE}")),
        }
    }
}
