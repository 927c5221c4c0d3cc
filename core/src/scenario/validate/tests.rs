//! Validation of module names, Gauss-Seidel sequences, plots and connections, the
//! presets' coupling graphs against the reference build, and rings of 10^3 and 10^4
//! masses validated and instantiated as a coupled system.

use super::super::presets::{preset, presets};
use super::super::schema::{Algorithm, ConnectionSpec, ModuleSpec, Scenario};
use crate::coupling::tests::quadratic_reference;
use crate::error::ScenarioError;
use crate::master::CoupledSystem;
use crate::simulation::build_module;
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;

fn two_mass() -> Scenario {
    preset("two-mass-gauss-seidel").expect("the preset exists")
}

fn error(s: &Scenario) -> ScenarioError {
    s.validate().expect_err("the scenario is invalid")
}

/// Presets with binary modules are left out: their descriptions come from `.fmu` files
/// that `cargo xtask wasm` builds, which core's tests do not have.
#[test]
fn every_preset_graph_matches_the_reference_build() {
    let mut checked = 0;
    for p in presets() {
        if !p.scenario.binary_urls().is_empty() {
            continue;
        }
        // A chain preset's graph is the one its generator writes.
        let mut scenario = p.scenario.clone();
        if let Some(chain) = &p.scenario.chain {
            (scenario.modules, scenario.connections, scenario.plot) = chain.expand();
        }
        let (descriptions, _) = scenario.module_descriptions().expect("presets are valid");
        let pairs: Vec<(String, String)> = scenario
            .connections
            .iter()
            .map(|c| (c.from.clone(), c.to.clone()))
            .collect();
        let expected = quadratic_reference::build(&descriptions, &pairs);
        assert!(expected.is_ok(), "{}", p.id);
        let built = quadratic_reference::build_indexed(&descriptions, &pairs);
        assert_eq!(built, expected, "{}", p.id);
        checked += 1;
    }
    assert!(checked >= 10, "{checked} presets checked");
}

#[test]
fn repeated_module_name_is_refused_at_its_second_use() {
    let mut s = two_mass();
    s.modules[1].name = "mass1".into();
    let e = error(&s);
    assert_eq!(e.path, "modules[1].name");
    assert_eq!(e.message, "`mass1` is used by another module");
}

#[test]
fn sequence_names_unknown_repeated_and_missing_modules() {
    let mut s = two_mass();
    assert_eq!(s.master.algorithm, Algorithm::GaussSeidel);
    s.master.sequence = vec!["mass2".into(), "mass3".into()];
    let e = error(&s);
    assert_eq!(
        (e.path.as_str(), e.message.as_str()),
        ("master.sequence[1]", "no module named `mass3`")
    );
    s.master.sequence = vec!["mass2".into(), "mass2".into()];
    let e = error(&s);
    assert_eq!(
        (e.path.as_str(), e.message.as_str()),
        ("master.sequence[1]", "`mass2` appears twice")
    );
    s.master.sequence = vec!["mass2".into()];
    let e = error(&s);
    assert_eq!(e.path, "master.sequence");
    assert_eq!(
        e.message,
        "must list every module exactly once (or be empty for the scenario order)"
    );
    s.master.sequence = vec!["mass2".into(), "mass1".into()];
    assert_eq!(s.validate().expect("valid").sequence, vec![1, 0]);
}

#[test]
fn plot_of_a_missing_output_lists_the_outputs() {
    let mut s = two_mass();
    s.plot = vec!["mass1.s1".into(), "mass2.s2".into()];
    let e = error(&s);
    assert_eq!(e.path, "plot[1]");
    assert_eq!(
        e.message,
        "`mass2.s2` is not an output; outputs are mass1.s1, mass1.v1, mass2.Fk"
    );
}

#[test]
fn connection_errors_name_the_connection() {
    let mut s = two_mass();
    s.connections[2].from = "mass3.Fk".into();
    let e = error(&s);
    assert_eq!(e.path, "connections[2].from");
    assert_eq!(e.message, "no module named `mass3`");
    let mut s = two_mass();
    s.connections.push(s.connections[0].clone());
    let e = error(&s);
    assert_eq!(e.path, "connections[3].to");
    assert_eq!(e.message, "input `mass1.Fk` is connected more than once");
}

/// One mass on a spring as equations: input force `F`, output spring force `Fs` (no
/// feedthrough).
const MASS_SOURCE: &str = "\
parameter m = 1 \"kg\"
parameter c = 1 \"N/m\"
input F \"N\"
state x = 0 \"m\"
state v = 0 \"m/s\"
der(x) = v
der(v) = (F - c*x)/m
output Fs \"N\" = c*x
";

/// `mass_{k-1}.Fs -> mass_k.F`, the last mass feeding the first; mass k starts at
/// x = k / n, so its spring force is k / n.
fn ring(n: usize) -> Scenario {
    let mut s = two_mass();
    s.modules = (0..n)
        .map(|k| ModuleSpec {
            name: format!("mass{k}"),
            model: "Equations".into(),
            parameters: BTreeMap::from([("x".to_string(), k as f64 / n as f64)]),
            typed_parameters: Default::default(),
            solver: Default::default(),
            source: Some(MASS_SOURCE.to_string()),
        })
        .collect();
    s.connections = (0..n)
        .map(|k| ConnectionSpec {
            from: format!("mass{}.Fs", (k + n - 1) % n),
            to: format!("mass{k}.F"),
        })
        .collect();
    s.master.sequence = (0..n).rev().map(|k| format!("mass{k}")).collect();
    s.plot = vec![format!("mass{}.Fs", n - 1)];
    s.reference = false;
    s
}

#[test]
fn rings_of_a_thousand_and_ten_thousand_masses_validate_and_initialise() {
    for n in [1_000, 10_000] {
        let s = ring(n);
        // The exact start-up history of 2n states is beyond the default matrix budget.
        let limits = crate::limits::Limits {
            matrix_dimension: u64::MAX,
            ..Default::default()
        };
        let v = s.validate_within(&limits).expect("the ring is valid");
        assert_eq!(v.output_names.len(), n);
        assert_eq!(v.output_names[n - 1], format!("mass{}.Fs", n - 1));
        assert_eq!(v.sequence, (0..n).rev().collect::<Vec<_>>());
        let modules = s
            .modules
            .iter()
            .map(|spec| (spec.name.clone(), build_module(spec).expect("builds")))
            .collect();
        let pairs: Vec<(String, String)> = s
            .connections
            .iter()
            .map(|c| (c.from.clone(), c.to.clone()))
            .collect();
        let mut system = CoupledSystem::new(modules, &pairs).expect("instantiates");
        system.initialize(0.0, 1.0).expect("initialises");
        let expected: Vec<f64> = (0..n).map(|k| k as f64 / n as f64).collect();
        assert_eq!(system.outputs(), expected.as_slice());
    }
}

#[test]
fn repeated_name_in_a_large_ring_is_found() {
    let n = 1_000;
    let mut s = ring(n);
    s.modules[n - 1].name = "mass500".into();
    assert_eq!(error(&s).path, format!("modules[{}].name", n - 1));
    let mut s = ring(n);
    s.master.sequence[n - 1] = "mass7".into();
    let e = error(&s);
    assert_eq!(
        (e.path, e.message),
        (
            format!("master.sequence[{}]", n - 1),
            "`mass7` appears twice".to_string()
        )
    );
}
