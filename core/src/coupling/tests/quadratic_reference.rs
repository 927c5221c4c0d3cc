//! The coupling build as it was before look-ups went through indexes (linear name
//! searches, feedthrough queried per input-output pair, a `Vec` of successors per port),
//! kept as a test oracle: the indexed [`CouplingGraph::build`] must give the same
//! sources, the same propagation order (it decides the order of the initial value
//! propagation, so it changes numbers) and the same errors, on random systems here and on
//! every preset's graph in `scenario`. Both walk their successor lists with the same
//! depth-first search (`port_graph::depth_first_order`): what is compared is the graph it
//! walks, built here with a `Vec` per port and there compressed.

use crate::coupling::port_graph::depth_first_order;
use crate::coupling::{CouplingGraph, Port};
use crate::error::CouplingError;
use crate::module::{
    Capabilities, Causality, DependencyKind, ModuleDescription, OutputDependency, ValueRef,
    Variability, Variable,
};
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;

/// What a build yields: each input's source and the propagation order.
pub(crate) type Built = (Vec<usize>, Vec<Port>);

/// The reference build (the algorithm of `CouplingGraph::build` before the indexes).
pub(crate) fn build(
    modules: &[(String, ModuleDescription)],
    connections: &[(String, String)],
) -> Result<Built, CouplingError> {
    let mut out_names = Vec::new();
    let mut out_units = Vec::new();
    let mut out_vrs = Vec::new();
    let mut in_names = Vec::new();
    let mut in_units = Vec::new();
    let mut in_vrs = Vec::new();
    let mut out_ranges = Vec::new();
    let mut in_ranges = Vec::new();
    for (name, desc) in modules {
        let start = out_names.len();
        for v in desc.outputs() {
            out_names.push(format!("{name}.{}", v.name));
            out_units.push(v.unit.clone());
            out_vrs.push(v.value_ref);
        }
        out_ranges.push(start..out_names.len());
        let start = in_names.len();
        for v in desc.inputs() {
            in_names.push(format!("{name}.{}", v.name));
            in_units.push(v.unit.clone());
            in_vrs.push(v.value_ref);
        }
        in_ranges.push(start..in_names.len());
    }
    let module_index = |name: &str| modules.iter().position(|(n, _)| n == name);
    let find = |port: &str, output: bool| -> Result<usize, CouplingError> {
        let (module, variable) = match port.split_once('.') {
            Some(parts) => parts,
            None if module_index(port).is_some() => (port, ""),
            None => return Err(CouplingError::UnknownModule(port.to_string())),
        };
        let m = module_index(module).ok_or_else(|| CouplingError::UnknownModule(module.into()))?;
        let var =
            modules[m]
                .1
                .variable(variable)
                .ok_or_else(|| CouplingError::UnknownVariable {
                    module: module.to_string(),
                    variable: variable.to_string(),
                })?;
        let (range, vrs) = if output {
            (out_ranges[m].clone(), &out_vrs)
        } else {
            (in_ranges[m].clone(), &in_vrs)
        };
        match range.clone().find(|&k| vrs[k] == var.value_ref) {
            Some(k) => Ok(k),
            None if output => Err(CouplingError::NotAnOutput(port.to_string())),
            None => Err(CouplingError::NotAnInput(port.to_string())),
        }
    };
    let mut source: Vec<Option<usize>> = vec![None; in_names.len()];
    for (from, to) in connections {
        let o = find(from, true)?;
        let i = find(to, false)?;
        if out_units[o] != in_units[i] {
            return Err(CouplingError::UnitMismatch {
                from: out_names[o].clone(),
                from_unit: out_units[o].clone(),
                to: in_names[i].clone(),
                to_unit: in_units[i].clone(),
            });
        }
        if source[i].is_some() {
            return Err(CouplingError::InputConnectedTwice(in_names[i].clone()));
        }
        source[i] = Some(o);
    }
    let mut sources = Vec::with_capacity(source.len());
    for (i, s) in source.iter().enumerate() {
        sources.push(s.ok_or_else(|| CouplingError::UnconnectedInput(in_names[i].clone()))?);
    }
    let n_y = out_names.len();
    let mut succ = vec![Vec::new(); n_y + in_names.len()];
    for (i, &o) in sources.iter().enumerate() {
        succ[o].push(n_y + i);
    }
    for (m, (_, desc)) in modules.iter().enumerate() {
        for i in in_ranges[m].clone() {
            for o in out_ranges[m].clone() {
                if desc.has_feedthrough(out_vrs[o], in_vrs[i]) {
                    succ[n_y + i].push(o);
                }
            }
        }
    }
    let port = |v: usize| {
        if v < n_y {
            Port::Output(v)
        } else {
            Port::Input(v - n_y)
        }
    };
    let name = |v: usize| match port(v) {
        Port::Output(o) => out_names[o].clone(),
        Port::Input(i) => in_names[i].clone(),
    };
    let order = depth_first_order(succ.len(), |v| succ[v].as_slice())
        .map_err(|cycle| CouplingError::AlgebraicLoop(cycle.into_iter().map(name).collect()))?;
    Ok((sources, order.into_iter().map(port).collect()))
}

