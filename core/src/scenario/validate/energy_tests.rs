//! Bad energy settings are refused at their JSON path: a bond of two efforts, units that do
//! not pair, steps not in a whole ratio, a cap ≤ 0, μ or ν outside [0, 1], multi-rate
//! without feedthrough and without μ; good ones give the μ of the rules.

use crate::scenario::{self, Scenario};
use alloc::format;
use alloc::string::String;

/// The double oscillator with a rotational pair beside it (for unit mismatches);
/// `bonds` and `master` are spliced in.
fn scenario(bonds: &str, master: &str) -> Scenario {
    let json = format!(
        r#"{{"schema_version": 1,
         "modules": [{{"name": "m1", "model": "DoubleOscillator.Mass1"}},
                     {{"name": "m2", "model": "DoubleOscillator.Mass2"}},
                     {{"name": "r1", "model": "RotationalOscillator.Tau2Omega"}},
                     {{"name": "r2", "model": "RotationalOscillator.Omega2Tau"}}],
         "connections": [{{"from": "m2.x2", "to": "m1.x2"}}, {{"from": "m2.v2", "to": "m1.v2"}},
                         {{"from": "m1.F", "to": "m2.F"}},
                         {{"from": "r2.tau", "to": "r1.tau"}}, {{"from": "r1.omega", "to": "r2.omega_in"}}],
         "bonds": [{bonds}],
         "master": {{"algorithm": "jacobi", "macro_step": 1e-3 {master}}},
         "run": {{"stop": 0.01}}, "reference": false}}"#
    );
    scenario::parse(&json).expect("parses")
}

const BOND: &str = r#"{"effort": "m2.F", "flow": "m1.v2"}"#;

fn error_at(s: &Scenario) -> (String, String) {
    match s.validate() {
        Ok(_) => (String::new(), "accepted".into()),
        Err(e) => (e.path.clone(), e.message.clone()),
    }
}

