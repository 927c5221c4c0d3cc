//! A stop time that is not a whole number of macro-steps: the run ends on it exactly with a
//! last, shorter step, and methods that need every step to be the macro-step refuse it.

use super::Simulation;
use crate::scenario::{parse, Scenario};
use alloc::format;

/// x'' = −x from x = 1: x(t) = cos t, an equation module the checker finds linear (so the
/// exact reference exists), stepped by Jacobi at `h` up to `stop`.
fn oscillator(h: f64, stop: f64, master_extra: &str) -> Scenario {
    let json = format!(
        r#"{{
      "schema_version": 1,
      "modules": [{{"name": "osc", "model": "Equations",
                   "source": "state x = 1\nstate v = 0\nder(x) = v\nder(v) = -x\noutput y = x\n"}}],
      "connections": [],
      "master": {{"algorithm": "jacobi", "macro_step": {h}, "extrapolation_order": 0,
                 "sequence": [], "start_up": "ramp_up"{master_extra}}},
      "run": {{"start": 0.0, "stop": {stop}}},
      "reference": true
    }}"#
    );
    parse(&json).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn a_stop_between_grid_points_is_reached_exactly_by_a_shorter_last_step() {
    let v = oscillator(0.01, 2.995, "")
        .validate()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((v.grid.steps, v.grid.t_stop), (300, 2.995));
    let mut sim = Simulation::new(&v).unwrap_or_else(|e| panic!("{e}"));
    sim.run_to_end().unwrap_or_else(|e| panic!("{e}"));
    let r = sim.result();
    assert_eq!(r.time.len(), 301);
    assert_eq!(r.time[300], 2.995);
    assert_eq!(r.time[299], 299.0 * 0.01);
    assert!(
        (r.step_sizes[300] - 0.005).abs() < 1e-12,
        "{}",
        r.step_sizes[300]
    );
    assert!(r.step_sizes[1..300].iter().all(|&h| h == 0.01));
    let (x, exact) = (r.signals[0].cosim[300], libm::cos(2.995));
    assert!(
        (x - exact).abs() < 1e-6,
        "x(2.995) = {x}, cos 2.995 = {exact}"
    );
    // cos 3 differs by 7e-4: the run did not round to 3.0.
    assert!((x - libm::cos(3.0)).abs() > 1e-4);
    let reference = r.signals[0].reference.as_ref().expect("reference")[300];
    assert!(
        (reference - exact).abs() < 1e-12,
        "{reference} against {exact}"
    );
}

#[test]
fn a_stop_within_rounding_of_a_grid_point_gets_no_sliver_step() {
    let h = libm::pow(10.0, -3.5);
    let v = oscillator(h, 316.0 * h * (1.0 + 1e-12), "")
        .validate()
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(v.grid.is_uniform());
    assert_eq!(v.grid.steps, 316);
}

#[test]
fn methods_that_need_whole_steps_refuse_with_the_nearest_stop_times() {
    let corrected = r#", "correction": {"alpha": 1.0}"#;
    let e = oscillator(0.01, 2.995, corrected).validate().unwrap_err();
    assert_eq!(e.path, "run.stop");
    let text = e.message;
    assert!(text.contains("model-based correction"), "{text}");
    assert!(
        text.contains(&format!("stop at {} s or {} s", 299.0 * 0.01, 300.0 * 0.01)),
        "{text}"
    );
    // A whole number of steps passes.
    assert!(oscillator(0.01, 3.0, corrected).validate().is_ok());
}

/// The propagation-matrix analyses study one step's matrix over whole steps of every
/// macro-step they sweep, so the corrected preset's stability map (ΔT = 10^-3.5 on a 0.1 s
/// run among its macro-steps) is not refused, and its matrix is analysed.
#[test]
fn analyses_of_a_corrected_scheme_do_not_need_a_whole_step_stop() {
    use crate::analysis::sweep::LinearAnalysis;
    let mut s = crate::scenario::preset("analysis-stability-map").expect("preset");
    s.master.macro_step = libm::pow(10.0, -3.5);
    s.run.stop = 0.1;
    let v = s.validate().unwrap_or_else(|e| panic!("{e}"));
    let analysis = LinearAnalysis::new(&v).unwrap_or_else(|e| panic!("{e}"));
    use crate::analysis::sweep::MapMetric;
    let rho = analysis.evaluate(MapMetric::SpectralRadius).value;
    assert!(rho.is_finite() && rho > 0.0, "{rho}");
    let eg = analysis.evaluate(MapMetric::GlobalError).value;
    assert!(eg.is_finite(), "{eg}");
    // The same scenario as a run (no analysis view) still refuses: the corrector's gains are
    // for one step size.
    s.analysis = None;
    assert_eq!(s.validate().unwrap_err().path, "run.stop");
    // Checked for an analysis (`cosim map`, the page's map workers) it is accepted without
    // an analysis view, and analysed the same.
    let limits = crate::limits::Limits::default();
    let v = s
        .validate_for_analysis_within(&limits)
        .unwrap_or_else(|e| panic!("{e}"));
    let again = LinearAnalysis::new(&v).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        again.evaluate(MapMetric::SpectralRadius).value.to_bits(),
        rho.to_bits()
    );
}
