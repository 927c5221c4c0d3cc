//! [`DefectPorts`]: where the defect master reads and writes, fixed for a run. The ports it
//! watches are the connected outputs (each feeds at least one input); their derivative
//! samples are read after every step, and their midpoint samples when the module provides
//! them. Unconnected outputs are only recorded, like in every other master.
//!
//! Each call is batched per module: one `set_input_derivatives` with every input's orders
//! `1..=m`, one `get_output_derivatives` with every watched output's orders `1..=n`, one
//! `get_midpoint_outputs`, so the argument arrays are built here once.

use crate::coupling::CouplingGraph;
use crate::master::CoupledSystem;
use crate::module::ValueRef;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use core::ops::Range;

/// The watched ports and the argument arrays of the batched calls.
#[derive(Clone, Debug)]
pub(super) struct DefectPorts {
    /// Output order `n` and input order `m`.
    pub n: usize,
    pub m: usize,
    /// Global output index of each watched port (connected outputs, in stacking order).
    pub outputs: Vec<usize>,
    /// Per module: its watched ports, a range into [`Self::outputs`].
    pub module_ports: Vec<Range<usize>>,
    /// Per global input: the watched port of its source.
    pub source_port: Vec<usize>,
    /// Per watched port: whether its module provides midpoint samples.
    pub has_midpoint: Vec<bool>,
    /// Output derivative call arguments, `n` entries per watched port (orders `1..=n`).
    pub out_vrs: Vec<ValueRef>,
    pub out_orders: Vec<u32>,
    /// Midpoint call arguments, one per watched port.
    pub mid_vrs: Vec<ValueRef>,
    /// Input derivative call arguments, `m` entries per global input (orders `1..=m`).
    pub in_vrs: Vec<ValueRef>,
    pub in_orders: Vec<u32>,
}

impl DefectPorts {
    pub fn new(sys: &CoupledSystem, n: usize, m: usize) -> Self {
        let g = sys.graph();
        let mut connected = vec![false; g.n_outputs()];
        for i in 0..g.n_inputs() {
            connected[g.source_of_input(i)] = true;
        }
        let outputs: Vec<usize> = (0..g.n_outputs()).filter(|&o| connected[o]).collect();
        let mut port_of = vec![usize::MAX; g.n_outputs()];
        for (k, &o) in outputs.iter().enumerate() {
            port_of[o] = k;
        }
        let module_ports = (0..g.n_modules())
            .map(|mo| {
                let r = g.output_range(mo);
                let start = outputs.partition_point(|&o| o < r.start);
                let end = outputs.partition_point(|&o| o < r.end);
                start..end
            })
            .collect();
        let has_midpoint = outputs
            .iter()
            .map(|&o| {
                let caps = &sys.subsystem(g.output_module(o)).description().capabilities;
                caps.x_provides_midpoint_outputs
            })
            .collect();
        let source_port = (0..g.n_inputs())
            .map(|i| port_of[g.source_of_input(i)])
            .collect();
        let (out_vrs, out_orders) = derivative_args(&outputs, n, |o| g.output_value_ref(o));
        let inputs: Vec<usize> = (0..g.n_inputs()).collect();
        let (in_vrs, in_orders) = derivative_args(&inputs, m, |i| g.input_value_ref(i));
        let mid_vrs = outputs.iter().map(|&o| g.output_value_ref(o)).collect();
        DefectPorts {
            n,
            m,
            outputs,
            module_ports,
            source_port,
            has_midpoint,
            out_vrs,
            out_orders,
            mid_vrs,
            in_vrs,
            in_orders,
        }
    }

    /// Names (`module.output`) of the watched ports that have midpoint samples.
    pub fn estimated_output_names(&self, g: &CouplingGraph) -> Vec<String> {
        self.outputs
            .iter()
            .zip(&self.has_midpoint)
            .filter(|(_, &has)| has)
            .map(|(&o, _)| g.output_name(o).into())
            .collect()
    }

    /// Whether module `mo` has a watched port.
    pub fn watches(&self, mo: usize) -> bool {
        !self.module_ports[mo].is_empty()
    }
}

/// `k` entries per port: the port's value reference with orders `1..=k`.
fn derivative_args(
    ports: &[usize],
    k: usize,
    vr: impl Fn(usize) -> ValueRef,
) -> (Vec<ValueRef>, Vec<u32>) {
    let mut vrs = Vec::with_capacity(ports.len() * k);
    let mut orders = Vec::with_capacity(ports.len() * k);
    for &p in ports {
        for j in 1..=k {
            vrs.push(vr(p));
            orders.push(j as u32);
        }
    }
    (vrs, orders)
}
