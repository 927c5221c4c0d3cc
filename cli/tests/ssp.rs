//! SSP systems through the CLI: a scenario of the two example FMUs exported with `cosim
//! ssp export` and read back with `cosim ssp import` is the same scenario and runs to the
//! same CSV; an `.ssp` written by hand (two FMUs, connections, an `.ssv` parameter set),
//! built by `cosim_core::testing::ssp` from the example FMUs, runs with `cosim run`;
//! unsupported elements and built-in modules are refused by name.

use cosim_core::scenario::{self, Scenario};
use cosim_core::testing::ssp::{parameter_file, TwoMasses, C_FMU, RUST_FMU};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cosim-ssp-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("fmus")).unwrap();
    for (name, bytes) in [
        ("rust_oscillator.fmu", RUST_FMU),
        ("c_spring_damper.fmu", C_FMU),
    ] {
        std::fs::write(dir.join("fmus").join(name), bytes).unwrap();
    }
    dir
}

fn cosim(args: &[&Path]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cosim"))
        .args(args)
        .output()
        .unwrap()
}

fn ok(out: Output) -> String {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The C preset with mass 1 as the Rust FMU too: every module binary, parameters set,
/// and settings SSP has no words for (Gauss-Seidel, plot, layout, a pinned variant).
fn two_fmu_scenario() -> Scenario {
    let mut s = scenario::preset("binary-c-spring-damper").unwrap();
    s.title = "Two FMUs & <friends>".into();
    s.modules[0].model = "Binary".into();
    s.modules[0].source = Some("fmus/rust_oscillator.fmu".into());
    s.modules[0].parameters.insert("d1".into(), 1.5);
    s.modules[1].parameters.insert("ck".into(), 1.0 / 3.0 * 1e5);
    s.run.stop = 0.01;
    s.layout.insert("mass1".into(), [10.0, 20.5]);
    let variant = r#"{"label":"Jacobi","patch":{"master":{"algorithm":"jacobi"}}}"#;
    s.variants.push(serde_json::from_str(variant).unwrap());
    s
}

#[test]
fn an_exported_system_reimports_as_the_same_scenario_and_runs_to_the_same_csv() {
    let dir = temp_dir("round-trip");
    let s = two_fmu_scenario();
    let json = dir.join("two.json");
    std::fs::write(&json, scenario::to_json(&s)).unwrap();
    let ssp = dir.join("two.ssp");
    ok(cosim(&[
        "ssp".as_ref(),
        "export".as_ref(),
        &json,
        "--out".as_ref(),
        &ssp,
    ]));
    let imported = scenario::parse(&ok(cosim(&["ssp".as_ref(), "import".as_ref(), &ssp]))).unwrap();
    let mut expected = s.clone();
    for url in expected.binary_urls() {
        expected.embed_fmu(&url, &std::fs::read(dir.join(&url)).unwrap());
    }
    assert_eq!(imported, expected);
    // The same FMU bytes are stored once per file; both files are there.
    let ssd = ok(cosim(&["ssp".as_ref(), "import".as_ref(), &ssp]));
    assert!(ssd.contains("data:application/zip;base64,"));
    let from_json = ok(cosim(&["run".as_ref(), &json]));
    let from_ssp = ok(cosim(&["run".as_ref(), &ssp]));
    assert_eq!(from_json, from_ssp);
    assert_eq!(from_json.lines().count(), 1 + 101);
}

/// SSP 2.0, both masses connected output to input, the parameter set `parameters`, and a
/// default experiment without the playground's annotation.
fn system() -> TwoMasses {
    TwoMasses {
        version: "2.0",
        parameter_set: Some("parameters"),
        inline: &[],
        connections: TwoMasses::CONNECTIONS,
        experiment: TwoMasses::experiment("0.002", ""),
    }
}

/// Writes the `.ssp` of `ssd` (the system's text, perhaps edited) into `dir`.
fn hand_written(dir: &Path, ssd: &str) -> PathBuf {
    let ssv = parameter_file(
        "2.0",
        "parameters",
        &[
            ("mass1.m1", r#"<ssv:Float64 value="12"/>"#),
            ("mass2.dk", "400"),
        ],
    );
    let file = dir.join("hand.ssp");
    std::fs::write(&file, system().archive(ssd, &ssv, RUST_FMU)).unwrap();
    file
}

#[test]
fn a_hand_written_ssp_runs_with_its_parameter_set_and_the_default_step() {
    let dir = temp_dir("hand");
    let ssp = hand_written(&dir, &system().ssd());
    let s = scenario::parse(&ok(cosim(&["ssp".as_ref(), "import".as_ref(), &ssp]))).unwrap();
    assert_eq!(s.modules[0].parameters["m1"], 12.0);
    assert_eq!(s.modules[1].parameters["dk"], 400.0);
    // No playground annotation: Jacobi with 1000 steps of the default experiment.
    assert_eq!(s.master.macro_step, 0.002 / 1000.0);
    let csv = ok(cosim(&["run".as_ref(), &ssp]));
    assert!(
        csv.starts_with("time,mass1.s1,mass1.v1,mass2.Fk\n"),
        "{csv}"
    );
    assert_eq!(csv.lines().count(), 1 + 1001);
    let validated = ok(cosim(&["validate".as_ref(), &ssp]));
    assert!(
        validated.starts_with("ok: 2 modules, 1000 macro-steps"),
        "{validated}"
    );
}

#[test]
fn unsupported_elements_and_built_in_modules_are_refused_by_name() {
    let dir = temp_dir("refused");
    let nested = system().ssd().replace(
        "</ssd:Elements>",
        "<ssd:System name=\"inner\"/></ssd:Elements>",
    );
    let out = cosim(&["run".as_ref(), &hand_written(&dir, &nested)]);
    assert_eq!(out.status.code(), Some(1));
    let msg = String::from_utf8_lossy(&out.stderr);
    assert!(msg.contains("ssd:System[@name='inner']"), "{msg}");
    assert!(msg.contains("nested systems"), "{msg}");

    let json = dir.join("preset.json");
    let preset = scenario::preset("binary-c-spring-damper").unwrap();
    std::fs::write(&json, scenario::to_json(&preset)).unwrap();
    let out = cosim(&[
        "ssp".as_ref(),
        "export".as_ref(),
        &json,
        "--out".as_ref(),
        &dir.join("x.ssp"),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let msg = String::from_utf8_lossy(&out.stderr);
    assert!(msg.contains("modules[0].model"), "{msg}");
    assert!(msg.contains("TwoMassOscillator.Mass1"), "{msg}");
    assert!(!dir.join("x.ssp").exists());
}
