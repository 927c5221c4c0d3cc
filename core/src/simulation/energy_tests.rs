//! Energy monitoring, correction and multi-rate Jacobi through whole runs of the double
//! linear oscillator (docs/methods.md §13.7): the ratio of energy error to residual energy
//! against the μ rules, the sign of δP, the ten-fold reduction by the correction, and
//! multi-rate Jacobi at ratio 1 equal to plain Jacobi.

use super::Simulation;
use crate::master::energy::mu::{mu_rule, Hold};
use crate::models::double_oscillator::{
    monolithic_symplectic, total_energy, Mass1Params, Mass2Params,
};
use crate::scenario::{self, Scenario};
use alloc::format;
use alloc::vec::Vec;

/// The double oscillator over 10 s at H = 1 ms; `master` extends the master settings.
fn oscillator(master: &str) -> Scenario {
    let json = format!(
        r#"{{"schema_version": 1,
         "modules": [{{"name": "m1", "model": "DoubleOscillator.Mass1"}},
                     {{"name": "m2", "model": "DoubleOscillator.Mass2"}}],
         "connections": [{{"from": "m2.x2", "to": "m1.x2"}}, {{"from": "m2.v2", "to": "m1.v2"}},
                         {{"from": "m1.F", "to": "m2.F"}}],
         "bonds": [{{"effort": "m2.F", "flow": "m1.v2"}}],
         "master": {{"algorithm": "jacobi", "macro_step": 1e-3 {master}}},
         "run": {{"stop": 10}}, "reference": false}}"#
    );
    scenario::parse(&json).expect("the oscillator scenario parses")
}

/// What a run of the oscillator gives for the energy checks.
struct Outcome {
    /// Energy from the states (x1, v1, x2, v2) at the start and the end.
    e0: f64,
    e_end: f64,
    /// Energy the modules report at the end.
    e_reported_end: f64,
    de_end: f64,
    mean_dp: f64,
    /// ⟨v2²⟩ and ⟨v1·v2⟩ over the steps.
    v22: f64,
    v12: f64,
    /// The run's CSV, for exact-value checks.
    sim: Simulation,
}

fn column(sim: &Simulation, name: &str) -> Vec<f64> {
    let s = sim.result().signals.iter().find(|s| s.name == name);
    s.expect("the signal exists").cosim.clone()
}

fn run(s: &Scenario) -> Outcome {
    let mut sim = Simulation::new(&s.validate().expect("valid")).expect("builds");
    sim.run_to_end().expect("runs");
    let [x1, v1, x2, v2] = ["m1.x1", "m1.v1", "m2.x2", "m2.v2"].map(|n| column(&sim, n));
    let (p1, p2) = (Mass1Params::default(), Mass2Params::default());
    let energy = |k: usize| total_energy(&p1, &p2, &[x1[k], v1[k], x2[k], v2[k]]);
    let n = x1.len() - 1;
    let steps = n as f64;
    let v22 = (1..=n).map(|k| v2[k] * v2[k]).sum::<f64>() / steps;
    let v12 = (1..=n).map(|k| v1[k] * v2[k]).sum::<f64>() / steps;
    let summary = sim.energy_summary().expect("bonds are monitored");
    Outcome {
        e0: energy(0),
        e_end: energy(n),
        e_reported_end: summary.e_end,
        de_end: summary.de_end,
        mean_dp: summary.mean_dp,
        v22,
        v12,
        sim,
    }
}

impl Outcome {
    /// (E(T) − E0)/δE(T) from the states.
    fn ratio(&self) -> f64 {
        (self.e_end - self.e0) / self.de_end
    }
}

