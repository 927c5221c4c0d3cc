//! SSP import on hand-written `.ssp` archives of the example FMUs (`tests/fixtures/fmus`,
//! built by [`crate::testing::ssp`]): a two-FMU system with connections, an `.ssv` parameter set
//! and inline values runs; defaults apply without the playground's annotation; every
//! unsupported element is refused by name and path. The export round trip is tested with
//! the CLI, which owns the XML writer (`cli/tests/ssp.rs`).

use super::*;
use crate::fmu::archive::write_stored;
use crate::scenario::{data_url, Algorithm, ConnectionSpec, ModuleSpec, BINARY_MODEL};
use crate::simulation::Simulation;
use crate::testing::ssp::{parameter_file, TwoMasses, C_FMU, RUST_FMU};
use alloc::string::ToString;
use alloc::vec;

const ANNOTATION: &str = r#"<ssc:Annotation type="org.cosim-playground.scenario">
        <pg:Scenario xmlns:pg="https://cosim-playground.org/ssp/1">{"master": {"algorithm": "gauss_seidel", "macro_step": 1e-4}}</pg:Scenario>
      </ssc:Annotation>"#;

/// The system of these tests, ending with `experiment`: SSP 1.0, the parameter set
/// `masses` bound at the system, mass 1 with inline values, and the last connection
/// written input first (the declared kinds give its direction).
fn system(experiment: String) -> TwoMasses {
    TwoMasses {
        version: "1.0",
        parameter_set: Some("masses"),
        inline: &[("d1", "2"), ("m1", "12")],
        connections: &[
            ["mass2", "Fk", "mass1", "Fk"],
            ["mass1", "s1", "mass2", "s1"],
            ["mass2", "v1", "mass1", "v1"],
        ],
        experiment,
    }
}

/// The system up to 0.01 s with the playground's annotation (Gauss-Seidel at 1e-4 s).
fn annotated() -> TwoMasses {
    system(TwoMasses::experiment("0.01", ANNOTATION))
}

/// The system without a default experiment.
fn no_experiment() -> TwoMasses {
    system("\n</ssd:SystemStructureDescription>".into())
}

