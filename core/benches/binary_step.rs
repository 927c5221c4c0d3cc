//! Macro-steps per second of the two binary-module presets natively, with the wasmi
//! interpreter: the "native wasmi" column next to the page's two engines in
//! docs/benchmarks.md (`www/bench.js` times the same scenarios in Chromium).
//!
//! Same rules as `macro_step`: each preset stretched to `STEPS` macro-steps, reference off,
//! only `Simulation::advance` timed. The `.fmu` files are the tracked test fixtures, the
//! same archives `cargo xtask wasm` copies to `www/fmus/`. `module-alone/*` times the
//! preset's binary module without the master (`ModuleAlone`), as `bench.js?mode=module`.
use cosim_core::scenario::{self, ValidatedScenario, BINARY_MODEL};
use cosim_core::simulation::{ModuleAlone, Simulation};
use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};

/// Macro-steps per timed run; `www/bench.js` uses the same default.
const STEPS: u32 = 10_000;

/// The preset `id`, its `.fmu` embedded from the fixtures, stretched to `STEPS` steps.
fn scenario(id: &str) -> ValidatedScenario {
    let mut s = scenario::preset(id).expect("the preset exists");
    for url in s.binary_urls() {
        let name = url.rsplit('/').next().expect("a file name");
        let path = format!(
            "{}/../tests/fixtures/fmus/{name}",
            env!("CARGO_MANIFEST_DIR")
        );
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        s.embed_fmu(&url, &bytes);
    }
    s.run.stop = s.run.start + f64::from(STEPS) * s.master.macro_step;
    s.reference = false;
    s.validate().expect("the preset is valid")
}

fn binary_step(c: &mut Criterion) {
    let mut group = c.benchmark_group("binary_step");
    group.throughput(Throughput::Elements(u64::from(STEPS)));
    group.sample_size(10);
    for id in ["binary-rust-oscillator", "binary-c-spring-damper"] {
        let v = scenario(id);
        group.bench_function(id, |b| {
            b.iter_batched(
                || Simulation::new(&v).expect("the preset instantiates"),
                |mut sim| {
                    let done = sim.advance(STEPS).expect("the preset runs");
                    assert!(done && sim.steps_done() == STEPS);
                    sim
                },
                BatchSize::LargeInput,
            )
        });
        let binary = v.scenario.modules.iter().find(|m| m.model == BINARY_MODEL);
        let name = binary.expect("a binary module").name.clone();
        group.bench_function(format!("module-alone/{id}"), |b| {
            b.iter_batched(
                || ModuleAlone::new(&v, &name).expect("the module instantiates"),
                |mut m| {
                    m.advance(STEPS).expect("the module steps");
                    assert_eq!(m.steps_done(), STEPS);
                    m
                },
                BatchSize::LargeInput,
            )
        });
    }
    group.finish();
}

criterion_group!(benches, binary_step);
criterion_main!(benches);
