//! [`CouplingGraph`]: the connections `u = L y` (seed-000 digest §1.2, eqn 1), checked once
//! before a run.
//!
//! Stacked vectors: the outputs of module 0 in its declaration order
//! ([`ModuleDescription::outputs`]), then those of module 1, and so on; inputs likewise.
//! Ports are named `module.variable` everywhere, in errors and in results.

use crate::error::CouplingError;
use crate::module::{ModuleDescription, ValueRef};
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;
use core::ops::Range;
use nalgebra::DMatrix;

/// A port of the stacked vectors, used to order value propagation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Port {
    /// Global output index.
    Output(usize),
    /// Global input index.
    Input(usize),
}

/// Validated connections between modules.
#[derive(Clone, Debug)]
pub struct CouplingGraph {
    module_names: Vec<String>,
    output_names: Vec<String>,
    output_units: Vec<String>,
    output_vrs: Vec<ValueRef>,
    output_module: Vec<usize>,
    input_names: Vec<String>,
    input_units: Vec<String>,
    input_vrs: Vec<ValueRef>,
    input_module: Vec<usize>,
    output_ranges: Vec<Range<usize>>,
    input_ranges: Vec<Range<usize>>,
    /// Global output feeding each global input.
    source: Vec<usize>,
    /// Ports in an order where every output comes after the inputs it depends on directly
    /// and every input after its source.
    propagation_order: Vec<Port>,
}

/// Port graph: nodes `0..n_y` are outputs, `n_y..n_y + n_u` inputs. Edges run from an
/// output to the inputs it feeds and from an input to the outputs of the same module that
/// depend on it directly (feedthrough).
struct PortGraph {
    n_y: usize,
    succ: Vec<Vec<usize>>,
}

impl CouplingGraph {
    /// Checks `connections` (`("m.out", "m.in")`: input `to` takes the value of output `from`)
    /// against the module descriptions: names exist, the source is an output, the target an
    /// input, units are equal (an empty unit matches only an empty unit), every input is
    /// connected exactly once, and no cycle runs through direct feedthrough.
    pub fn build(
        modules: &[(String, ModuleDescription)],
        connections: &[(String, String)],
    ) -> Result<CouplingGraph, CouplingError> {
        let mut g = CouplingGraph::ports(modules);
        let mut source: Vec<Option<usize>> = vec![None; g.input_names.len()];
        for (from, to) in connections {
            let o = g.find_port(modules, from, PortSide::Output)?;
            let i = g.find_port(modules, to, PortSide::Input)?;
            if g.output_units[o] != g.input_units[i] {
                return Err(CouplingError::UnitMismatch {
                    from: g.output_names[o].clone(),
                    from_unit: g.output_units[o].clone(),
                    to: g.input_names[i].clone(),
                    to_unit: g.input_units[i].clone(),
                });
            }
            if source[i].is_some() {
                return Err(CouplingError::InputConnectedTwice(g.input_names[i].clone()));
            }
            source[i] = Some(o);
        }
        for (i, s) in source.iter().enumerate() {
            match s {
                Some(o) => g.source.push(*o),
                None => return Err(CouplingError::UnconnectedInput(g.input_names[i].clone())),
            }
        }
        let ports = g.port_graph(modules);
        g.propagation_order = ports.order().map_err(|cycle| {
            CouplingError::AlgebraicLoop(
                cycle
                    .into_iter()
                    .map(|n| g.port_name(ports.port(n)))
                    .collect(),
            )
        })?;
        Ok(g)
    }