/// What [`CouplingGraph::build`] yields, in the reference's terms.
pub(crate) fn build_indexed(
    modules: &[(String, ModuleDescription)],
    connections: &[(String, String)],
) -> Result<Built, CouplingError> {
    let g = CouplingGraph::build(modules, connections)?;
    let sources = (0..g.n_inputs()).map(|i| g.source_of_input(i)).collect();
    Ok((sources, g.propagation_order().to_vec()))
}

/// xorshift64: reproducible random systems without a dependency.
struct Random(u64);

impl Random {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

/// A module with up to four inputs and outputs, a parameter, random feedthrough listed
/// in random order (sometimes twice, sometimes naming a parameter), and now and then a
/// repeated variable name, an output sharing another output's value reference, or twenty
/// locals.
fn random_module(r: &mut Random) -> ModuleDescription {
    let unit = |r: &mut Random| if r.chance(2) { "m" } else { "" };
    let var = |name: String, vr: u32, c: Causality, unit: &str| {
        Variable::new(&name, vr, c, Variability::Continuous, None, unit)
    };
    let mut variables = vec![var("p".into(), 50, Causality::Parameter, "")];
    let (n_u, n_y) = (r.below(5), r.below(5));
    for k in 0..n_u {
        variables.push(var(format!("u{k}"), k as u32, Causality::Input, unit(r)));
    }
    for k in 0..n_y {
        let vr = if k > 0 && r.chance(5) {
            10
        } else {
            10 + k as u32
        };
        variables.push(var(format!("y{k}"), vr, Causality::Output, unit(r)));
    }
    if r.chance(5) {
        variables.push(var("u0".into(), 60, Causality::Output, ""));
    }
    // Now and then enough locals that look-ups go through the sorted index, some named
    // like a port and placed before it, so the first variable of a name is a local.
    if r.chance(30) {
        let locals: Vec<Variable> = (0..20)
            .map(|k| {
                let name = match r.below(8) {
                    0 => "u1".into(),
                    1 => "y0".into(),
                    _ => format!("l{k}"),
                };
                var(name, 100 + k, Causality::Local, "")
            })
            .collect();
        let at = if r.chance(50) { 1 } else { variables.len() };
        variables.splice(at..at, locals);
    }
    let mut output_dependencies = Vec::new();
    for _ in 0..r.below(n_y + 2) {
        let output = ValueRef(10 + r.below(n_y.max(1)) as u32);
        let inputs = (0..r.below(3))
            .map(|_| {
                let vr = if r.chance(10) {
                    50
                } else {
                    r.below(n_u.max(1)) as u32
                };
                (ValueRef(vr), DependencyKind::Constant)
            })
            .collect();
        output_dependencies.push(OutputDependency { output, inputs });
    }
    ModuleDescription {
        model_name: "Random".into(),
        variables,
        capabilities: Capabilities::default(),
        output_dependencies,
    }
}

/// Each input of each module once from a random output (sometimes left out, connected
/// twice or misspelled), in a random order.
fn random_connections(
    r: &mut Random,
    modules: &[(String, ModuleDescription)],
) -> Vec<(String, String)> {
    let ports = |pick: fn(&ModuleDescription) -> Vec<&Variable>| {
        let mut all = Vec::new();
        for (name, d) in modules {
            for v in pick(d) {
                all.push(format!("{name}.{}", v.name));
            }
        }
        all
    };
    let (outputs, inputs) = (
        ports(ModuleDescription::outputs),
        ports(ModuleDescription::inputs),
    );
    let mut list = Vec::new();
    for to in &inputs {
        if outputs.is_empty() || r.chance(3) {
            continue;
        }
        let from = outputs[r.below(outputs.len())].clone();
        let from = match r.below(60) {
            0 => from.replace('.', "_"),
            1 => format!("{from}x"),
            2 => "nowhere.y0".into(),
            _ => from,
        };
        let to = if r.chance(2) {
            from.clone()
        } else {
            to.clone()
        };
        list.push((from, to.clone()));
        if r.chance(2) {
            list.push((outputs[0].clone(), to));
        }
    }
    for k in (1..list.len()).rev() {
        list.swap(k, r.below(k + 1));
    }
    list
}

#[test]
fn indexed_build_matches_the_reference_on_random_systems() {
    let mut r = Random(0x9e37_79b9_7f4a_7c15);
    let (mut ok, mut loops) = (0, 0);
    for case in 0..4000 {
        let n = 1 + r.below(6);
        let modules: Vec<(String, ModuleDescription)> = (0..n)
            .map(|k| {
                let name = if k > 0 && r.chance(3) {
                    "m0".to_string()
                } else {
                    format!("m{k}")
                };
                (name, random_module(&mut r))
            })
            .collect();
        let connections = random_connections(&mut r, &modules);
        let expected = build(&modules, &connections);
        std::eprintln!(
            "KIND {}",
            match &expected {
                Ok(_) => "ok".into(),
                Err(e) => format!("{e:?}")
                    .split(['(', ' '])
                    .next()
                    .unwrap()
                    .to_string(),
            }
        );
        ok += usize::from(expected.is_ok());
        loops += usize::from(matches!(expected, Err(CouplingError::AlgebraicLoop(_))));
        assert_eq!(
            build_indexed(&modules, &connections),
            expected,
            "case {case}: {connections:?}"
        );
    }
    // The random systems reach both outcomes that depend on the order: valid systems and loops.
    assert!(ok > 500 && loops > 150, "{ok} valid, {loops} loops");
}
