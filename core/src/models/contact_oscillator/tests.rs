//! Example 1's modules: right-hand sides by hand, the registry, and a short
//! monolithic-against-co-simulation check through the fixed-step Jacobi master.

use super::*;
use crate::models::registry::instantiate;
use crate::scenario::parse;
use crate::simulation::Simulation;
use crate::solvers::{OdeSystem, Workspace};

#[test]
fn right_hand_sides_match_hand_computed_values() {
    let mut dx = [0.0; 2];
    // Body 1 at x = 1e-6 m (contact −1e-2·e^10 N), v = 3 m/s, fc = 50 N:
    // v' = (−1e5·1e-6 − 220.264657948… + 50)/50.
    Body1::default().rhs(0.0, &[1e-6, 3.0], &[50.0], &mut dx);
    assert_eq!(dx[0], 3.0);
    assert!((dx[1] - (-3.407_293_158_961_343_6)).abs() < 1e-12, "{dx:?}");
    // Body 2 at x = 0.1 m, v = −2 m/s, fc = 7 N: v' = −1e3·0.1 − 7.
    Body2::default().rhs(0.0, &[0.1, -2.0], &[7.0], &mut dx);
    assert_eq!(dx, [-2.0, -107.0]);
    // Coupling at the start values: Δx = 2, Δv = −300:
    // 1e5·2 + 1e5·8 + 1e-2·(−2.7e7) = 7.3e5 N.
    let mut y = [0.0];
    Coupling::default().output(0.0, &[], &[-2.0, 100.0, 0.0, -200.0], &mut y);
    assert_eq!(y, [7.3e5]);
}

/// The error of building `id`, which must fail.
fn build_error(id: &str, solver: &SolverSpec) -> String {
    match instantiate(id, &BTreeMap::new(), solver) {
        Ok(_) => panic!("{id} built with {solver:?}"),
        Err(e) => alloc::format!("{e}"),
    }
}

#[test]
fn the_registry_builds_all_three_with_the_seed_defaults() {
    let none = BTreeMap::new();
    for id in [BODY1_ID, BODY2_ID, COUPLING_ID] {
        let m = instantiate(id, &none, &SolverSpec::Default).expect(id);
        assert_eq!(m.description().model_name, id);
    }
    let e = build_error(BODY1_ID, &SolverSpec::Exact);
    assert!(alloc::format!("{e}").contains("bdf"), "{e}");
    let bad = SolverSpec::Bdf {
        rtol: 1e-6,
        atol: crate::solvers::Tolerance::PerState(vec![1e-9, 1e-6, 1e-3]),
    };
    let e = build_error(BODY2_ID, &bad);
    assert!(alloc::format!("{e}").contains("one per state"), "{e}");
    let bad = SolverSpec::Bdf {
        rtol: 1e-6,
        atol: crate::solvers::Tolerance::PerState(vec![1e-9, 0.0]),
    };
    let e = build_error(BODY2_ID, &bad);
    assert!(alloc::format!("{e}").contains("`atol[1]`"), "{e}");
}

/// Example 1 as one system (eqns 35a–c with the coupling force substituted).
struct Monolithic(Body1, Body2, Coupling);
impl OdeSystem for Monolithic {
    fn dim(&self) -> usize {
        4
    }
    fn rhs(&mut self, t: f64, z: &[f64], dz: &mut [f64]) {
        let fc = self.2.force(z[2] - z[0], z[3] - z[1]);
        self.0.rhs(t, &z[0..2], &[fc], &mut dz[0..2]);
        self.1.rhs(t, &z[2..4], &[fc], &mut dz[2..4]);
    }
}

/// The monolithic state at `times`, integrated at a tolerance far below the co-simulation's.
fn monolithic(times: &[f64]) -> Vec<[f64; 4]> {
    let (b1, b2) = (Body1::default(), Body2::default());
    let mut sys = Monolithic(b1, b2, Coupling::default());
    let mut z = [b1.x, b1.v, b2.x, b2.v];
    let bdf = Bdf {
        rtol: 1e-10,
        atol: vec![1e-13, 1e-10, 1e-13, 1e-10],
    };
    let mut ws = Workspace::new(4);
    let mut t = 0.0;
    let mut out = Vec::new();
    for &tn in times {
        if tn > t {
            bdf.integrate(&mut sys, t, tn, &mut z, &mut ws)
                .expect("monolithic");
            t = tn;
        }
        out.push(z);
    }
    out
}