fn ssv() -> String {
    parameter_file(
        "1.0",
        "masses",
        &[
            ("mass2.ck", r#"<ssv:Real value="1e5" unit="N/m"/>"#),
            ("mass1.d1", "3"),
        ],
    )
}

fn archive(ssd: &str, ssv: &str) -> Vec<u8> {
    annotated().archive(ssd, ssv, RUST_FMU)
}

fn hand_written() -> String {
    annotated().ssd()
}

fn module(name: &str, fmu: &[u8], parameters: &[(&str, f64)]) -> ModuleSpec {
    ModuleSpec {
        name: name.into(),
        model: BINARY_MODEL.into(),
        parameters: parameters
            .iter()
            .map(|(k, v)| (k.to_string(), *v))
            .collect(),
        typed_parameters: Default::default(),
        solver: Default::default(),
        source: Some(data_url(fmu)),
    }
}

fn connection(from: &str, to: &str) -> ConnectionSpec {
    ConnectionSpec {
        from: from.into(),
        to: to.into(),
    }
}

#[test]
fn a_hand_written_two_fmu_system_imports_as_its_scenario_and_runs() {
    let s = import(&archive(&hand_written(), &ssv())).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(s.title, "Two masses");
    // The system's .ssv overrides the component's inline d1 = 2; m1 stays inline.
    assert_eq!(
        s.modules,
        vec![
            module("mass1", RUST_FMU, &[("d1", 3.0), ("m1", 12.0)]),
            module("mass2", C_FMU, &[("ck", 1e5)]),
        ]
    );
    assert_eq!(
        s.connections,
        vec![
            connection("mass2.Fk", "mass1.Fk"),
            connection("mass1.s1", "mass2.s1"),
            connection("mass1.v1", "mass2.v1"),
        ]
    );
    assert_eq!(s.master.algorithm, Algorithm::GaussSeidel);
    assert_eq!(s.master.macro_step, 1e-4);
    assert_eq!((s.run.start, s.run.stop), (0.0, 0.01));
    assert!(!s.reference);
    let v = s.validate().unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Simulation::new(&v).unwrap_or_else(|e| panic!("{e}"));
    sim.run_to_end().unwrap_or_else(|e| panic!("{e}"));
    let csv = sim.to_csv();
    assert_eq!(csv.lines().count(), 1 + 101, "header and 101 points");
    assert!(
        csv.starts_with("time,mass1.s1,mass1.v1,mass2.Fk\n"),
        "{csv}"
    );
}

#[test]
fn without_the_annotation_the_run_is_jacobi_over_the_documented_number_of_steps() {
    let plain = system(TwoMasses::experiment("0.01", ""));
    let s =
        import(&plain.archive(&plain.ssd(), &ssv(), RUST_FMU)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(s.master.algorithm, Algorithm::Jacobi);
    assert_eq!(s.master.macro_step, 0.01 / f64::from(DEFAULT_STEPS));
    let no_stop = no_experiment();
    let e = import(&no_stop.archive(&no_stop.ssd(), &ssv(), RUST_FMU)).unwrap_err();
    assert!(e.message.contains("stopTime"), "{e}");
}

/// Imports the hand-written system with `from` replaced by `to` (in the SSD or the .ssv)
/// and returns the error.
fn refused(from: &str, to: &str) -> SspError {
    let (text, ssv) = (hand_written(), ssv());
    assert!(
        text.contains(from) || ssv.contains(from),
        "`{from}` is in neither file"
    );
    import(&archive(&text.replace(from, to), &ssv.replace(from, to))).unwrap_err()
}

#[test]
fn unsupported_elements_are_refused_by_name_and_path() {
    let cases: [(&str, &str, &str, &str); 9] = [
        (
            "</ssd:Elements>",
            "<ssd:System name=\"inner\"/></ssd:Elements>",
            "ssd:System",
            "/ssd:SystemStructureDescription[@name='Two masses']/ssd:System[@name='root']/ssd:Elements/ssd:System[@name='inner']",
        ),
        (
            "</ssd:Connections>",
            "</ssd:Connections><ssd:SignalDictionaries/>",
            "ssd:SignalDictionaries",
            "/ssd:SystemStructureDescription[@name='Two masses']/ssd:System[@name='root']/ssd:SignalDictionaries",
        ),
        (
            "endConnector=\"s1\"/>",
            "endConnector=\"s1\"><ssc:LinearTransformation factor=\"1000\"/></ssd:Connection>",
            "ssc:LinearTransformation",
            "/ssd:Connections/ssd:Connection/ssc:LinearTransformation",
        ),
        (
            "<ssd:Connector name=\"Fk\" kind=\"input\"><ssc:Real unit=\"N\"/>",
            "<ssd:Connector name=\"Fk\" kind=\"input\"><ssc:Integer/>",
            "ssc:Integer",
            "ssd:Component[@name='mass1']/ssd:Connectors/ssd:Connector[@name='Fk']/ssc:Integer",
        ),
        (
            "<ssd:ParameterBinding source=\"resources/masses.ssv\"/>",
            "<ssd:ParameterBinding source=\"resources/masses.ssv\"><ssd:ParameterMapping source=\"m.ssm\"/></ssd:ParameterBinding>",
            "ssd:ParameterMapping",
            "/ssd:ParameterBindings/ssd:ParameterBinding/ssd:ParameterMapping",
        ),
        (
            "<ssv:Real value=\"1e5\" unit=\"N/m\"/>",
            "<ssv:Boolean value=\"true\"/>",
            "Boolean",
            "/ssv:ParameterSet[@name='masses']/ssv:Parameters/ssv:Parameter[@name='mass2.ck']/ssv:Boolean",
        ),
        (
            "<ssd:Connector name=\"s1\" kind=\"input\"><ssc:Real unit=\"m\"/>",
            "<ssd:Connector name=\"s1\" kind=\"input\"><ssc:Real unit=\"mm\"/>",
            "unit conversion",
            "ssd:Connections/ssd:Connection",
        ),
        (
            "startElement=\"mass1\" startConnector=\"s1\"",
            "startConnector=\"s1\"",
            "system's own connector",
            "ssd:Connections/ssd:Connection",
        ),
        (
            "source=\"resources/rust_oscillator.fmu\"",
            "source=\"resources/missing.fmu\"",
            "resources/missing.fmu",
            "ssd:Component[@name='mass1']",
        ),
    ];
    for (from, to, names, path) in cases {
        let e = refused(from, to);
        assert!(e.message.contains(names), "{from}: {e}");
        assert!(
            e.element.ends_with(path) || e.element.contains(path),
            "{from}: {e}"
        );
    }
    let e = refused(
        "<ssd:Connector name=\"Fk\" kind=\"input\"><ssc:Real unit=\"N\"/>",
        "<ssd:Connector name=\"Fk\" kind=\"input\"><ssc:Integer/>",
    );
    assert_eq!(e.file, SSD_ENTRY);
    let e = refused(
        "<ssv:Real value=\"1e5\" unit=\"N/m\"/>",
        "<ssv:Boolean value=\"true\"/>",
    );
    assert_eq!(e.file, "resources/masses.ssv");
}

#[test]
fn archives_and_documents_that_are_not_ssp_are_refused() {
    assert!(import(b"not a zip")
        .unwrap_err()
        .message
        .contains("archive"));
    let no_ssd = write_stored(&[("resources/a.fmu", RUST_FMU)]);
    assert!(import(&no_ssd).unwrap_err().message.contains(SSD_ENTRY));
    let e = refused(
        "version=\"1.0\" name=\"Two masses\"",
        "version=\"3.0\" name=\"Two masses\"",
    );
    assert!(e.message.contains("3.0"), "{e}");
    let e = refused("\"macro_step\": 1e-4", "\"macro_stp\": 1e-4");
    assert!(e.message.contains("macro_stp"), "{e}");
}

/// The Rust example FMU with `<DefaultExperiment>` added to its model description.
fn with_default_experiment(fmu: &[u8], experiment: &str) -> Vec<u8> {
    let a = crate::fmu::archive::Archive::parse(fmu).unwrap();
    let names: Vec<String> = a.names().map(String::from).collect();
    let files: Vec<(String, Vec<u8>)> = names
        .iter()
        .map(|n| {
            let mut b = a.read(n).unwrap().unwrap();
            if n == "modelDescription.xml" {
                let text = String::from_utf8(b).unwrap();
                b = text
                    .replace(
                        "<ModelVariables>",
                        &[experiment, "<ModelVariables>"].concat(),
                    )
                    .into_bytes();
            }
            (n.clone(), b)
        })
        .collect();
    let entries: Vec<(&str, &[u8])> = files.iter().map(|(n, b)| (n.as_str(), &b[..])).collect();
    write_stored(&entries)
}

#[test]
fn without_a_default_experiment_the_fmus_own_step_and_stop_apply() {
    let rust = with_default_experiment(
        RUST_FMU,
        r#"<DefaultExperiment stopTime="0.004" stepSize="2e-5"/>"#,
    );
    let system = no_experiment();
    let zip = system.archive(&system.ssd(), &ssv(), &rust);
    let s = import(&zip).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((s.run.start, s.run.stop), (0.0, 0.004));
    assert_eq!(s.master.macro_step, 2e-5);
    let v = s.validate().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(v.grid.steps, 200);
}
