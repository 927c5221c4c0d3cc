//! `master.algorithm: "implicit"` end to end: the two-mass preset runs with both implicit
//! estimators and every interface Jacobian and writes H, k, the corrector iterations and
//! the error per point; the combinations the implicit scheme does not run are refused at
//! their JSON path.

use super::{Simulation, StepColumns};
use crate::scenario::{self, Algorithm, Scenario};
use alloc::format;

/// The two-mass preset with `master.algorithm` and `step_control` set from JSON (`None`: a
/// fixed step).
fn two_mass(algorithm: Algorithm, step_control: Option<&str>) -> Scenario {
    let mut s = scenario::preset("two-mass-oscillator").unwrap();
    s.master.algorithm = algorithm;
    s.master.step_control = step_control.map(|c| {
        let control = format!(r#"{{"method": "error", {c}}}"#);
        serde_json::from_str(&control).unwrap()
    });
    s.master.macro_step = 1e-5;
    s.run.stop = 5e-3;
    s
}

#[test]
fn both_implicit_estimators_run_the_two_mass_preset_with_every_jacobian() {
    for estimator in ["im_milne", "im_s_local"] {
        for jacobian in ["finite_differences", "low_order", "directional_derivatives"] {
            let c = format!(
                r#""estimator": "{estimator}", "rtol": 1e-6, "atol": {{"pos": 1e-8, "vel": 1e-5, "u": 1e-3}},
                   "corrector": {{"jacobian": "{jacobian}", "max_iterations": 4}}"#
            );
            let v = two_mass(Algorithm::Implicit, Some(&c)).validate().unwrap();
            let mut sim = Simulation::new(&v).unwrap();
            sim.run_to_end().unwrap();
            let columns = sim.step_columns();
            assert_eq!(
                columns,
                StepColumns {
                    step_size: true,
                    order: true,
                    iterations: true,
                    error: true,
                    defect: false
                },
                "{estimator} {jacobian}"
            );
            let r = sim.result();
            assert_eq!(*r.time.last().unwrap(), 5e-3);
            let iterations: u32 = r.diagnostics.iter().map(|d| d.iterations).sum();
            // At least one corrector run per accepted step; the linear problem needs one.
            assert!(
                iterations as usize >= r.diagnostics.len() - 1,
                "{estimator} {jacobian}"
            );
            let header = sim.to_csv();
            let header = header.lines().next().unwrap();
            assert!(header.ends_with(",H,k,iterations,error"), "{header}");
            let summary = super::summary(&sim);
            let expected = format!("{iterations} corrector iterations in accepted steps");
            assert!(summary.contains(&expected), "{summary}");
        }
    }
}

#[test]
fn implicit_combinations_are_refused_at_their_json_path() {
    let cases = [
        (two_mass(Algorithm::Implicit, None), "master.algorithm"),
        (
            two_mass(
                Algorithm::Implicit,
                Some(r#""estimator": "ex_milne", "rtol": 1e-4"#),
            ),
            "master.step_control.estimator",
        ),
        (
            two_mass(
                Algorithm::Jacobi,
                Some(r#""estimator": "im_milne", "rtol": 1e-4"#),
            ),
            "master.step_control.estimator",
        ),
        (
            two_mass(
                Algorithm::Jacobi,
                Some(r#""estimator": "ex_milne", "rtol": 1e-4, "corrector": {}"#),
            ),
            "master.step_control.corrector",
        ),
        (
            two_mass(
                Algorithm::Implicit,
                Some(
                    r#""estimator": "im_s_local", "rtol": 1e-4, "corrector": {"max_iterations": 0}"#,
                ),
            ),
            "master.step_control.corrector.max_iterations",
        ),
        (
            two_mass(
                Algorithm::Implicit,
                Some(
                    r#""estimator": "im_s_local", "rtol": 1e-4, "corrector": {"tolerance_fraction": -1}"#,
                ),
            ),
            "master.step_control.corrector.tolerance_fraction",
        ),
        (
            two_mass(
                Algorithm::Implicit,
                Some(
                    r#""estimator": "im_milne", "rtol": 1e-4, "corrector": {"newton": "full", "max_iterations": 1}"#,
                ),
            ),
            "master.step_control.corrector.newton",
        ),
        (
            two_mass(
                Algorithm::Implicit,
                Some(r#""estimator": "im_s_local", "rtol": 1e-4, "monitor": "coupling_bodies""#),
            ),
            "master.step_control.monitor",
        ),
        (
            two_mass(
                Algorithm::Jacobi,
                Some(r#""estimator": "ex_s_local", "rtol": 1e-4, "monitor": "coupling_bodies""#),
            ),
            "master.step_control.monitor",
        ),
    ];
    for (s, path) in cases {
        let e = s.validate().expect_err("must be refused");
        assert_eq!(e.path, path, "{}", e.message);
    }
    let bad = r#"{"method": "error", "estimator": "im_milne", "rtol": 1e-4, "corrector": {"jacobain": "low_order"}}"#;
    assert!(serde_json::from_str::<scenario::StepControlSpec>(bad).is_err());
    let bad = r#"{"method": "error", "estimator": "im_milne", "rtol": 1e-4, "corrector": {"newton": "exact"}}"#;
    assert!(serde_json::from_str::<scenario::StepControlSpec>(bad).is_err());
    let bad = r#"{"method": "error", "estimator": "ex_milne", "rtol": 1e-4, "monitor": "bodies"}"#;
    assert!(serde_json::from_str::<scenario::StepControlSpec>(bad).is_err());
    // Accepted: full Newton, and coupling bodies with a state estimator.
    let good = two_mass(
        Algorithm::Implicit,
        Some(
            r#""estimator": "im_milne", "rtol": 1e-4, "monitor": "coupling_bodies", "corrector": {"newton": "full"}"#,
        ),
    );
    assert!(good.validate().is_ok());
}