fn fixture(stop: f64, macro_step: f64) -> Simulation {
    let json = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/fixtures/contact-oscillator.json"
    ));
    let mut s = parse(json).expect("parses");
    s.run.stop = stop;
    s.master.macro_step = macro_step;
    let v = s.validate().expect("valid");
    Simulation::new(&v).expect("builds")
}

/// Largest deviation of (x1, v1) from the monolithic model over the first 10 ms.
fn deviation(macro_step: f64) -> (f64, f64) {
    let mut sim = fixture(0.01, macro_step);
    sim.run_to_end().expect("runs");
    let r = sim.result();
    let reference = monolithic(&r.time);
    let signal = |name: &str| &r.signals.iter().find(|s| s.name == name).expect(name).cosim;
    let (x1, v1) = (signal("body1.x1"), signal("body1.v1"));
    let mut worst = (0.0f64, 0.0f64);
    for (i, z) in reference.iter().enumerate() {
        worst.0 = worst.0.max((x1[i] - z[0]).abs());
        worst.1 = worst.1.max((v1[i] - z[1]).abs());
    }
    worst
}

#[test]
fn a_small_macro_step_agrees_with_the_monolithic_model_before_the_contact() {
    // x1 moves by ≈ 1 m and v1 by ≈ 100 m/s over the interval.
    let fine = deviation(2e-6);
    assert!(
        fine.0 < 1e-4 && fine.1 < 1e-2,
        "max |Δx1|, |Δv1| = {fine:?}"
    );
    // The deviation is the coupling error: it shrinks with the macro-step.
    let coarse = deviation(4e-6);
    assert!(
        coarse.0 > 1.5 * fine.0 && coarse.1 > 1.5 * fine.1,
        "{coarse:?} vs {fine:?}"
    );
}

#[test]
fn through_the_contact_the_run_stays_finite_and_body_1_stays_behind_the_wall() {
    let mut sim = fixture(0.06, 1e-5);
    sim.run_to_end().expect("runs");
    let r = sim.result();
    let signal = |name: &str| &r.signals.iter().find(|s| s.name == name).expect(name).cosim;
    let (x1, v1) = (signal("body1.x1"), signal("body1.v1"));
    assert!(r
        .signals
        .iter()
        .all(|s| s.cosim.iter().all(|v| v.is_finite())));
    // The contact is hit (v1 changes sign) and penetration stays microscopic.
    assert!(v1.iter().any(|v| *v < 0.0), "no rebound");
    let deepest = x1.iter().fold(f64::MIN, |m, x| m.max(*x));
    assert!(deepest < 1e-5, "penetration {deepest} m");
}

#[test]
fn the_monolithic_model_passes_the_contact_at_the_seed_tolerances_far_below_the_guard() {
    // The case that once made the BDF's Newton iteration report false convergence with a
    // Jacobian from a point deeper in the wall.
    let (b1, b2) = (Body1::default(), Body2::default());
    let mut sys = Monolithic(b1, b2, Coupling::default());
    let mut z = [b1.x, b1.v, b2.x, b2.v];
    let bdf = Bdf {
        rtol: BODY_RTOL,
        atol: vec![BODY_ATOL_X, BODY_ATOL_V, BODY_ATOL_X, BODY_ATOL_V],
    };
    let mut ws = Workspace::new(4);
    let (mut deepest, mut rebounds) = (f64::MIN, false);
    for i in 0..600 {
        let t = i as f64 * 1e-4;
        bdf.integrate(&mut sys, t, t + 1e-4, &mut z, &mut ws)
            .expect("through the contact");
        deepest = deepest.max(z[0]);
        rebounds |= z[1] < 0.0;
    }
    assert!(rebounds && z.iter().all(|v| v.is_finite()), "{z:?}");
    // Sampled every 0.1 ms, the penetration stays below B·x = 40 (|F_C| < 2.4e15 N),
    // far from the guard's B·x = 100.
    assert!(deepest < 40.0 / b1.b, "deepest sampled x1 = {deepest:e} m");
}
