//! Accepted macro-steps per second of runs whose macro-step a controller chooses, next to
//! fixed-step runs of the same example, natively with criterion. `cargo xtask bench
//! --controlled` runs it and times the same cases as wasm in Chromium (`www/bench.html`
//! with `mode=to-end`), so the numbers in docs/benchmarks.md compare like with like.
//!
//! Each case runs a preset (reference off) to its stop time; the throughput is the number
//! of accepted steps, counted in an untimed run first. Cases are `label = preset` or
//! `label = preset|fixed` (no controller) or `preset|plain` (no defects either), run with the fixed step given: the list
//! is [`CASES`]; `www/bench.js` takes the same `preset|variant` syntax.
use cosim_core::scenario::{self, Scenario, ValidatedScenario};
use cosim_core::simulation::Simulation;
use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};

/// `(label, preset, fixed step for the variants)`: seed 003's Algorithm 1 with the PI
/// controller, its fixed-step variant and plain Jacobi on the same rotational pair; seed
/// 002's error-controlled explicit and implicit runs of Example 1 and the chain.
const CASES: &[(&str, &str, Option<f64>)] = &[
    ("defect-pi", "defect-exact-variable-step", None),
    (
        "defect-fixed",
        "defect-exact-variable-step|fixed",
        Some(0.2),
    ),
    (
        "jacobi-fixed",
        "defect-exact-variable-step|plain",
        Some(0.2),
    ),
    ("example1-ex-milne", "contact-oscillator-ex-milne", None),
    ("example1-im-milne", "contact-oscillator-im-milne", None),
    ("chain-explicit", "mass-chain-explicit-low-damping", None),
    ("chain-implicit", "mass-chain-implicit-low-damping", None),
];

/// The case's scenario: the preset, reference off, then the variant.
fn scenario(spec: &str, h: Option<f64>) -> ValidatedScenario {
    let (id, variant) = spec.split_once('|').unwrap_or((spec, ""));
    let mut s: Scenario = scenario::preset(id).expect("the preset exists");
    s.reference = false;
    match variant {
        "" => {}
        // Algorithm 1 on a fixed grid: defects measured, no controller.
        "fixed" => s.master.step_control = None,
        // Plain Jacobi, zero-order hold: neither defects nor controller.
        "plain" => {
            s.master.step_control = None;
            s.master.defects = None;
        }
        other => panic!("unknown variant {other}"),
    }
    if let Some(h) = h {
        s.master.macro_step = h;
    }
    s.validate().expect("the case is valid")
}

fn controlled_steps(c: &mut Criterion) {
    let mut group = c.benchmark_group("controlled_steps");
    // The chain runs take a good part of a second each: the fewest samples criterion allows.
    group.sample_size(10);
    // `cargo xtask bench --controlled` reads the cases (label, preset spec, h, accepted
    // steps) from here to run the same ones in the browser.
    let mut listing = String::new();
    for &(label, spec, h) in CASES {
        let v = scenario(spec, h);
        let mut probe = Simulation::new(&v).expect("instantiates");
        probe.run_to_end().expect("runs");
        let accepted = probe.stats().accepted;
        let h = h.map(|h| h.to_string()).unwrap_or_default();
        listing.push_str(&format!("{label} {spec} {h} {accepted}\n"));
        group.throughput(Throughput::Elements(u64::from(accepted)));
        group.bench_function(label, |b| {
            b.iter_batched(
                || Simulation::new(&v).expect("instantiates"),
                |mut sim| {
                    sim.run_to_end().expect("runs");
                    assert_eq!(sim.stats().accepted, accepted);
                    sim // dropped outside the timed part
                },
                BatchSize::LargeInput,
            )
        });
    }
    group.finish();
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/criterion");
    if std::fs::create_dir_all(&dir).is_ok() {
        let _ = std::fs::write(dir.join("controlled_steps_cases.txt"), listing);
    }
}

criterion_group!(benches, controlled_steps);
criterion_main!(benches);
