//! Behaviour of the explicit masters and the run driver, checked with [`super::mock`]
//! modules whose exact results are known.

mod convergence;
mod driver;
mod events;
mod failures;
mod feedback;
mod initialize;
mod sequence;
mod two_mass;

use super::mock::MockModule;
use super::{CoupledSystem, ExplicitCoupling, Run, TimeSeriesRecorder};
use crate::error::MasterError;
use crate::module::Module;
use crate::time::FixedGrid;
use alloc::boxed::Box;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

/// A coupled system of mocks, connections as `("a.y", "b.u")`.
fn system(modules: Vec<(&str, MockModule)>, connections: &[(&str, &str)]) -> CoupledSystem {
    let modules: Vec<(String, Box<dyn Module>)> = modules
        .into_iter()
        .map(|(n, m)| (n.to_string(), Box::new(m) as Box<dyn Module>))
        .collect();
    let connections: Vec<(String, String)> = connections
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    match CoupledSystem::new(modules, &connections) {
        Ok(s) => s,
        Err(e) => panic!("test system does not build: {e}"),
    }
}

/// Runs to the end in one call and records every communication point.
fn run_all(
    sys: CoupledSystem,
    algorithm: ExplicitCoupling,
    grid: FixedGrid,
    history: Option<Vec<(f64, Vec<f64>)>>,
) -> Result<(Run, TimeSeriesRecorder), MasterError> {
    let mut run = Run::new(sys, Box::new(algorithm), grid, history)?;
    let mut rec = TimeSeriesRecorder::new();
    let finished = run.advance(u32::MAX, &mut rec)?;
    assert!(finished);
    Ok((run, rec))
}
