//! Build and validation time of large coupled systems: a ring of n single masses, each on
//! a spring to ground with one input (force `F`, N) and one output (its spring force
//! `Fs = c·x`, N, no feedthrough), `mass_k.Fs -> mass_{k+1}.F` and the last back to the
//! first. Three paths, each at 10^3, 10^4 and 10^5 modules (override with
//! `COSIM_CHAIN_SIZES=1000,10000`):
//!
//! - `coupling_graph_build`: [`CouplingGraph::build`] from the module descriptions;
//! - `coupled_system_new`: [`CoupledSystem::new`] with `LinearStateSpace` masses (graph
//!   plus instantiation of every module);
//! - `scenario_validate`: [`Scenario::validate`] of the same ring written as a scenario with
//!   equation modules (parsing the JSON is setup: `scenario::parse` refuses documents over
//!   4 MiB, which the 10^5 ring is, so the bench deserialises it directly).
//!
//! With `COSIM_CHAIN_ONCE=1` each path is timed once per size instead (for sizes where
//! criterion's ten samples would take too long, such as the quadratic code before the
//! sparse coupling).
//!
//! Only building is timed: results are dropped outside the timed part.
//!
//! Throughput is modules, so criterion's elements/s is the inverse of the time per module,
//! which stays constant when building is linear. Results are in docs/benchmarks.md.
use cosim_core::coupling::CouplingGraph;
use cosim_core::master::CoupledSystem;
use cosim_core::models::{LinearSpec, LinearStateSpace};
use cosim_core::module::{Module, ModuleDescription};
use cosim_core::scenario::Scenario;
use criterion::{criterion_group, BatchSize, Criterion, Throughput};
use nalgebra::{DMatrix, DVector};
use std::time::{Duration, Instant};

/// Ring sizes measured unless `COSIM_CHAIN_SIZES` lists others.
const DEFAULT_SIZES: [usize; 3] = [1_000, 10_000, 100_000];

fn sizes() -> Vec<usize> {
    match std::env::var("COSIM_CHAIN_SIZES") {
        Ok(list) => list
            .split(',')
            .map(|s| {
                s.trim()
                    .parse()
                    .expect("COSIM_CHAIN_SIZES: comma-separated counts")
            })
            .collect(),
        Err(_) => DEFAULT_SIZES.to_vec(),
    }
}

/// One mass m = 1 kg on a spring c = 1 N/m: states (x, v), input F, output Fs = c·x.
fn mass() -> LinearStateSpace {
    let strings = |s: &[&str]| s.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    LinearStateSpace::new(LinearSpec {
        model_name: "Mass".into(),
        a: DMatrix::from_row_slice(2, 2, &[0.0, 1.0, -1.0, 0.0]),
        b: DMatrix::from_row_slice(2, 1, &[0.0, 1.0]),
        c: DMatrix::from_row_slice(1, 2, &[1.0, 0.0]),
        d: DMatrix::zeros(1, 1),
        x0: DVector::from_row_slice(&[0.0, 0.0]),
        state_names: strings(&["x", "v"]),
        state_units: strings(&["m", "m/s"]),
        input_names: strings(&["F"]),
        input_units: strings(&["N"]),
        output_names: strings(&["Fs"]),
        output_units: strings(&["N"]),
        parameters: Vec::new(),
        matrices_of: None,
    })
    .expect("the mass is well formed")
}

/// The same mass as an equation module.
const MASS_SOURCE: &str = "\
parameter m = 1 \"kg\"
parameter c = 1 \"N/m\"
input F \"N\"
state x = 0 \"m\"
state v = 0 \"m/s\"
der(x) = v
der(v) = (F - c*x)/m
output Fs \"N\" = c*x
";

fn name(k: usize) -> String {
    format!("mass{k}")
}

/// `mass_{k-1}.Fs -> mass_k.F` for every k, mass 0 fed by the last.
fn ring_connections(n: usize) -> Vec<(String, String)> {
    (0..n)
        .map(|k| {
            (
                format!("{}.Fs", name((k + n - 1) % n)),
                format!("{}.F", name(k)),
            )
        })
        .collect()
}

