//! [`CouplingGraph`]: the connections `u = L y` (docs/methods.md §2.2, paper eqn 1), checked once
//! before a run.
//!
//! Stacked vectors: the outputs of module 0 in its declaration order
//! ([`ModuleDescription::outputs`]), then those of module 1, and so on; inputs likewise.
//! Ports are named `module.variable` everywhere, in errors and in results.
//!
//! Stored sparsely: each input's source output, no matrix. Building takes O(P log P) for
//! P ports, variables and connections: names and value references are found through
//! sorted indexes, feedthrough is read from each module's dependency lists, and the
//! algebraic-loop check is one iterative depth-first search over ports and edges
//! (measured up to 10^5 modules in docs/benchmarks.md).

mod arrays;

use super::index::{all_with, first_with, sort_by_key_then_position, NameIndex};
use super::port_graph::PortGraph;
use crate::error::CouplingError;
use crate::module::{Causality, ModuleDescription, PortType, ValueRef, Variable};
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
    module_by_name: NameIndex,
    output_names: Vec<String>,
    output_by_name: NameIndex,
    output_units: Vec<String>,
    output_types: Vec<PortType>,
    output_vrs: Vec<ValueRef>,
    output_module: Vec<usize>,
    input_names: Vec<String>,
    input_by_name: NameIndex,
    input_units: Vec<String>,
    input_types: Vec<PortType>,
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

/// Modules with at most this many variables are searched from the front instead of
/// through a sorted index: cheaper for the small modules most systems are made of, and
/// still a constant bound per look-up.
const SCAN_VARIABLES: usize = 16;

/// What resolves `module.variable` while a graph is built: each module's variables by
/// name and its outputs and inputs by value reference.
struct PortLookup {
    /// Module `m`'s variable positions sorted by name are
    /// `variables[variable_start[m]..variable_start[m + 1]]`, for modules with more than
    /// [`SCAN_VARIABLES`] variables (the range is empty for the others).
    variables: Vec<usize>,
    variable_start: Vec<usize>,
    /// Global output indices, each module's range sorted by value reference.
    outputs: Vec<usize>,
    /// Global input indices, each module's range sorted by value reference.
    inputs: Vec<usize>,
}

impl CouplingGraph {
    /// Checks `connections` (`("m.out", "m.in")`: input `to` takes the value of output `from`)
    /// against the module descriptions: names exist, the source is an output, the target an
    /// input, types are equal, units are equal (an empty unit matches only an empty unit),
    /// every input is connected exactly once, and no cycle runs through direct
    /// feedthrough. `m.a` names a whole array (ports `m.a[1]`, ...) when `a` is not a port
    /// itself: it joins an array of the same shape element by element.
    pub fn build(
        modules: &[(String, ModuleDescription)],
        connections: &[(String, String)],
    ) -> Result<CouplingGraph, CouplingError> {
        let (mut g, lookup, feedthrough) = CouplingGraph::ports(modules);
        let mut source: Vec<Option<usize>> = vec![None; g.input_names.len()];
        // Checked one connection at a time, so the first bad connection is reported.
        for c in connections {
            for (o, i) in g.connection_ports(modules, &lookup, c)? {
                if g.output_types[o] != g.input_types[i] {
                    return Err(CouplingError::PortMismatch {
                        kind: "type",
                        from: g.output_names[o].clone(),
                        from_is: g.output_types[o].name().into(),
                        to: g.input_names[i].clone(),
                        to_is: g.input_types[i].name().into(),
                    });
                }
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
        }
        for (i, s) in source.iter().enumerate() {
            match s {
                Some(o) => g.source.push(*o),
                None => return Err(CouplingError::UnconnectedInput(g.input_names[i].clone())),
            }
        }
        let ports = PortGraph::new(g.n_outputs(), &g.source, &feedthrough);
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

    /// Names, units and value references of all ports, the indexes that resolve
    /// `module.variable` and the feedthrough pairs ([`Self::add_feedthrough`]), in one pass
    /// over the modules (each description is read while it is in the cache); no
    /// connections yet.
    fn ports(
        modules: &[(String, ModuleDescription)],
    ) -> (CouplingGraph, PortLookup, Vec<(usize, usize)>) {
        let mut g = CouplingGraph {
            module_names: Vec::with_capacity(modules.len()),
            module_by_name: NameIndex::default(),
            output_names: Vec::new(),
            output_by_name: NameIndex::default(),
            output_units: Vec::new(),
            output_types: Vec::new(),
            output_vrs: Vec::new(),
            output_module: Vec::new(),
            input_names: Vec::new(),
            input_by_name: NameIndex::default(),
            input_units: Vec::new(),
            input_types: Vec::new(),
            input_vrs: Vec::new(),
            input_module: Vec::new(),
            output_ranges: Vec::with_capacity(modules.len()),
            input_ranges: Vec::with_capacity(modules.len()),
            source: Vec::new(),
            propagation_order: Vec::new(),
        };
        let mut lookup = PortLookup {
            variables: Vec::new(),
            variable_start: Vec::with_capacity(modules.len() + 1),
            outputs: Vec::new(),
            inputs: Vec::new(),
        };
        let mut feedthrough = Vec::new();
        let mut entries = Vec::new();
        for (m, (name, desc)) in modules.iter().enumerate() {
            g.module_names.push(name.clone());
            let start = g.output_names.len();
            for v in desc.with_causality(Causality::Output) {
                g.output_names.push(format!("{name}.{}", v.name));
                g.output_units.push(v.unit.clone());
                g.output_types.push(v.port_type);
                g.output_vrs.push(v.value_ref);
                g.output_module.push(m);
            }
            g.output_ranges.push(start..g.output_names.len());
            let start = g.input_names.len();
            for v in desc.with_causality(Causality::Input) {
                g.input_names.push(format!("{name}.{}", v.name));
                g.input_units.push(v.unit.clone());
                g.input_types.push(v.port_type);
                g.input_vrs.push(v.value_ref);
                g.input_module.push(m);
            }
            g.input_ranges.push(start..g.input_names.len());
            lookup.add_module(&g, m, desc);
            g.add_feedthrough(&lookup, m, desc, &mut entries, &mut feedthrough);
        }
        lookup.variable_start.push(lookup.variables.len());
        feedthrough.dedup();
        g.module_by_name = NameIndex::new(&g.module_names);
        g.output_by_name = NameIndex::new(&g.output_names);
        g.input_by_name = NameIndex::new(&g.input_names);
        (g, lookup, feedthrough)
    }

    /// The type of each stacked output (Float64 for every built-in module).
    pub fn output_types(&self) -> &[PortType] {
        &self.output_types
    }

    /// Resolves `module.variable` to a global port index of the wanted side.
    fn find_port(
        &self,
        modules: &[(String, ModuleDescription)],
        lookup: &PortLookup,
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
        // The first variable of that name, as `ModuleDescription::variable` finds it.
        let var = lookup.variable(modules, m, variable).ok_or_else(unknown)?;
        let found = match side {
            PortSide::Output => self.first_output(lookup, m, var.value_ref),
            PortSide::Input => self.inputs_with(lookup, m, var.value_ref).first().copied(),
        };
        match found {
            Some(k) => Ok(k),
            None => Err(match side {
                PortSide::Output => CouplingError::NotAnOutput(port.to_string()),
                PortSide::Input => CouplingError::NotAnInput(port.to_string()),
            }),
        }
    }

    /// The first of module `m`'s outputs with value reference `vr`.
    fn first_output(&self, lookup: &PortLookup, m: usize, vr: ValueRef) -> Option<usize> {
        let range = self.output_ranges[m].clone();
        first_with(&lookup.outputs[range], |o| self.output_vrs[o], vr)
    }

    /// Module `m`'s inputs with value reference `vr`, ascending.
    fn inputs_with<'a>(&self, lookup: &'a PortLookup, m: usize, vr: ValueRef) -> &'a [usize] {
        let range = self.input_ranges[m].clone();
        all_with(&lookup.inputs[range], |i| self.input_vrs[i], vr)
    }