    /// Names, units and value references of all ports, with no connections yet.
    fn ports(modules: &[(String, ModuleDescription)]) -> CouplingGraph {
        let mut g = CouplingGraph {
            module_names: Vec::with_capacity(modules.len()),
            output_names: Vec::new(),
            output_units: Vec::new(),
            output_vrs: Vec::new(),
            output_module: Vec::new(),
            input_names: Vec::new(),
            input_units: Vec::new(),
            input_vrs: Vec::new(),
            input_module: Vec::new(),
            output_ranges: Vec::with_capacity(modules.len()),
            input_ranges: Vec::with_capacity(modules.len()),
            source: Vec::new(),
            propagation_order: Vec::new(),
        };
        for (m, (name, desc)) in modules.iter().enumerate() {
            g.module_names.push(name.clone());
            let start = g.output_names.len();
            for v in desc.outputs() {
                g.output_names.push(format!("{name}.{}", v.name));
                g.output_units.push(v.unit.clone());
                g.output_vrs.push(v.value_ref);
                g.output_module.push(m);
            }
            g.output_ranges.push(start..g.output_names.len());
            let start = g.input_names.len();
            for v in desc.inputs() {
                g.input_names.push(format!("{name}.{}", v.name));
                g.input_units.push(v.unit.clone());
                g.input_vrs.push(v.value_ref);
                g.input_module.push(m);
            }
            g.input_ranges.push(start..g.input_names.len());
        }
        g
    }

    /// Resolves `module.variable` to a global port index of the wanted side.
    fn find_port(
        &self,
        modules: &[(String, ModuleDescription)],
        port: &str,
        side: PortSide,
    ) -> Result<usize, CouplingError> {
        let (module, variable) = match port.split_once('.') {
            Some(parts) => parts,
            None if self.module_index(port).is_some() => (port, ""),
            None => return Err(CouplingError::UnknownModule(port.to_string())),
        };
        let m = self
            .module_index(module)
            .ok_or_else(|| CouplingError::UnknownModule(module.to_string()))?;
        let unknown = || CouplingError::UnknownVariable {
            module: module.to_string(),
            variable: variable.to_string(),
        };
        let var = modules[m].1.variable(variable).ok_or_else(unknown)?;
        let (range, vrs) = match side {
            PortSide::Output => (self.output_ranges[m].clone(), &self.output_vrs),
            PortSide::Input => (self.input_ranges[m].clone(), &self.input_vrs),
        };
        match range.clone().find(|&k| vrs[k] == var.value_ref) {
            Some(k) => Ok(k),
            None => Err(match side {
                PortSide::Output => CouplingError::NotAnOutput(port.to_string()),
                PortSide::Input => CouplingError::NotAnInput(port.to_string()),
            }),
        }
    }

    fn port_graph(&self, modules: &[(String, ModuleDescription)]) -> PortGraph {
        let n_y = self.output_names.len();
        let mut succ = vec![Vec::new(); n_y + self.input_names.len()];
        for (i, &o) in self.source.iter().enumerate() {
            succ[o].push(n_y + i);
        }
        for (m, (_, desc)) in modules.iter().enumerate() {
            for i in self.input_ranges[m].clone() {
                for o in self.output_ranges[m].clone() {
                    if desc.has_feedthrough(self.output_vrs[o], self.input_vrs[i]) {
                        succ[n_y + i].push(o);
                    }
                }
            }
        }
        PortGraph { n_y, succ }
    }

    fn port_name(&self, p: Port) -> String {
        match p {
            Port::Output(o) => self.output_names[o].clone(),
            Port::Input(i) => self.input_names[i].clone(),
        }
    }

    /// Number of modules.
    pub fn n_modules(&self) -> usize {
        self.module_names.len()
    }

    /// Module instance names, in stacking order.
    pub fn module_names(&self) -> &[String] {
        &self.module_names
    }

    /// Index of the module named `name`.
    pub fn module_index(&self, name: &str) -> Option<usize> {
        self.module_names.iter().position(|n| n == name)
    }

    /// Length of the stacked output vector y.
    pub fn n_outputs(&self) -> usize {
        self.output_names.len()
    }

    /// Length of the stacked input vector u.
    pub fn n_inputs(&self) -> usize {
        self.input_names.len()
    }

    /// Stacked output names, `module.variable`.
    pub fn output_names(&self) -> Vec<String> {
        self.output_names.clone()
    }

    /// Name of global output `o`, `module.variable`.
    pub fn output_name(&self, o: usize) -> &str {
        &self.output_names[o]
    }

    /// Units of the stacked outputs.
    pub fn output_units(&self) -> Vec<String> {
        self.output_units.clone()
    }

    /// Stacked input names, `module.variable`.
    pub fn input_names(&self) -> Vec<String> {
        self.input_names.clone()
    }

