//! Cost of energy monitoring and correction per macro-step (docs/methods.md §13), natively
//! with criterion: the `energy-oscillator-drift` preset (double oscillator, symplectic Euler,
//! H = 1 ms, 10 000 macro-steps) run plain (no bonds), monitored (its bond: δP, δE, E per
//! point) and corrected (μ = 0.5, cap 100 %), single-rate and multi-rate (R = 10, the
//! receiver on 0.1 ms). docs/benchmarks.md reports the times relative to the plain run.
//!
//! Only `Simulation::advance` is timed, without the monolithic reference.
use cosim_core::scenario::{self, EnergyCorrectionSpec, ValidatedScenario};
use cosim_core::simulation::Simulation;
use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};

const STEPS: u32 = 10_000;

/// The preset as `variant` (`plain`, `monitored`, `corrected`), single- or multi-rate.
fn scenario(variant: &str, multi_rate: bool) -> ValidatedScenario {
    let mut s = scenario::preset("energy-oscillator-drift").expect("the preset exists");
    s.run.stop = s.run.start + f64::from(STEPS) * s.master.macro_step;
    s.reference = false;
    if multi_rate {
        s.master.module_steps.insert("m2".into(), 1e-4);
    }
    match variant {
        "plain" => s.bonds.clear(),
        "monitored" => {}
        _ => {
            s.master.energy_correction = Some(EnergyCorrectionSpec {
                mu: None,
                nu: 0.0,
                cap: None,
            })
        }
    }
    s.validate().expect("the variant is valid")
}

fn energy(c: &mut Criterion) {
    let mut group = c.benchmark_group("energy");
    group.throughput(Throughput::Elements(u64::from(STEPS)));
    group.sample_size(20);
    for multi_rate in [false, true] {
        for variant in ["plain", "monitored", "corrected"] {
            let v = scenario(variant, multi_rate);
            let rate = if multi_rate {
                "multi-rate"
            } else {
                "single-rate"
            };
            group.bench_function(format!("{rate}/{variant}"), |b| {
                b.iter_batched(
                    || Simulation::new(&v).expect("instantiates"),
                    |mut sim| {
                        let done = sim.advance(STEPS).expect("runs");
                        assert!(done && sim.steps_done() == STEPS);
                        sim
                    },
                    BatchSize::LargeInput,
                )
            });
        }
    }
    group.finish();
}

criterion_group!(benches, energy);
criterion_main!(benches);