    /// Appends module `m`'s (input, output) pairs with direct feedthrough to `edges`,
    /// sorted: output `o` depends on input `i` when the first dependency
    /// entry of `o`'s value reference lists `i`'s (`ModuleDescription::has_feedthrough`),
    /// found from the entries instead of asking for every pair. `entries` is scratch.
    fn add_feedthrough(
        &self,
        lookup: &PortLookup,
        m: usize,
        desc: &ModuleDescription,
        entries: &mut Vec<usize>,
        edges: &mut Vec<(usize, usize)>,
    ) {
        let deps = &desc.output_dependencies;
        if deps.is_empty() || self.input_ranges[m].is_empty() {
            return;
        }
        entries.clear();
        entries.extend(0..deps.len());
        sort_by_key_then_position(entries, |d| deps[d].output);
        let first = edges.len();
        for o in self.output_ranges[m].clone() {
            let Some(d) = first_with(entries, |d| deps[d].output, self.output_vrs[o]) else {
                continue;
            };
            for &(input_vr, _) in &deps[d].inputs {
                for &i in self.inputs_with(lookup, m, input_vr) {
                    edges.push((i, o));
                }
            }
        }
        // Input ranges ascend with the module, so the whole list stays sorted; the caller's
        // `dedup` removes repeats.
        edges[first..].sort_unstable();
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
        self.module_by_name.find(&self.module_names, name)
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
        self.output_by_name.find(&self.output_names, name)
    }

    /// Global index of the input named `module.variable`.
    pub fn input_index(&self, name: &str) -> Option<usize> {
        self.input_by_name.find(&self.input_names, name)
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
    /// (docs/methods.md §2.2). Built on each call, dense: O(n_u · n_y) time
    /// and memory, for the analysis and the corrector of small systems; the graph itself
    /// stores only [`Self::source_of_input`].
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

impl PortLookup {
    /// Adds module `m`, whose ports `g` already holds: its variables by name, its outputs
    /// and inputs by value reference.
    fn add_module(&mut self, g: &CouplingGraph, m: usize, desc: &ModuleDescription) {
        let start = self.variables.len();
        self.variable_start.push(start);
        let vars = &desc.variables;
        if vars.len() > SCAN_VARIABLES {
            self.variables.extend(0..vars.len());
            sort_by_key_then_position(&mut self.variables[start..], |v| vars[v].name.as_str());
        }
        for (sorted, range, vrs) in [
            (&mut self.outputs, &g.output_ranges[m], &g.output_vrs),
            (&mut self.inputs, &g.input_ranges[m], &g.input_vrs),
        ] {
            sorted.extend(range.clone());
            sort_by_key_then_position(&mut sorted[range.clone()], |p| vrs[p]);
        }
    }

    /// The first variable of module `m` named `name`.
    fn variable<'a>(
        &self,
        modules: &'a [(String, ModuleDescription)],
        m: usize,
        name: &str,
    ) -> Option<&'a Variable> {
        let vars = &modules[m].1.variables;
        if vars.len() <= SCAN_VARIABLES {
            return vars.iter().find(|v| v.name == name);
        }
        let sorted = &self.variables[self.variable_start[m]..self.variable_start[m + 1]];
        first_with(sorted, |v| vars[v].name.as_str(), name).map(|v| &vars[v])
    }
}