#[test]
fn undamped_single_rate_energy_grows_and_half_the_residual_energy_is_real() {
    let o = run(&oscillator(""));
    // δP > 0 on average and the energy grows: the coupling creates energy.
    assert!(o.mean_dp > 0.0, "mean δP {}", o.mean_dp);
    assert!(o.e_end > 1.5 * o.e0, "E(T)/E0 = {}", o.e_end / o.e0);
    // The preset's parameters make the velocities nearly uncorrelated.
    assert!(
        libm::fabs(o.v12) < 0.02 * o.v22,
        "⟨v1v2⟩/⟨v2²⟩ = {}",
        o.v12 / o.v22
    );
    let predicted = 0.5 * o.v22 / (o.v22 - o.v12);
    assert!(
        libm::fabs(o.ratio() - predicted) < 0.05,
        "{} vs {predicted}",
        o.ratio()
    );
    // The same with the energy the modules report (coupling spring on the held x2).
    let reported = (o.e_reported_end - o.e0) / o.de_end;
    assert!(
        libm::fabs(reported - predicted) < 0.05,
        "{reported} vs {predicted}"
    );
}

#[test]
fn residual_power_is_the_force_held_times_the_new_velocity_minus_the_reverse() {
    let o = run(&oscillator(""));
    let (f, v) = (column(&o.sim, "m1.F"), column(&o.sim, "m2.v2"));
    let points = &o.sim.energy_monitor().expect("monitored").points;
    for k in [0usize, 1, 17, 4321, 9999] {
        let dp = f[k] * v[k + 1] - f[k + 1] * v[k];
        assert_eq!(points[k + 1].dp[0], dp, "step {k}");
    }
    assert_eq!(points[0].dp[0], 0.0);
}