fn ring_scenario_json(n: usize) -> String {
    let source = serde_json::to_string(MASS_SOURCE).expect("a string serialises");
    let modules: Vec<String> = (0..n)
        .map(|k| {
            format!(
                r#"{{"name":"{}","model":"Equations","source":{source}}}"#,
                name(k)
            )
        })
        .collect();
    let connections: Vec<String> = ring_connections(n)
        .iter()
        .map(|(from, to)| format!(r#"{{"from":"{from}","to":"{to}"}}"#))
        .collect();
    format!(
        r#"{{"schema_version":1,"modules":[{}],"connections":[{}],
        "master":{{"algorithm":"jacobi","macro_step":0.01}},"run":{{"stop":1}},"reference":false}}"#,
        modules.join(","),
        connections.join(",")
    )
}

fn coupling_graph_build(c: &mut Criterion) {
    let mut group = c.benchmark_group("coupling_graph_build");
    configure(&mut group);
    let description = mass().description().clone();
    for n in sizes() {
        let modules: Vec<(String, ModuleDescription)> =
            (0..n).map(|k| (name(k), description.clone())).collect();
        let connections = ring_connections(n);
        group.throughput(Throughput::Elements(n as u64));
        group.bench_function(n.to_string(), |b| {
            b.iter_with_large_drop(|| {
                CouplingGraph::build(&modules, &connections).expect("the ring is valid")
            })
        });
    }
    group.finish();
}

fn coupled_system_new(c: &mut Criterion) {
    let mut group = c.benchmark_group("coupled_system_new");
    configure(&mut group);
    let mass = mass();
    for n in sizes() {
        let connections = ring_connections(n);
        group.throughput(Throughput::Elements(n as u64));
        group.bench_function(n.to_string(), |b| {
            b.iter_batched(
                || {
                    (0..n)
                        .map(|k| (name(k), Box::new(mass.clone()) as Box<dyn Module>))
                        .collect::<Vec<_>>()
                },
                |modules| {
                    // Returned, so it is dropped outside the timed part.
                    CoupledSystem::new(modules, &connections).expect("the ring is valid")
                },
                BatchSize::LargeInput,
            )
        });
    }
    group.finish();
}

fn scenario_validate(c: &mut Criterion) {
    let mut group = c.benchmark_group("scenario_validate");
    configure(&mut group);
    for n in sizes() {
        let scenario: Scenario =
            serde_json::from_str(&ring_scenario_json(n)).expect("the ring scenario parses");
        group.throughput(Throughput::Elements(n as u64));
        group.bench_function(n.to_string(), |b| {
            b.iter_with_large_drop(|| scenario.validate().expect("the ring scenario is valid"))
        });
    }
    group.finish();
}

/// Few samples: one run at 10^5 modules takes seconds, and the machine is shared.
fn configure(group: &mut criterion::BenchmarkGroup<criterion::measurement::WallTime>) {
    group.sample_size(10);
    group.warm_up_time(Duration::from_secs(1));
    group.measurement_time(Duration::from_secs(5));
}

/// One timed run of each path per size, printed as seconds and µs per module.
fn once() {
    let report = |path: &str, n: usize, start: Instant| {
        let s = start.elapsed().as_secs_f64();
        println!("{path}/{n}: {s:.3} s ({:.2} us/module)", s * 1e6 / n as f64);
    };
    let mass = mass();
    for n in sizes() {
        let modules: Vec<(String, ModuleDescription)> = (0..n)
            .map(|k| (name(k), mass.description().clone()))
            .collect();
        let connections = ring_connections(n);
        let start = Instant::now();
        let graph = CouplingGraph::build(&modules, &connections).expect("the ring is valid");
        report("coupling_graph_build", n, start);
        drop(graph);
        let modules: Vec<(String, Box<dyn Module>)> = (0..n)
            .map(|k| (name(k), Box::new(mass.clone()) as Box<dyn Module>))
            .collect();
        let start = Instant::now();
        let system = CoupledSystem::new(modules, &connections).expect("the ring is valid");
        report("coupled_system_new", n, start);
        drop(system);
        let scenario: Scenario =
            serde_json::from_str(&ring_scenario_json(n)).expect("the ring scenario parses");
        let start = Instant::now();
        let validated = scenario.validate().expect("the ring scenario is valid");
        report("scenario_validate", n, start);
        drop(validated);
    }
}

criterion_group!(
    benches,
    coupling_graph_build,
    coupled_system_new,
    scenario_validate
);

fn main() {
    if std::env::var_os("COSIM_CHAIN_ONCE").is_some() {
        once();
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
