//! Time per point of a stability map (seed 000, Fig. 4(b)): ρ(Φ) of the two-mass
//! oscillator with zero-order hold and model-based correction (α = 1, ΔT = 10^-3.5 s) on a
//! 256 × 256 log map c_k ∈ [1, 1e10] N/m × d_k ∈ [1, 1e7] N·s/m. Eight rows spread over
//! the map are timed (2,048 points); criterion reports points per second.
//!
//! One point is what a Web Worker tile or a `cosim map` thread does per cell: build the
//! mass-2 module with the cell's parameters, read its linear block through FMI calls, two
//! augmented matrix exponentials, Φ column by column (13 × 13), balancing and the Schur
//! eigenvalues. `bench/numpy_map.py` times the same per-point computation in NumPy/SciPy.
use cosim_core::analysis::sweep::{LinearAnalysis, MapMetric, ParameterMap};
use cosim_core::scenario::{self, AxisSpec, CorrectionSpec, JacobianSource};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

/// Map side (points per axis).
const SIDE: u32 = 256;
/// Rows timed per iteration, evenly spread over the map.
const ROWS: u32 = 8;

fn map() -> ParameterMap {
    let mut s = scenario::preset("two-mass-oscillator").expect("the preset exists");
    s.master.extrapolation_order = 0;
    s.master.macro_step = 10f64.powf(-3.5);
    s.master.correction = Some(CorrectionSpec {
        alpha: 1.0,
        jacobians: JacobianSource::Auto,
    });
    let v = s.validate().expect("valid scenario");
    let axis = |parameter: &str, to: f64| AxisSpec {
        parameter: parameter.into(),
        from: 1.0,
        to,
        points: SIDE,
        log: true,
    };
    ParameterMap::new(
        LinearAnalysis::new(&v).expect("linear scenario"),
        &axis("mass2.ck", 1e10),
        &axis("mass2.dk", 1e7),
        MapMetric::SpectralRadius,
    )
    .expect("valid axes")
}

fn spectral_map(c: &mut Criterion) {
    let m = map();
    let mut group = c.benchmark_group("spectral_map");
    group.throughput(Throughput::Elements(u64::from(ROWS * SIDE)));
    group.sample_size(10);
    group.bench_function("two-mass zoh+correction, 8 rows of 256", |b| {
        b.iter(|| {
            let mut sum = 0.0;
            for k in 0..ROWS {
                let r = k * (SIDE - 1) / (ROWS - 1);
                let tile = m.compute_rows(r..r + 1);
                sum += tile.values.iter().sum::<f64>();
            }
            assert!(sum.is_finite());
            sum
        })
    });
    group.finish();
}

criterion_group!(benches, spectral_map);
criterion_main!(benches);
