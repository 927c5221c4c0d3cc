//! Rings of 10^3 and 10^4 single masses (one input, one output): built in linear time,
//! with the sources, look-ups and propagation order a ring must have, and an algebraic
//! loop through all of them found without recursion.

use super::{conn, desc, quadratic_reference};
use crate::coupling::{CouplingGraph, Port};
use crate::error::CouplingError;
use crate::module::ModuleDescription;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// n masses; `feedthrough(k)`: mass k's output depends directly on its input.
fn masses(n: usize, feedthrough: impl Fn(usize) -> bool) -> Vec<(String, ModuleDescription)> {
    (0..n)
        .map(|k| {
            let pairs: &[(&str, &str)] = if feedthrough(k) { &[("Fs", "F")] } else { &[] };
            (
                format!("mass{k}"),
                desc(&[("F", "N")], &[("Fs", "N")], pairs),
            )
        })
        .collect()
}

/// `mass_{k-1}.Fs -> mass_k.F`, the last mass feeding the first.
fn ring(n: usize) -> Vec<(String, String)> {
    let pairs: Vec<(String, String)> = (0..n)
        .map(|k| (format!("mass{}.Fs", (k + n - 1) % n), format!("mass{k}.F")))
        .collect();
    let refs: Vec<(&str, &str)> = pairs
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    conn(&refs)
}

#[test]
fn rings_of_a_thousand_and_ten_thousand_masses_build() {
    for n in [1_000, 10_000] {
        let g = CouplingGraph::build(&masses(n, |_| false), &ring(n)).expect("no loop");
        assert_eq!((g.n_modules(), g.n_outputs(), g.n_inputs()), (n, n, n));
        for k in [0, 1, n / 2, n - 1] {
            assert_eq!(g.source_of_input(k), (k + n - 1) % n);
            assert_eq!(g.module_index(&format!("mass{k}")), Some(k));
            assert_eq!(g.output_index(&format!("mass{k}.Fs")), Some(k));
            assert_eq!(g.input_index(&format!("mass{k}.F")), Some(k));
        }
        assert_eq!(g.module_index("mass"), None);
        assert_eq!(g.output_index(&format!("mass{n}.Fs")), None);
        let order = g.propagation_order();
        assert_eq!(order.len(), 2 * n);
        let mut position = alloc::vec![usize::MAX; 2 * n];
        for (p, port) in order.iter().enumerate() {
            match *port {
                Port::Output(o) => position[o] = p,
                Port::Input(i) => position[n + i] = p,
            }
        }
        assert!((0..n).all(|i| position[g.source_of_input(i)] < position[n + i]));
    }
}

#[test]
fn ring_order_and_loop_match_the_reference_build() {
    const N: usize = 1_000;
    let n = N;
    let cases: [fn(usize) -> bool; 4] = [|_| false, |k| k % 7 != 3, |k| k != N / 2, |_| true];
    for feedthrough in cases {
        let modules = masses(n, feedthrough);
        assert_eq!(
            quadratic_reference::build_indexed(&modules, &ring(n)),
            quadratic_reference::build(&modules, &ring(n))
        );
    }
}

#[test]
fn feedthrough_chain_of_ten_thousand_is_ordered_along_the_chain() {
    // Only mass 0 breaks the ring: every other output depends on its input, so the order
    // must follow the whole chain, 2n ports deep.
    let n = 10_000;
    let g = CouplingGraph::build(&masses(n, |k| k != 0), &ring(n)).expect("mass 0 breaks the loop");
    let expected: Vec<Port> = (0..n)
        .flat_map(|k| {
            let input = if k == 0 { None } else { Some(Port::Input(k)) };
            input.into_iter().chain([Port::Output(k)])
        })
        .chain([Port::Input(0)])
        .collect();
    assert_eq!(g.propagation_order(), expected.as_slice());
}

#[test]
fn feedthrough_ring_of_ten_thousand_is_one_algebraic_loop() {
    let n = 10_000;
    match CouplingGraph::build(&masses(n, |_| true), &ring(n)) {
        Err(CouplingError::AlgebraicLoop(ports)) => {
            assert_eq!(ports.len(), 2 * n + 1);
            assert_eq!(ports.first(), ports.last());
            assert_eq!(ports[..3], ["mass0.Fs", "mass1.F", "mass1.Fs"]);
        }
        other => panic!("expected an algebraic loop, got {other:?}"),
    }
}
