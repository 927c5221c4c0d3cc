//! The energy-benchmark presets (docs/energy-benchmarks.md) show what their descriptions
//! say: the nonlinear oscillator's drift and the ν sweep, the damped case corrected
//! without an integral term, the multiple oscillator kept within about 1 %, the pendula's
//! slow growth removed, and the crane's δP spike where its response oscillates.

use super::*;
use crate::master::energy::EnergyPoint;
use crate::simulation::Simulation;

/// Runs preset `id` to its end (without the reference unless `reference`).
fn run(id: &str, reference: bool) -> Simulation {
    let mut s = preset(id).unwrap_or_else(|| panic!("preset {id}"));
    s.reference = reference;
    let v = s.validate().unwrap_or_else(|e| panic!("{id}: {e}"));
    let mut sim = Simulation::new(&v).unwrap_or_else(|e| panic!("{id}: {e}"));
    sim.run_to_end().unwrap_or_else(|e| panic!("{id}: {e}"));
    sim
}

fn points(sim: &Simulation) -> &[EnergyPoint] {
    &sim.energy_monitor().expect("bonds are monitored").points
}

/// E(T)/E0 and the mean δP of preset `id`.
fn ratio_and_mean_dp(id: &str) -> (f64, f64) {
    let e = run(id, false).energy_summary().expect(id);
    (e.e_end / e.e0, e.mean_dp)
}

#[test]
fn nonlinear_oscillator_drifts_and_the_nu_sweep_removes_more_with_larger_nu() {
    let (uncorrected, dp) = ratio_and_mean_dp("energy-nonlinear-uncorrected");
    assert!(
        (uncorrected - 1.227).abs() < 0.002 && dp > 0.0,
        "{uncorrected} {dp}"
    );
    let mut last = uncorrected;
    for (id, expected) in [
        ("energy-nonlinear-nu-0", 1.056),
        ("energy-nonlinear-nu-010", 1.038),
        ("energy-nonlinear-nu-025", 1.031),
        ("energy-nonlinear-nu-050", 1.021),
    ] {
        let (ratio, _) = ratio_and_mean_dp(id);
        assert!((ratio - expected).abs() < 0.002, "{id}: {ratio}");
        assert!(ratio < last, "{id}: {ratio} not below {last}");
        last = ratio;
    }
}

#[test]
fn damped_nonlinear_oscillator_is_corrected_without_an_integral_term() {
    let e = run("energy-nonlinear-damped", true)
        .energy_summary()
        .expect("summary");
    let reference = e.e_ref_end.expect("reference") / e.e0;
    assert!(((e.e_end / e.e0) - reference).abs() < 0.005, "{e:?}");
    let mut s = preset("energy-nonlinear-damped").expect("preset");
    s.master.energy_correction = None;
    s.reference = false;
    let mut sim = Simulation::new(&s.validate().expect("valid")).expect("builds");
    sim.run_to_end().expect("runs");
    let uncorrected = sim.energy_summary().expect("summary");
    assert!(uncorrected.e_end / uncorrected.e0 > reference + 0.1);
}

#[test]
fn multiple_oscillator_stays_within_about_one_percent() {
    for id in ["energy-multiple-3", "energy-multiple-5"] {
        let sim = run(id, false);
        let p = points(&sim);
        let e0 = p[0].energy;
        let worst = p
            .iter()
            .map(|q| (q.energy / e0 - 1.0).abs())
            .fold(0.0, f64::max);
        assert!(worst < 0.011, "{id}: {worst}");
    }
}

#[test]
fn pendula_grow_slowly_and_the_correction_removes_it() {
    let sim = run("energy-pendula-uncorrected", false);
    let e = sim.energy_summary().expect("summary");
    let gain = e.e_end - e.e0;
    assert!(gain > 0.9 && gain < 1.0 && e.mean_dp > 0.0, "{e:?}");
    let e = run("energy-pendula-corrected", false)
        .energy_summary()
        .expect("summary");
    assert!((e.e_end - e.e0).abs() < 0.01, "{e:?}");
}

#[test]
fn crane_dp_spikes_where_its_response_oscillates() {
    // Largest |δP| in [from, to) s of a run recorded every macro-step.
    let largest = |sim: &Simulation, from: f64, to: f64| {
        let times = &sim.result().time;
        points(sim)
            .iter()
            .zip(times)
            .filter(|(_, t)| **t >= from && **t < to)
            .map(|(p, _)| p.dp_total.abs())
            .fold(0.0, f64::max)
    };
    let sim = run("energy-crane-uncorrected", false);
    assert!(largest(&sim, 0.0, 2.0) < 200.0);
    assert!(largest(&sim, 3.0, 9.0) > 1000.0);
    let sim = run("energy-crane-corrected", false);
    assert!(largest(&sim, 0.0, 10.0) < 200.0);
}
