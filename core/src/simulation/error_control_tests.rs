//! `master.step_control` with `"method": "error"` end to end: the two-mass preset runs
//! error-controlled with every explicit estimator and writes H, k and the error per point;
//! bad settings are refused at their JSON path, naming the module where one is at fault.

use super::{Simulation, StepColumns};
use crate::scenario::{self, Scenario};
use alloc::format;
use alloc::string::String;

/// The two-mass preset with `step_control` set from JSON.
fn two_mass(step_control: &str) -> Scenario {
    let mut s = scenario::preset("two-mass-oscillator").unwrap();
    let control = format!(r#"{{"method": "error", {step_control}}}"#);
    s.master.step_control = Some(serde_json::from_str(&control).unwrap());
    s.master.macro_step = 1e-5;
    s.run.stop = 5e-3;
    s
}

fn error_at(s: &Scenario) -> (String, String) {
    match s.validate() {
        Ok(_) => (String::new(), "accepted".into()),
        Err(e) => (e.path.clone(), e.message.clone()),
    }
}

#[test]
fn every_explicit_estimator_runs_the_two_mass_preset_and_reports_h_k_and_error() {
    for estimator in ["ex_local", "ex_milne", "ex_s_local"] {
        let s = two_mass(&format!(
            r#""estimator": "{estimator}", "rtol": 1e-6, "atol": {{"pos": 1e-8, "vel": 1e-5, "u": 1e-3}}"#
        ));
        let v = s.validate().unwrap();
        let mut sim = Simulation::new(&v).unwrap();
        sim.run_to_end().unwrap();
        assert!(sim.variable_steps());
        let columns = sim.step_columns();
        assert_eq!(
            columns,
            StepColumns {
                step_size: true,
                order: true,
                iterations: false,
                error: true,
                defect: false
            }
        );
        let r = sim.result();
        assert_eq!(
            *r.time.last().unwrap(),
            5e-3,
            "{estimator}: ends at the stop time"
        );
        let accepted_errors = r.diagnostics.iter().filter_map(|d| d.error);
        assert!(accepted_errors.clone().count() > 10);
        assert!(accepted_errors.into_iter().all(|e| e <= 1.0), "{estimator}");
        let csv = sim.to_csv();
        assert!(
            csv.lines().next().unwrap().ends_with(",H,k,error"),
            "{estimator}: {}",
            csv.lines().next().unwrap()
        );
        let summary = super::summary(&sim);
        assert!(
            summary.contains("accepted") && summary.contains("rejected"),
            "{summary}"
        );
    }
}

#[test]
fn bad_settings_are_refused_at_their_json_path() {
    let cases = [
        (
            r#""estimator": "ex_milne", "rtol": 0"#,
            "master.step_control.rtol",
        ),
        (
            r#""estimator": "ex_milne", "rtol": 1e-4, "rtol_u": -1"#,
            "master.step_control.rtol_u",
        ),
        (
            r#""estimator": "im_milne", "rtol": 1e-4"#,
            "master.step_control.estimator",
        ),
        (
            r#""estimator": "im_s_local", "rtol": 1e-4"#,
            "master.step_control.estimator",
        ),
        (
            r#""estimator": "ex_milne", "rtol": 1e-4, "h_min": 1e-3, "h_max": 1e-4"#,
            "master.step_control.h_min",
        ),
        (
            r#""estimator": "ex_milne", "rtol": 1e-4, "order": {"variable": {"k_max": 6}}"#,
            "master.step_control.order.variable.k_max",
        ),
        (
            r#""estimator": "ex_milne", "rtol": 1e-4, "order": {"fixed": 7}"#,
            "master.step_control.order.fixed",
        ),
        (
            r#""estimator": "ex_milne", "rtol": 1e-4, "atol": {"vel": -1}"#,
            "master.step_control.atol.vel",
        ),
        (
            r#""estimator": "ex_milne", "rtol": 1e-4, "r_min": 0.95"#,
            "master.step_control.r_min",
        ),
    ];
    for (json, path) in cases {
        let (at, message) = error_at(&two_mass(json));
        assert_eq!(at, path, "{json}: {message}");
    }
    // Unknown fields are refused by the parser.
    let bad = r#"{"method": "error", "estimator": "ex_milne", "rtol": 1e-4, "rtool": 1}"#;
    assert!(serde_json::from_str::<scenario::StepControlSpec>(bad).is_err());
}
