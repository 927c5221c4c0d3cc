//! Behaviour of the explicit masters and the run driver, checked with [`crate::testing::mock`]
//! modules whose exact results are known.

mod convergence;
mod driver;
mod events;
mod failures;
mod feedback;
mod initialize;
mod sequence;
mod two_mass;

use super::{CoupledSystem, ExplicitCoupling, Run, TimeSeriesRecorder};
use crate::analysis::{LinearBlock, MonolithicReference};
use crate::error::MasterError;
use crate::models::two_mass_oscillator::{mass1_linear, mass2_linear, Mass1Params, Mass2Params};
use crate::module::Module;
use crate::testing::mock::MockModule;
use crate::time::FixedGrid;
use alloc::boxed::Box;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;

/// A coupled system of mocks, connections as `("a.y", "b.u")`.
fn system(modules: Vec<(&str, MockModule)>, connections: &[(&str, &str)]) -> CoupledSystem {
    let modules = modules
        .into_iter()
        .map(|(n, m)| (n, Box::new(m) as Box<dyn Module>))
        .collect();
    boxed_system(modules, connections)
}

/// A coupled system of any modules, connections as `("a.y", "b.u")`.
pub(super) fn boxed_system(
    modules: Vec<(&str, Box<dyn Module>)>,
    connections: &[(&str, &str)],
) -> CoupledSystem {
    let modules: Vec<(String, Box<dyn Module>)> = modules
        .into_iter()
        .map(|(n, m)| (n.to_string(), m))
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

/// Seed 000's linear two-mass oscillator as two exact modules (docs/methods.md §11.1).
pub(super) fn two_mass() -> CoupledSystem {
    boxed_system(
        vec![
            (
                "mass1",
                Box::new(mass1_linear(&Mass1Params::default()).unwrap()),
            ),
            (
                "mass2",
                Box::new(mass2_linear(&Mass2Params::default()).unwrap()),
            ),
        ],
        &[
            ("mass1.s1", "mass2.s1"),
            ("mass1.v1", "mass2.v1"),
            ("mass2.Fk", "mass1.Fk"),
        ],
    )
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

/// The two-mass oscillator initialised for `[0, t_end]`, with its exact monolithic
/// reference (docs/methods.md §10.1).
pub(super) fn two_mass_with_reference(t_end: f64) -> (CoupledSystem, MonolithicReference) {
    let mut sys = two_mass();
    sys.initialize(0.0, t_end).unwrap();
    let blocks: Vec<LinearBlock> = sys
        .modules_mut()
        .map(|(_, s)| LinearBlock::from_subsystem(s).unwrap())
        .collect();
    let reference = MonolithicReference::new(&blocks, &sys.graph().coupling_matrix()).unwrap();
    (sys, reference)
}
