//! Validation errors of [`CouplingGraph::build`] and the coupling matrix of seed 000's
//! two-mass oscillator (docs/methods.md §11.1, paper eqn 27).

use super::{CouplingGraph, Port};
use crate::error::CouplingError;
use crate::module::{
    Capabilities, Causality, DependencyKind, ModuleDescription, OutputDependency, ValueRef,
    Variability, Variable,
};
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;
use nalgebra::DMatrix;

pub(crate) mod quadratic_reference;
mod ring;

/// A description with `inputs` then `outputs` (name, unit) and feedthrough pairs
/// (output name, input name).
fn desc(
    inputs: &[(&str, &str)],
    outputs: &[(&str, &str)],
    feedthrough: &[(&str, &str)],
) -> ModuleDescription {
    let mut variables = Vec::new();
    let mut vr = 0;
    variables.push(Variable::new(
        "k",
        100,
        Causality::Parameter,
        Variability::Fixed,
        Some(1.0),
        "",
    ));
    for (n, u) in inputs {
        variables.push(Variable::new(
            n,
            vr,
            Causality::Input,
            Variability::Continuous,
            Some(0.0),
            u,
        ));
        vr += 1;
    }
    for (n, u) in outputs {
        variables.push(Variable::new(
            n,
            vr,
            Causality::Output,
            Variability::Continuous,
            None,
            u,
        ));
        vr += 1;
    }
    let find = |name: &str| {
        variables
            .iter()
            .find(|v| v.name == name)
            .map(|v| v.value_ref)
            .unwrap_or(ValueRef(999))
    };
    let output_dependencies = outputs
        .iter()
        .map(|(o, _)| OutputDependency {
            output: find(o),
            inputs: feedthrough
                .iter()
                .filter(|(fo, _)| fo == o)
                .map(|(_, i)| (find(i), DependencyKind::Constant))
                .collect(),
        })
        .collect();
    ModuleDescription {
        model_name: "Test".into(),
        variables,
        capabilities: Capabilities::default(),
        output_dependencies,
    }
}

