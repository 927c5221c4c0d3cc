//! Binary modules end to end with the example `.fmu`s (`cargo xtask fmus` writes them to
//! `tests/fixtures/fmus/`): the CLI and in-process core give the same CSV for the binary
//! presets, the binary halves reproduce the built-in two-mass oscillator, the Rust
//! module's declared capabilities work through the module memory, and the C module's
//! `logMessage` errors reach the message a person sees.

use cosim_core::module::{InstantiateOptions, Subsystem, ValueRef};
use cosim_core::scenario::{self, Scenario};
use cosim_core::simulation::Simulation;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

const RUST_FMU: &str = "rust_oscillator.fmu";
const C_FMU: &str = "c_spring_damper.fmu";

fn fixture(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/fmus")
        .join(name);
    std::fs::read(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (run `cargo xtask fmus`)", path.display()))
}

fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cosim-binary-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("fmus")).unwrap();
    for name in [RUST_FMU, C_FMU] {
        std::fs::write(dir.join("fmus").join(name), fixture(name)).unwrap();
    }
    dir
}

/// The scenario with every binary source replaced by the fixture of the same file name.
fn embedded(mut s: Scenario) -> Scenario {
    for url in s.binary_urls() {
        let name = url.rsplit('/').next().unwrap().to_string();
        s.embed_fmu(&url, &fixture(&name));
    }
    s
}

fn run_in_process(s: &Scenario) -> String {
    let v = embedded(s.clone())
        .validate()
        .unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Simulation::new(&v).unwrap_or_else(|e| panic!("{e}"));
    sim.run_to_end().unwrap_or_else(|e| panic!("{e}"));
    sim.to_csv()
}

fn column(csv: &str, name: &str) -> Vec<f64> {
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let k = header
        .iter()
        .position(|h| *h == name)
        .unwrap_or_else(|| panic!("no column {name}"));
    lines
        .map(|l| l.split(',').nth(k).unwrap().parse().unwrap())
        .collect()
}

#[test]
fn the_cli_and_in_process_core_give_the_same_csv_for_each_binary_preset() {
    let dir = temp_dir("presets");
    for id in ["binary-rust-oscillator", "binary-c-spring-damper"] {
        let s = scenario::preset(id).unwrap_or_else(|| panic!("preset {id}"));
        let file = dir.join(format!("{id}.json"));
        std::fs::write(&file, scenario::to_json(&s)).unwrap();
        let out_file = dir.join(format!("{id}.csv"));
        let out = Command::new(env!("CARGO_BIN_EXE_cosim"))
            .args([
                "run",
                file.to_str().unwrap(),
                "--out",
                out_file.to_str().unwrap(),
            ])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{id}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let cli = std::fs::read_to_string(&out_file).unwrap();
        let core = run_in_process(&s);
        assert_eq!(
            cli.lines().count(),
            1002,
            "{id}: header and 1001 communication points"
        );
        // Identical text means identical f64s (shortest round-trip form), which is stronger
        // than the 1e-12 the page comparison allows.
        assert_eq!(cli, core, "{id}");
    }
}

#[test]
fn rejected_attempts_roll_binary_modules_back_exactly() {
    // The driver restores the wasm module's memory (fmi3SetFMUState) after every third
    // attempt: the CSV must not change by a single byte. The C example cannot save its
    // state, so a controller that may reject is refused before the first step.
    let rejecting = |id: &str| {
        let s = scenario::preset(id).unwrap_or_else(|| panic!("preset {id}"));
        let v = embedded(s.clone())
            .validate()
            .unwrap_or_else(|e| panic!("{e}"));
        let sim = Simulation::with_controller(&v, |grid| {
            Box::new(cosim_core::testing::RejectEvery::new(grid, 3))
                as Box<dyn cosim_core::master::StepController>
        });
        (s, sim)
    };
    let (s, sim) = rejecting("binary-rust-oscillator");
    let mut sim = sim.unwrap_or_else(|e| panic!("{e}"));
    sim.run_to_end().unwrap_or_else(|e| panic!("{e}"));
    assert!(sim.stats().rejected >= 333, "{:?}", sim.stats());
    assert_eq!(sim.to_csv(), run_in_process(&s));
    let err = rejecting("binary-c-spring-damper")
        .1
        .err()
        .expect("refused");
    let text = err.to_string();
    assert!(
        text.contains("`mass2`") && text.contains("canGetAndSetFMUState"),
        "{text}"
    );
}

