//! Connections `u = L y` between modules, validated into a coupling graph.

mod graph;
mod index;
mod port_graph;
#[cfg(test)]
pub(crate) mod tests;

pub use graph::{CouplingGraph, Port};