#[test]
fn bonds_must_pair_an_effort_with_its_flow() {
    let two_efforts = scenario(r#"{"effort": "m2.F", "flow": "r1.tau"}"#, "");
    let (path, message) = error_at(&two_efforts);
    assert_eq!(path, "bonds[0].flow");
    assert!(message.contains("carries an effort"), "{message}");
    let two_flows = scenario(r#"{"effort": "m1.v2", "flow": "m1.v2"}"#, "");
    assert_eq!(error_at(&two_flows).0, "bonds[0].effort");
    let mismatched = scenario(r#"{"effort": "m2.F", "flow": "r2.omega_in"}"#, "");
    let (path, message) = error_at(&mismatched);
    assert_eq!(path, "bonds[0].flow");
    assert!(message.contains("N with m/s"), "{message}");
    let position = scenario(r#"{"effort": "m2.F", "flow": "m1.x2"}"#, "");
    let (path, message) = error_at(&position);
    assert_eq!(path, "bonds[0].flow");
    assert!(
        message.contains("neither an effort nor a flow"),
        "{message}"
    );
    let unknown = scenario(r#"{"effort": "m2.G", "flow": "m1.v2"}"#, "");
    assert_eq!(error_at(&unknown).0, "bonds[0].effort");
    let twice = scenario(&format!("{BOND}, {BOND}"), "");
    assert_eq!(error_at(&twice).0, "bonds[1].effort");
    // A rotational bond is a bond too.
    let rotational = scenario(r#"{"effort": "r1.tau", "flow": "r2.omega_in"}"#, "");
    assert_eq!(error_at(&rotational).1, "accepted");
}

#[test]
fn steps_must_be_whole_fractions_of_the_macro_step() {
    let (path, message) = error_at(&scenario(BOND, r#", "module_steps": {"m2": 4e-4}"#));
    assert_eq!(path, "master.module_steps.m2");
    assert!(message.contains("not a whole fraction"), "{message}");
    // 1e-3/ (1e-3/3) is 3 within 1e-12 although not exactly.
    let third = format!(r#", "module_steps": {{"m2": {}}}"#, 1e-3 / 3.0);
    assert_eq!(error_at(&scenario(BOND, &third)).1, "accepted");
    let slower = scenario(BOND, r#", "module_steps": {"m2": 2e-3}"#);
    assert_eq!(error_at(&slower).0, "master.module_steps.m2");
    let unknown = scenario(BOND, r#", "module_steps": {"m9": 1e-4}"#);
    assert_eq!(error_at(&unknown).0, "master.module_steps.m9");
    let gs = scenario(
        BOND,
        r#", "module_steps": {"m2": 1e-4}, "algorithm": "gauss_seidel""#,
    );
    assert!(gs.validate().is_err());
}

#[test]
fn correction_settings_are_checked_at_their_paths() {
    let c = |settings: &str| scenario(BOND, &format!(r#", "energy_correction": {settings}"#));
    for (settings, path) in [
        (r#"{"mu": 1.5}"#, "master.energy_correction.mu"),
        (r#"{"mu": -0.1}"#, "master.energy_correction.mu"),
        (r#"{"nu": 2}"#, "master.energy_correction.nu"),
        (
            r#"{"cap": {"fraction": 0}}"#,
            "master.energy_correction.cap.fraction",
        ),
        (
            r#"{"cap": {"fraction": -1}}"#,
            "master.energy_correction.cap.fraction",
        ),
        (
            r#"{"cap": {"absolute": 0}}"#,
            "master.energy_correction.cap.absolute",
        ),
        (r#"{"cap": {}}"#, "master.energy_correction.cap"),
    ] {
        assert_eq!(error_at(&c(settings)).0, path, "{settings}");
    }
    let no_bonds = scenario("", r#", "energy_correction": {}"#);
    assert_eq!(error_at(&no_bonds).0, "master.energy_correction");
    let good = c(r#"{"nu": 0.25, "cap": {"fraction": 0.1, "absolute": 100}}"#);
    let plan = good.validate().expect("valid").energy.expect("a plan");
    let settings = plan.correction.expect("corrected");
    assert_eq!((settings.nu, settings.cap.limit(0.0)), (0.25, 100.0));
}

#[test]
fn mu_comes_from_the_rules_or_must_be_given() {
    let mu = |master: &str| {
        let s = scenario(BOND, &format!(r#"{master}, "energy_correction": {{}}"#));
        s.validate().expect("valid").energy.expect("plan").bonds[0].mu
    };
    assert_eq!(mu(""), 0.5);
    assert!(libm::fabs(mu(r#", "module_steps": {"m2": 1e-4}"#) - 0.725) < 1e-15);
    assert_eq!(
        mu(r#", "module_steps": {"m2": 1e-4}, "extrapolation_order": 1"#),
        0.5
    );
    assert!(
        libm::fabs(mu(r#", "module_steps": {"m1": 2.5e-5}, "extrapolation_order": 1"#) - 0.0125)
            < 1e-15
    );
    // A force side without feedthrough (its force from its own state), run multi-rate:
    // the seed has no μ, so the scenario must give one.
    let source = r#"parameter k = 100 \"N/m\"\ninput v2 \"m/s\"\nstate s = 0 \"m\"\nder(s) = v2\noutput F \"N\" = -k*s\n"#;
    let json = format!(
        r#"{{"schema_version": 1,
         "modules": [{{"name": "e", "model": "Equations", "source": "{source}"}},
                     {{"name": "m2", "model": "DoubleOscillator.Mass2"}}],
         "connections": [{{"from": "m2.v2", "to": "e.v2"}}, {{"from": "e.F", "to": "m2.F"}}],
         "bonds": [{{"effort": "m2.F", "flow": "e.v2"}}],
         "master": {{"algorithm": "jacobi", "macro_step": 1e-3, "module_steps": {{"m2": 1e-4}},
                     "energy_correction": {{}}}},
         "run": {{"stop": 0.01}}, "reference": false}}"#
    );
    let mut s = scenario::parse(&json).expect("parses");
    let (path, message) = error_at(&s);
    assert_eq!(path, "master.energy_correction.mu");
    assert!(message.contains("set `mu`"), "{message}");
    s.master.energy_correction.as_mut().expect("set").mu = Some(0.3);
    assert_eq!(
        s.validate().expect("valid").energy.expect("plan").bonds[0].mu,
        0.3
    );
    // Single-rate without feedthrough: μ = 0 by the rules.
    s.master.module_steps.clear();
    s.master.energy_correction.as_mut().expect("set").mu = None;
    assert_eq!(
        s.validate().expect("valid").energy.expect("plan").bonds[0].mu,
        0.0
    );
}