    /// Global index of the output named `module.variable`.
    pub fn output_index(&self, name: &str) -> Option<usize> {
        self.output_names.iter().position(|n| n == name)
    }

    /// Global index of the input named `module.variable`.
    pub fn input_index(&self, name: &str) -> Option<usize> {
        self.input_names.iter().position(|n| n == name)
    }

    /// The global output that feeds global input `global_input`.
    pub fn source_of_input(&self, global_input: usize) -> usize {
        self.source[global_input]
    }

    /// Module that owns global output `o`.
    pub fn output_module(&self, o: usize) -> usize {
        self.output_module[o]
    }

    /// Module that owns global input `i`.
    pub fn input_module(&self, i: usize) -> usize {
        self.input_module[i]
    }

    /// The selection matrix L of `u = L y`: rows are inputs, columns outputs, one 1 per row
    /// (seed-000 digest §1.2 and §8 item 12).
    pub fn coupling_matrix(&self) -> DMatrix<f64> {
        let mut l = DMatrix::zeros(self.n_inputs(), self.n_outputs());
        for (i, &o) in self.source.iter().enumerate() {
            l[(i, o)] = 1.0;
        }
        l
    }

    /// Global indices of module `m`'s outputs.
    pub fn output_range(&self, m: usize) -> Range<usize> {
        self.output_ranges[m].clone()
    }

    /// Global indices of module `m`'s inputs.
    pub fn input_range(&self, m: usize) -> Range<usize> {
        self.input_ranges[m].clone()
    }

    /// Value references of module `m`'s outputs, in stacking order.
    pub fn output_value_refs(&self, m: usize) -> &[ValueRef] {
        &self.output_vrs[self.output_ranges[m].clone()]
    }

    /// Value references of module `m`'s inputs, in stacking order.
    pub fn input_value_refs(&self, m: usize) -> &[ValueRef] {
        &self.input_vrs[self.input_ranges[m].clone()]
    }

    /// Value reference of global output `o`.
    pub fn output_value_ref(&self, o: usize) -> ValueRef {
        self.output_vrs[o]
    }

    /// Value reference of global input `i`.
    pub fn input_value_ref(&self, i: usize) -> ValueRef {
        self.input_vrs[i]
    }

    /// All ports in an order that makes consistent values in one pass: each input after
    /// its source output, each output after the inputs it depends on directly.
    pub fn propagation_order(&self) -> &[Port] {
        &self.propagation_order
    }
}

#[derive(Clone, Copy)]
enum PortSide {
    Output,
    Input,
}

impl PortGraph {
    fn port(&self, node: usize) -> Port {
        if node < self.n_y {
            Port::Output(node)
        } else {
            Port::Input(node - self.n_y)
        }
    }

    /// Topological order, or the nodes of one cycle (closed: first node repeated at the end).
    fn order(&self) -> Result<Vec<Port>, Vec<usize>> {
        #[derive(Clone, Copy, PartialEq)]
        enum Mark {
            New,
            Open,
            Done,
        }
        let n = self.succ.len();
        let mut mark = vec![Mark::New; n];
        let mut post = Vec::with_capacity(n);
        // Explicit stack of (node, next successor position): no recursion depth limit.
        let mut stack: Vec<(usize, usize)> = Vec::new();
        for root in 0..n {
            if mark[root] != Mark::New {
                continue;
            }
            mark[root] = Mark::Open;
            stack.push((root, 0));
            while let Some(&mut (node, ref mut next)) = stack.last_mut() {
                if let Some(&s) = self.succ[node].get(*next) {
                    *next += 1;
                    match mark[s] {
                        Mark::New => {
                            mark[s] = Mark::Open;
                            stack.push((s, 0));
                        }
                        Mark::Open => {
                            let start = stack.iter().position(|&(v, _)| v == s).unwrap_or(0);
                            let mut cycle: Vec<usize> =
                                stack[start..].iter().map(|&(v, _)| v).collect();
                            cycle.push(s);
                            return Err(cycle);
                        }
                        Mark::Done => {}
                    }
                } else {
                    mark[node] = Mark::Done;
                    post.push(node);
                    stack.pop();
                }
            }
        }
        Ok(post.into_iter().rev().map(|v| self.port(v)).collect())
    }
}