#[test]
fn multi_rate_energy_ratios_follow_the_mu_rules() {
    let cases = [
        // DF side slow: the fast M2 on ZOH forces, R = 2 and 10 (seed eq. 20).
        (r#", "module_steps": {"m2": 5e-4}"#, 2.0, Hold::Zoh),
        (r#", "module_steps": {"m2": 1e-4}"#, 10.0, Hold::Zoh),
        // DF side fast on FOH positions and velocities, R = 1/10 (seed eq. 21).
        (
            r#", "module_steps": {"m1": 1e-4}, "extrapolation_order": 1"#,
            0.1,
            Hold::Foh,
        ),
    ];
    for (master, ratio, hold) in cases {
        let mu = mu_rule(true, ratio, hold).expect("a rule");
        let o = run(&oscillator(master));
        assert!(o.e_end > o.e0, "{master}: the energy grows");
        assert!(
            libm::fabs(o.ratio() - mu) < 0.02,
            "{master}: (E(T) − E0)/δE(T) = {} against μ = {mu}",
            o.ratio()
        );
    }
}

#[test]
fn the_correction_removes_the_drift_at_least_ten_fold() {
    let multi_rate = r#", "module_steps": {"m2": 1e-4}"#;
    let plain = run(&oscillator(multi_rate));
    let corrected = run(&oscillator(&format!(
        r#"{multi_rate}, "energy_correction": {{"cap": {{"fraction": 1.0}}}}"#
    )));
    let v = oscillator(multi_rate).validate().expect("valid");
    assert!(v.energy.expect("plan").correction.is_none());
    // The reference: the monolithic oscillator with the same integrator and step.
    let (p1, p2) = (Mass1Params::default(), Mass2Params::default());
    let e_ref = total_energy(&p1, &p2, &monolithic_symplectic(&p1, &p2, 1e-3, 10_000));
    let (before, after) = (
        libm::fabs(plain.e_end - e_ref),
        libm::fabs(corrected.e_end - e_ref),
    );
    assert!(
        libm::fabs(e_ref / plain.e0 - 1.0) < 0.02,
        "E_ref/E0 = {}",
        e_ref / plain.e0
    );
    assert!(
        after * 10.0 <= before,
        "|E(T) − E_ref|: uncorrected {before:.1} J, corrected {after:.1} J"
    );
}

#[test]
fn multi_rate_jacobi_at_ratio_one_is_plain_jacobi() {
    // ZOH only: with FOH plain Jacobi hands the modules an input polynomial, so a
    // feedthrough output at t_{k+1} uses the input extrapolated to t_{k+1}; multi-rate
    // Jacobi deliberately keeps the input of the step start (docs/methods.md §13.6).
    let single = run(&oscillator(""));
    let multi = run(&oscillator(r#", "module_steps": {"m1": 1e-3}"#));
    let same = single.sim.to_csv() == multi.sim.to_csv();
    assert!(same, "multi-rate Jacobi at R = 1 differs from Jacobi (ZOH)");
}

#[test]
fn the_energy_presets_show_what_they_say() {
    // (id, E(T)/E0 as the description says, tolerance)
    for (id, ratio, tol) in [
        ("energy-oscillator-drift", 1.69, 0.01),
        ("energy-oscillator-corrected", 0.99, 0.01),
        ("energy-oscillator-multirate-zoh", 2.25, 0.01),
        ("energy-oscillator-multirate-corrected", 0.99, 0.01),
        ("energy-oscillator-df-fast-foh", 1.04, 0.01),
        ("energy-oscillator-light-receiver", 1.004, 0.001),
    ] {
        let s = scenario::preset(id).expect(id);
        let mut sim = Simulation::new(&s.validate().expect(id)).expect(id);
        sim.run_to_end().expect(id);
        let e = sim.energy_summary().expect(id);
        assert!(
            libm::fabs(e.e_end / e.e0 - ratio) < tol,
            "{id}: E(T)/E0 = {}",
            e.e_end / e.e0
        );
        assert!(e.mean_dp > 0.0, "{id}: mean δP {}", e.mean_dp);
        let e_ref = e.e_ref_end.expect("a reference");
        assert!(
            libm::fabs(e_ref / e.e0 - 1.0) < 1e-6,
            "{id}: E_ref(T)/E0 = {}",
            e_ref / e.e0
        );
    }
    // Damped: the energy decays, but slower than the reference's, and δP says why.
    let s = scenario::preset("energy-oscillator-damped").expect("damped");
    let mut sim = Simulation::new(&s.validate().expect("valid")).expect("builds");
    sim.run_to_end().expect("runs");
    let e = sim.energy_summary().expect("monitored");
    assert!(e.e_end < 0.01 * e.e0 && e.e_end > 2.0 * e.e_ref_end.expect("reference"));
    assert!(e.mean_dp > 0.0);
}

#[test]
fn the_power_left_is_dp_uncorrected_and_small_once_corrected() {
    let mean_left = |sim: &Simulation| {
        let n = sim.result().time.len();
        let left = (1..n).map(|i| sim.energy_dp_left(i).expect("monitored"));
        left.sum::<f64>() / (n - 1) as f64
    };
    let plain = run(&oscillator(""));
    let points = &plain.sim.energy_monitor().expect("monitored").points;
    for (i, p) in points.iter().enumerate() {
        assert_eq!(plain.sim.energy_dp_left(i), Some(p.dp_total), "point {i}");
    }
    let corrected = run(&oscillator(
        r#", "energy_correction": {"cap": {"fraction": 1.0}}"#,
    ));
    // δP (uncorrected force) stays large; what the correction left of μ·δP is not.
    let left = mean_left(&corrected.sim);
    assert!(corrected.mean_dp > 500.0, "mean δP {}", corrected.mean_dp);
    assert!(
        libm::fabs(left) < 0.05 * corrected.mean_dp,
        "left {left} of mean δP {}",
        corrected.mean_dp
    );
    // The page's columns are the CSV's: names as its header ends, values as its last row.
    let csv = corrected.sim.to_csv();
    let header = csv.lines().next().expect("a header");
    let names = corrected.sim.energy_column_names();
    assert!(
        header.ends_with(&format!(",{}", names.join(","))),
        "{header}"
    );
    let last = csv.lines().last().expect("rows");
    let mut values = Vec::new();
    corrected
        .sim
        .energy_values(corrected.sim.result().time.len() - 1, &mut values);
    let cells: Vec<f64> = last
        .rsplit(',')
        .take(values.len())
        .map(|c| c.parse().expect("a number"))
        .collect();
    assert_eq!(cells.into_iter().rev().collect::<Vec<_>>(), values);
}
