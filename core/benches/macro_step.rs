//! Macro-steps per second of the `two-mass-oscillator` preset (Jacobi, first-order
//! extrapolation, exact subsystem steps), natively with criterion. `cargo xtask bench` runs
//! it and times the same scenario as wasm in Chromium (`www/bench.html`), so the two
//! numbers in docs/benchmarks.md compare like with like.
//!
//! Only `Simulation::advance` is timed, with the monolithic reference switched off: it is
//! sampled as the run advances, so it would be timed with the master.
use cosim_core::scenario::{self, ValidatedScenario};
use cosim_core::simulation::Simulation;
use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};

/// Macro-steps per timed run; `www/bench.js` uses the same default.
const STEPS: u32 = 10_000;

/// The preset, stretched to exactly `STEPS` macro-steps, without reference.
fn scenario() -> ValidatedScenario {
    let mut s = scenario::preset("two-mass-oscillator").expect("the preset exists");
    s.run.stop = s.run.start + f64::from(STEPS) * s.master.macro_step;
    s.reference = false;
    s.validate().expect("the preset is valid")
}

fn macro_step(c: &mut Criterion) {
    let v = scenario();
    let mut group = c.benchmark_group("macro_step");
    group.throughput(Throughput::Elements(u64::from(STEPS)));
    group.sample_size(20);
    group.bench_function("two-mass-oscillator", |b| {
        b.iter_batched(
            || Simulation::new(&v).expect("the preset instantiates"),
            |mut sim| {
                let done = sim.advance(STEPS).expect("the preset runs");
                assert!(done && sim.steps_done() == STEPS);
                sim // dropped outside the timed part
            },
            BatchSize::LargeInput,
        )
    });
    group.finish();
}

criterion_group!(benches, macro_step);
criterion_main!(benches);