fn conn(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

fn two_mass() -> Vec<(String, ModuleDescription)> {
    vec![
        (
            "mass1".into(),
            desc(&[("Fk", "N")], &[("s1", "m"), ("v1", "m/s")], &[]),
        ),
        (
            "mass2".into(),
            desc(
                &[("s1", "m"), ("v1", "m/s")],
                &[("Fk", "N")],
                &[("Fk", "s1"), ("Fk", "v1")],
            ),
        ),
    ]
}

fn two_mass_connections() -> Vec<(String, String)> {
    conn(&[
        ("mass1.s1", "mass2.s1"),
        ("mass1.v1", "mass2.v1"),
        ("mass2.Fk", "mass1.Fk"),
    ])
}

#[test]
fn two_mass_coupling_matrix_is_eqn_27() {
    let g = CouplingGraph::build(&two_mass(), &two_mass_connections()).unwrap();
    let l = DMatrix::from_row_slice(3, 3, &[0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0]);
    assert_eq!(g.coupling_matrix(), l);
    assert_eq!(g.output_names(), vec!["mass1.s1", "mass1.v1", "mass2.Fk"]);
    assert_eq!(g.input_names(), vec!["mass1.Fk", "mass2.s1", "mass2.v1"]);
    assert_eq!(g.output_units(), vec!["m", "m/s", "N"]);
    assert_eq!(g.source_of_input(0), 2);
    assert_eq!(g.output_range(1), 2..3);
    assert_eq!(g.input_range(1), 1..3);
    assert_eq!(g.input_value_refs(1), &[ValueRef(0), ValueRef(1)]);
    assert_eq!(g.output_value_refs(0), &[ValueRef(1), ValueRef(2)]);
}

#[test]
fn propagation_order_puts_feedthrough_outputs_after_their_inputs() {
    let g = CouplingGraph::build(&two_mass(), &two_mass_connections()).unwrap();
    let pos = |p: Port| g.propagation_order().iter().position(|&q| q == p).unwrap();
    assert_eq!(g.propagation_order().len(), 6);
    // mass1.s1 -> mass2.s1 -> mass2.Fk -> mass1.Fk
    assert!(pos(Port::Output(0)) < pos(Port::Input(1)));
    assert!(pos(Port::Input(1)) < pos(Port::Output(2)));
    assert!(pos(Port::Input(2)) < pos(Port::Output(2)));
    assert!(pos(Port::Output(2)) < pos(Port::Input(0)));
}

fn build_err(conns: &[(&str, &str)]) -> CouplingError {
    CouplingGraph::build(&two_mass(), &conn(conns)).unwrap_err()
}

#[test]
fn unconnected_input_is_named() {
    let e = build_err(&[("mass1.s1", "mass2.s1"), ("mass2.Fk", "mass1.Fk")]);
    assert_eq!(e, CouplingError::UnconnectedInput("mass2.v1".into()));
    assert!(e.to_string().contains("`mass2.v1`"));
}

#[test]
fn input_connected_twice_is_named() {
    let e = build_err(&[
        ("mass1.s1", "mass2.s1"),
        ("mass1.v1", "mass2.v1"),
        ("mass2.Fk", "mass1.Fk"),
        ("mass1.s1", "mass2.s1"),
    ]);
    assert_eq!(e, CouplingError::InputConnectedTwice("mass2.s1".into()));
    assert!(e.to_string().contains("`mass2.s1`"));
}

#[test]
fn unknown_module_and_variable_are_named() {
    let e = build_err(&[("mass3.s1", "mass2.s1")]);
    assert_eq!(e, CouplingError::UnknownModule("mass3".into()));
    let e = build_err(&[("mass1.x9", "mass2.s1")]);
    assert_eq!(
        e,
        CouplingError::UnknownVariable {
            module: "mass1".into(),
            variable: "x9".into()
        }
    );
    assert!(e.to_string().contains("`mass1`") && e.to_string().contains("`x9`"));
    let e = build_err(&[("nodot", "mass2.s1")]);
    assert_eq!(e, CouplingError::UnknownModule("nodot".into()));
}

#[test]
fn source_must_be_output_and_target_input() {
    let e = build_err(&[("mass1.Fk", "mass2.s1")]);
    assert_eq!(e, CouplingError::NotAnOutput("mass1.Fk".into()));
    let e = build_err(&[("mass1.s1", "mass1.v1")]);
    assert_eq!(e, CouplingError::NotAnInput("mass1.v1".into()));
    // A parameter is neither.
    let e = build_err(&[("mass1.k", "mass2.s1")]);
    assert_eq!(e, CouplingError::NotAnOutput("mass1.k".into()));
}

#[test]
fn unit_mismatch_names_both_ports() {
    let e = build_err(&[("mass1.v1", "mass2.s1")]);
    assert_eq!(
        e,
        CouplingError::UnitMismatch {
            from: "mass1.v1".into(),
            from_unit: "m/s".into(),
            to: "mass2.s1".into(),
            to_unit: "m".into()
        }
    );
    // Empty unit matches only empty.
    let modules = vec![
        ("a".to_string(), desc(&[], &[("y", "")], &[])),
        ("b".to_string(), desc(&[("u", "m")], &[], &[])),
    ];
    assert!(matches!(
        CouplingGraph::build(&modules, &conn(&[("a.y", "b.u")])),
        Err(CouplingError::UnitMismatch { .. })
    ));
}

#[test]
fn algebraic_loop_lists_the_ports() {
    // Both modules have feedthrough from u to y: a.y -> b.u -> b.y -> a.u -> a.y.
    let modules = vec![
        (
            "a".to_string(),
            desc(&[("u", "")], &[("y", "")], &[("y", "u")]),
        ),
        (
            "b".to_string(),
            desc(&[("u", "")], &[("y", "")], &[("y", "u")]),
        ),
    ];
    let e = CouplingGraph::build(&modules, &conn(&[("a.y", "b.u"), ("b.y", "a.u")])).unwrap_err();
    match &e {
        CouplingError::AlgebraicLoop(ports) => {
            assert_eq!(ports.len(), 5, "{ports:?}");
            assert_eq!(ports.first(), ports.last());
            for p in ["a.y", "b.u", "b.y", "a.u"] {
                assert!(ports.iter().any(|q| q == p), "{p} missing in {ports:?}");
            }
        }
        other => panic!("expected an algebraic loop, got {other:?}"),
    }
    assert!(e.to_string().contains("a.u") && e.to_string().contains("b.y"));
    // Without feedthrough in b the same wiring is fine.
    let modules = vec![
        (
            "a".to_string(),
            desc(&[("u", "")], &[("y", "")], &[("y", "u")]),
        ),
        ("b".to_string(), desc(&[("u", "")], &[("y", "")], &[])),
    ];
    assert!(CouplingGraph::build(&modules, &conn(&[("a.y", "b.u"), ("b.y", "a.u")])).is_ok());
}

#[test]
fn self_loop_through_feedthrough_is_an_algebraic_loop() {
    let modules = vec![(
        "a".to_string(),
        desc(&[("u", "")], &[("y", "")], &[("y", "u")]),
    )];
    let e = CouplingGraph::build(&modules, &conn(&[("a.y", "a.u")])).unwrap_err();
    assert_eq!(
        e,
        CouplingError::AlgebraicLoop(vec!["a.y".into(), "a.u".into(), "a.y".into()])
    );
}
