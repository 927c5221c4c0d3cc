//! Parameter sweeps of propagation-matrix metrics over any module or method parameter:
//! maps in tiles ([`ParameterMap`]), one-dimensional sweeps ([`sweep`]) and stability
//! crossings ([`stability_crossings`]) (seed 000, Figs. 4–7, Table 1). A
//! [`LinearAnalysis`] holds the linear blocks, coupling and method; the modules a point
//! changes are rebuilt through its [`ModuleFactory`].

mod axis;
mod cell;
mod crossings;
mod linear_analysis;
mod live;
mod map;
mod module_factory;
mod parameter;

#[cfg(test)]
mod factory_tests;
#[cfg(test)]
pub(crate) mod tests;

pub use axis::{Axis, AxisSpec, MAX_AXIS_POINTS};
pub use cell::{Cell, CellStatus, MapMetric};
pub use crossings::{stability_crossings, Crossing};
pub use linear_analysis::{LinearAnalysis, CORRECTOR_CONDITION_LIMIT};
pub use map::{sweep, MapTile, ParameterMap};
pub use module_factory::ModuleFactory;
pub use parameter::Parameter;
