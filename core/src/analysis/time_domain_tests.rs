//! Propagation matrices against the time-domain master ([`crate::simulation::Simulation`]):
//! iterating Φ reproduces the run step for step, and `ρ(Φ)` is the growth per step of the
//! simulated response (style note item 16).

use crate::analysis::sweep::LinearAnalysis;
use crate::analysis::{spectral_radius, MonolithicReference, PropagationMatrix};
use crate::scenario::{preset, Algorithm, RunSpec, Scenario};
use crate::simulation::Simulation;
use alloc::vec;
use alloc::vec::Vec;
use nalgebra::DVector;

fn scenario(algorithm: Algorithm, sequence: &[&str], order: u32, h: f64, steps: u32) -> Scenario {
    let mut s: Scenario = preset("two-mass-oscillator").expect("preset");
    s.master.algorithm = algorithm;
    s.master.sequence = sequence.iter().map(|n| (*n).into()).collect();
    s.master.extrapolation_order = order;
    s.master.macro_step = h;
    s.run = RunSpec {
        start: 0.0,
        stop: f64::from(steps) * h,
    };
    s
}

/// Outputs after steps 1..=N from Φ with the exact start-up history (as `exact_history`).
fn iterate_phi(s: &Scenario, steps: u32) -> (f64, Vec<Vec<f64>>) {
    let a = LinearAnalysis::new(&s.validate().expect("valid")).expect("analysis");
    let pm = PropagationMatrix::build(a.blocks(), a.coupling(), a.method(), a.macro_step())
        .expect("phi");
    let r = MonolithicReference::new(a.blocks(), a.coupling()).expect("reference");
    let h = a.macro_step();
    let p = s.master.extrapolation_order;
    let mut history = vec![r.c_star() * r.x0()];
    let past = r.outputs_at_negative_offsets(h, p).expect("history");
    history.extend(past.iter().rev().map(|y| DVector::from_column_slice(y)));
    let mut z = pm.initial_vector(r.x0(), &history).expect("z0");
    let y = pm.layout().y(0);
    let mut out = Vec::new();
    for _ in 0..steps {
        z = pm.phi() * z;
        out.push(z.rows(y.start, y.len()).iter().copied().collect());
    }
    (spectral_radius(pm.phi()).expect("rho"), out)
}

fn simulate(s: &Scenario) -> Vec<Vec<f64>> {
    let mut sim = Simulation::new(&s.validate().expect("valid")).expect("simulation");
    sim.run_to_end().expect("run");
    let sig = &sim.result().signals;
    (1..sim.result().time.len())
        .map(|i| sig.iter().map(|s| s.cosim[i]).collect())
        .collect()
}

#[test]
fn iterating_phi_reproduces_jacobi_and_gauss_seidel_runs() {
    let steps = 300;
    let cases = [
        (Algorithm::Jacobi, &[][..], 2, 1e-4),
        (Algorithm::Jacobi, &[][..], 4, 1e-4),
        (Algorithm::GaussSeidel, &["mass1", "mass2"][..], 1, 1e-4),
        (Algorithm::GaussSeidel, &["mass2", "mass1"][..], 3, 5e-5),
        (Algorithm::GaussSeidel, &["mass2", "mass1"][..], 0, 1e-4),
    ];
    for (alg, seq, p, h) in cases {
        let s = scenario(alg, seq, p, h, steps);
        let (_, phi) = iterate_phi(&s, steps);
        let sim = simulate(&s);
        assert_eq!(sim.len(), phi.len());
        for j in 0..3 {
            let scale = sim.iter().map(|y| libm::fabs(y[j])).fold(0.0, f64::max);
            let err = sim
                .iter()
                .zip(&phi)
                .map(|(a, b)| libm::fabs(a[j] - b[j]))
                .fold(0.0, f64::max);
            assert!(
                err <= 1e-9 * scale,
                "{alg:?} {seq:?} p = {p}: output {j} differs by {err:e} (scale {scale:e})"
            );
        }
    }
}

/// Growth per step of the simulated `s1` between windows ending at 3/4 and at the end of
/// the run (late enough for the dominant mode to dominate).
fn growth_per_step(y: &[Vec<f64>], window: usize) -> f64 {
    let amp =
        |r: core::ops::Range<usize>| y[r].iter().map(|v| libm::fabs(v[0])).fold(0.0, f64::max);
    let n = y.len();
    let mid = 3 * n / 4;
    let (early, late) = (amp(mid - window..mid), amp(n - window..n));
    libm::pow(late / early, 1.0 / (n - mid) as f64)
}

#[test]
fn spectral_radius_matches_decay_and_growth_of_the_simulated_response() {
    // Stable: ZOH at 1e-5 with extra damping (ρ < 1); unstable: 4th-order hold at
    // 2.5e-4 (above the 1.772e-4 limit, ρ > 1).
    let mut stable = scenario(Algorithm::Jacobi, &[], 0, 1e-5, 20_000);
    stable.modules[0].parameters.insert("d1".into(), 200.0);
    stable.modules[1].parameters.insert("d2".into(), 200.0);
    let unstable = scenario(Algorithm::Jacobi, &[], 4, 2.5e-4, 1200);
    for (s, window, stable_expected) in [(stable, 2000, true), (unstable, 40, false)] {
        let n = ((s.run.stop - s.run.start) / s.master.macro_step).round() as u32;
        let (rho, _) = iterate_phi(&s, 1);
        let sim = simulate(&s);
        assert_eq!(sim.len(), n as usize);
        let g = growth_per_step(&sim, window);
        assert_eq!(rho <= 1.0, stable_expected, "ρ = {rho}");
        assert_eq!(g < 1.0, stable_expected, "growth {g}");
        // Same rate: ln g / ln ρ close to 1.
        let ratio = libm::log(g) / libm::log(rho);
        assert!(
            (0.9..=1.1).contains(&ratio),
            "ρ = {rho}, simulated growth per step {g}"
        );
    }
}
