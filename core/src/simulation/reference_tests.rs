//! The reference a [`Simulation`] gets: exact for linear scenarios, integrated for the
//! nonlinear presets (the same numbers whatever the master), none with the reason when a
//! module keeps its equations to itself, and NaN with a note once it stops.

use super::{summary, Simulation};
use crate::scenario::{parse, preset, Scenario};
use alloc::string::ToString;

fn run(s: &Scenario) -> Simulation {
    let v = s.validate().unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Simulation::new(&v).unwrap_or_else(|e| panic!("{e}"));
    sim.run_to_end().unwrap_or_else(|e| panic!("{e}"));
    sim
}

#[test]
fn nonlinear_presets_get_the_integrated_reference_whatever_the_master() {
    let zoh = run(&preset("nonlinear-zoh").expect("preset"));
    let corrected = run(&preset("nonlinear-zoh-corrected").expect("preset"));
    assert!(zoh.global_nrmse().is_some() && corrected.global_nrmse().is_some());
    assert_eq!(
        zoh.reference_method().as_deref(),
        Some("dopri45 rtol 1e-10 atol 1e-12")
    );
    let (a, b) = (zoh.result(), corrected.result());
    assert_eq!(a.time, b.time);
    for (sa, sb) in a.signals.iter().zip(&b.signals) {
        let (ra, rb) = (sa.reference.as_ref(), sb.reference.as_ref());
        assert_eq!(ra.map(|r| r.len()), Some(a.time.len()), "{}", sa.name);
        // The same system sampled at the same points: the same bits.
        assert_eq!(ra, rb, "{}", sa.name);
    }
    // The corrected run stays bounded and is much closer to the reference than plain ZOH.
    let (ez, ec) = (zoh.global_nrmse(), corrected.global_nrmse());
    assert!(ec < ez, "{ec:?} against {ez:?}");
}

#[test]
fn a_module_without_exposed_equations_leaves_the_run_without_reference_and_says_why() {
    let mut s = preset("reference-stair").expect("preset");
    s.reference = true;
    let sim = run(&s);
    assert!(sim.result().signals.iter().all(|x| x.reference.is_none()));
    assert_eq!(
        sim.reference_note(),
        Some("module `stair` does not expose its equations")
    );
    let line = summary(&sim);
    assert!(
        line.contains("no reference: module `stair` does not expose its equations"),
        "{line}"
    );
}

#[test]
fn a_reference_that_fails_midway_leaves_nan_and_a_note_but_the_run_goes_on() {
    // x' = x², x(0) = 1 blows up at t = 1; RK4 with 0.5 s steps stays finite to t = 1.5.
    let json = r#"{
      "schema_version": 1,
      "modules": [{"name": "blow", "model": "Equations",
                   "solver": {"method": "rk4", "step": 0.5},
                   "source": "state x = 1\nder(x) = x*x\noutput y = x\n"}],
      "connections": [],
      "master": {"algorithm": "jacobi", "macro_step": 0.5, "extrapolation_order": 0,
                 "sequence": [], "start_up": "ramp_up"},
      "run": {"start": 0.0, "stop": 1.5}
    }"#;
    let sim = run(&parse(json).expect("scenario"));
    let r = sim.result().signals[0].reference.as_ref().expect("columns");
    assert_eq!(r.len(), 4);
    assert!(libm::fabs(r[1] - 2.0) <= 1e-8, "1/(1 − t) at 0.5: {}", r[1]);
    assert!(r[2].is_nan() && r[3].is_nan(), "{r:?}");
    let note = sim.reference_note().expect("note").to_string();
    assert!(
        note.starts_with("the reference stopped at t = 1 s"),
        "{note}"
    );
    assert_eq!(sim.global_nrmse(), None);
    assert!(summary(&sim).contains("no reference: the reference stopped"));
}