#[test]
fn binary_halves_reproduce_the_built_in_two_mass_oscillator() {
    let mut built_in = scenario::preset("binary-rust-oscillator").unwrap();
    built_in.modules[0] = scenario::preset("two-mass-oscillator").unwrap().modules[0].clone();
    let mut both_binary = scenario::preset("binary-rust-oscillator").unwrap();
    both_binary.modules[1] = scenario::preset("binary-c-spring-damper").unwrap().modules[1].clone();
    let (a, b) = (run_in_process(&built_in), run_in_process(&both_binary));
    for (name, scale) in [("mass1.s1", 0.01), ("mass1.v1", 3.2), ("mass2.Fk", 2e3)] {
        let worst = column(&a, name)
            .iter()
            .zip(column(&b, name))
            .map(|(x, y)| (x - y).abs())
            .fold(0.0, f64::max);
        // RK4 micro-steps of 1e-5 s against the exact solution: ~1e-9 of the amplitude.
        assert!(worst < 1e-8 * scale, "{name}: largest difference {worst:e}");
    }
}

fn started(fmu: &str, parameters: &[(&str, f64)]) -> Result<Subsystem, String> {
    let p: BTreeMap<String, f64> = parameters
        .iter()
        .map(|(k, v)| (k.to_string(), *v))
        .collect();
    let m = cosim_core::fmu::BinaryModule::from_fmu(&fixture(fmu), &p, Default::default())
        .map_err(|e| e.to_string())?;
    let mut s = Subsystem::instantiate(Box::new(m), InstantiateOptions::default())
        .map_err(|e| e.to_string())?;
    s.enter_initialization_mode(None, 0.0, None)
        .map_err(|e| e.to_string())?;
    s.exit_initialization_mode().map_err(|e| e.to_string())?;
    Ok(s)
}

#[test]
fn the_rust_module_rolls_back_and_differentiates_through_module_memory() {
    let mut s = started(RUST_FMU, &[]).unwrap();
    let (s1, v1, fk, der_v1) = (ValueRef(1), ValueRef(2), ValueRef(3), ValueRef(9));
    s.set_float64(&[fk], &[50.0]).unwrap();
    s.do_step(0.0, 1e-4, false).unwrap();
    let saved = s.get_state().unwrap();
    let bytes = s.serialize_state(&saved).unwrap();
    let mut first = [0.0; 2];
    s.do_step(1e-4, 1e-4, false).unwrap();
    s.get_float64(&[s1, v1], &mut first).unwrap();
    for _ in 0..3 {
        s.set_state(&saved).unwrap();
        s.do_step(1e-4, 1e-4, false).unwrap();
        let mut again = [0.0; 2];
        s.get_float64(&[s1, v1], &mut again).unwrap();
        assert_eq!(again, first, "a restored state repeats the step exactly");
    }
    let restored = s.deserialize_state(&bytes).unwrap();
    s.set_state(&restored).unwrap();
    s.do_step(1e-4, 1e-4, false).unwrap();
    let mut again = [0.0; 2];
    s.get_float64(&[s1, v1], &mut again).unwrap();
    assert_eq!(again, first, "a deserialised state too");
    drop((saved, restored)); // queued for fmi3FreeFMUState at the next call
    let mut j = [0.0; 2];
    s.directional_derivative(&[der_v1, s1], &[s1], &[1.0], &mut j)
        .unwrap();
    assert_eq!(
        j,
        [-1e6 / 10.0, 1.0],
        "d der(v1)/d s1 = -c1/m1, d s1/d s1 = 1"
    );
    let mut d = [0.0];
    s.get_output_derivatives(&[s1], &[1], &mut d).unwrap();
    s.get_float64(&[v1], &mut again[..1]).unwrap();
    assert_eq!(d[0], again[0], "ds1/dt = v1");
    for _ in 0..1000 {
        let st = s.get_state().unwrap();
        s.set_state(&st).unwrap();
    }
}

#[test]
fn the_c_module_reports_its_errors_through_log_message() {
    let e = started(C_FMU, &[("m2", -1.0)]).err().unwrap();
    assert!(
        e.contains("fmi3EnterInitializationMode returned fmi3Error"),
        "{e}"
    );
    assert!(
        e.contains("[Error] logStatusError: m2 must be positive"),
        "logMessage through the table: {e}"
    );
    assert!(
        e.contains("c_spring_damper: m2 must be positive"),
        "stderr through WASI fd_write: {e}"
    );
}

#[test]
fn the_cli_names_a_missing_fmu_and_a_wrong_parameter() {
    let dir = temp_dir("errors");
    let mut s = scenario::preset("binary-c-spring-damper").unwrap();
    s.modules[1].source = Some("fmus/missing.fmu".into());
    let file = dir.join("missing.json");
    std::fs::write(&file, scenario::to_json(&s)).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_cosim"))
        .args(["validate", file.to_str().unwrap()])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("cannot read the .fmu `fmus/missing.fmu`"),
        "{err}"
    );
    let mut s = scenario::preset("binary-c-spring-damper").unwrap();
    s.modules[1].parameters.insert("zeta".into(), 1.0);
    std::fs::write(&file, scenario::to_json(&s)).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_cosim"))
        .args(["validate", file.to_str().unwrap()])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(
            "modules[1].parameters.zeta: module `mass2`: `zeta` is not a variable of `CSpringDamper` with a settable start value"
        ),
        "{err}"
    );
}
