//! Sweeps through a [`ModuleFactory`] that is not a scenario: the analysis needs only
//! blocks, a coupling matrix, a method and a way to rebuild modules.

use super::*;
use crate::analysis::PropagationMethod;
use crate::coupling::CouplingGraph;
use crate::master::Scheme;
use crate::models::{instantiate, two_mass_oscillator::MASS1_ID, two_mass_oscillator::MASS2_ID};
use crate::module::{InstantiateOptions, Module, ModuleDescription, Subsystem};
use crate::scenario::preset;
use crate::solvers::SolverSpec;
use crate::time::FixedGrid;
use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::sync::atomic::{AtomicUsize, Ordering};

/// The two masses by model id with one solver, counting the instances made.
#[derive(Debug)]
struct TwoMasses {
    solver: SolverSpec,
    made: AtomicUsize,
}

impl TwoMasses {
    fn build(&self, m: usize, params: &[(&str, f64)]) -> Result<Box<dyn Module>, String> {
        let map: BTreeMap<String, f64> = params.iter().map(|(k, v)| ((*k).into(), *v)).collect();
        instantiate([MASS1_ID, MASS2_ID][m], &map, &self.solver).map_err(|e| format!("{e}"))
    }
}

impl ModuleFactory for TwoMasses {
    fn instantiate(&self, m: usize, params: &[(&str, f64)]) -> Result<Subsystem, String> {
        self.made.fetch_add(1, Ordering::Relaxed);
        let module = self.build(m, params)?;
        Subsystem::instantiate(module, InstantiateOptions::default()).map_err(|e| format!("{e}"))
    }

    fn check_parameter(&self, m: usize, name: &str) -> Result<(), String> {
        self.build(m, &[(name, 1.0)]).map(|_| ())
    }
}

fn analysis(solver: SolverSpec) -> (LinearAnalysis, Arc<TwoMasses>) {
    let factory = Arc::new(TwoMasses {
        solver,
        made: AtomicUsize::new(0),
    });
    let names: Vec<String> = ["mass1", "mass2"].map(String::from).to_vec();
    let mut blocks = Vec::new();
    let mut descriptions: Vec<(String, ModuleDescription)> = Vec::new();
    for (m, name) in names.iter().enumerate() {
        let (sub, block) = factory.read(m, 0.0, &[]).expect("block");
        blocks.push(block);
        descriptions.push((name.clone(), sub.description().clone()));
    }
    let pairs = [
        ("mass2.Fk", "mass1.Fk"),
        ("mass1.s1", "mass2.s1"),
        ("mass1.v1", "mass2.v1"),
    ]
    .map(|(f, t)| (String::from(f), String::from(t)));
    let graph = CouplingGraph::build(&descriptions, &pairs).expect("graph");
    let method = PropagationMethod {
        scheme: Scheme::Jacobi,
        order: 1,
        correction: None,
    };
    let grid = FixedGrid::covering(0.0, 0.1, 1e-4);
    let a = LinearAnalysis::from_blocks(
        factory.clone(),
        names,
        blocks,
        graph.coupling_matrix(),
        method,
        grid,
    );
    (a, factory)
}

fn ck_axis(from: f64, to: f64, log: bool) -> AxisSpec {
    AxisSpec {
        parameter: "mass2.ck".into(),
        from,
        to,
        points: 5,
        log,
    }
}

#[test]
fn blocks_and_a_factory_give_what_the_scenario_gives() {
    let (a, _) = analysis(SolverSpec::Exact);
    let v = preset("two-mass-oscillator")
        .expect("preset")
        .validate()
        .expect("valid");
    let from_scenario = LinearAnalysis::new(&v).expect("linear");
    for metric in [MapMetric::SpectralRadius, MapMetric::GlobalError] {
        assert_eq!(a.evaluate(metric), from_scenario.evaluate(metric));
    }
    let ours = sweep(&a, &ck_axis(1e3, 1e7, true), MapMetric::SpectralRadius).expect("sweep");
    let theirs = sweep(
        &from_scenario,
        &ck_axis(1e3, 1e7, true),
        MapMetric::SpectralRadius,
    )
    .expect("sweep");
    assert_eq!(ours, theirs);
}

/// A sweep reads every point through one kept instance of the module it changes.
#[test]
fn a_sweep_keeps_one_instance_of_the_module_it_changes() {
    for solver in [SolverSpec::Exact, SolverSpec::Rk4 { step: 1e-5 }] {
        let (a, factory) = analysis(solver.clone());
        let before = factory.made.load(Ordering::Relaxed);
        let cells = sweep(&a, &ck_axis(1e3, 1e7, true), MapMetric::SpectralRadius).expect("sweep");
        assert_eq!(
            factory.made.load(Ordering::Relaxed) - before,
            1,
            "{solver:?}"
        );
        assert!(
            cells.iter().all(|(_, c)| c.status == CellStatus::Ok),
            "{cells:?}"
        );
    }
}

/// A value the module refuses is rebuilt by the factory, whose error fails that point
/// only and names the module.
#[test]
fn a_refused_value_fails_its_point_naming_the_module() {
    let (a, _) = analysis(SolverSpec::Exact);
    let cells = sweep(&a, &ck_axis(2e5, -2e5, false), MapMetric::SpectralRadius).expect("sweep");
    for (ck, cell) in &cells {
        match &cell.status {
            CellStatus::Failed(e) => {
                let text = format!("{e}");
                assert!(*ck < 0.0, "{ck}: {text}");
                assert!(
                    text.contains("module `mass2`") && text.contains("`ck`"),
                    "{text}"
                );
            }
            status => assert!(*ck >= 0.0 && cell.value.is_finite(), "{ck}: {status:?}"),
        }
    }
    assert_eq!(cells.iter().filter(|(ck, _)| *ck < 0.0).count(), 2);
}
