//! Parameter sweeps of propagation-matrix metrics over any scenario parameter: maps in
//! tiles ([`ParameterMap`]), one-dimensional sweeps ([`sweep`]) and stability crossings
//! ([`stability_crossings`]) (seed 000, Figs. 4–7, Table 1).

mod axis;
mod cell;
mod crossings;
mod linear_analysis;
mod live;
mod map;
mod parameter;

#[cfg(test)]
pub(crate) mod tests;

pub use axis::{Axis, MAX_AXIS_POINTS};
pub use cell::{Cell, CellStatus, MapMetric};
pub use crossings::{stability_crossings, Crossing};
pub use linear_analysis::{LinearAnalysis, CORRECTOR_CONDITION_LIMIT};
pub use map::{sweep, MapTile, ParameterMap};
pub use parameter::Parameter;
