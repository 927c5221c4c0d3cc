//! The coupled pendula: the seed's geometry check (initial tip distance 8.756 m), the rod
//! constraint held by the constrained symplectic Euler step, the index-1 equations at a
//! hand-computed state, and the monolithic energy bounded without drift.

use super::*;
use crate::models::registry::instantiate;
use alloc::collections::BTreeMap;

#[test]
fn default_geometry_gives_the_seeds_initial_tip_distance_with_the_spring_unloaded() {
    let (p1, p2) = (Pendulum1::default(), Pendulum2::default());
    let (r1, r2) = (p1.rod.start(), p2.rod.start());
    let distance = libm::hypot(r2[0] - r1[0], r2[1] - r1[1]);
    assert!((distance - 8.756).abs() < 1e-3, "{distance}");
    assert!((distance - DEFAULT_L0).abs() < 1e-12, "{distance}");
    // Unloaded spring, both at rest: no coupling force at the start.
    let (f, energy) = p1.spring_force(&r1, &r2);
    assert!(
        f[0].abs() < 1e-10 && f[1].abs() < 1e-10 && energy < 1e-20,
        "{f:?}"
    );
    assert_eq!([r1[2], r1[3], r2[2], r2[3]], [0.0; 4]);
}

#[test]
fn index1_equations_give_the_pendulum_acceleration_at_rest() {
    // At rest at θ = π/4 without a coupling force the tip accelerates along the tangent
    // (cos θ, sin θ) with l·θ'' = −g sin θ: a = −g sin θ (cos θ, sin θ) = −g/2 (1, 1).
    let rod = Pendulum1::default().rod;
    let mut dx = [0.0; 4];
    rod.rhs(&rod.start(), [0.0, 0.0], &mut dx);
    assert_eq!(&dx[..2], &[0.0, 0.0]);
    assert!((dx[2] + 9.81 / 2.0).abs() < 1e-12 && (dx[3] + 9.81 / 2.0).abs() < 1e-12);
    // Moving at ω = 2 rad/s the rod also pulls in with the centripetal l ω² = 19 m/s².
    let spinning = Rod { omega0: 2.0, ..rod };
    spinning.rhs(&spinning.start(), [0.0, 0.0], &mut dx);
    let (s, c) = (libm::sin(rod.theta0), libm::cos(rod.theta0));
    let radial = dx[2] * s - dx[3] * c;
    assert!((radial + 4.75 * 4.0).abs() < 1e-9, "{radial}");
}

/// The monolithic pendula (spring force of the current states on both) stepped by the
/// own method: (E, worst constraint error) at every step.
fn monolithic(h: f64, steps: usize) -> (Vec<f64>, f64) {
    let (p1, p2) = (Pendulum1::default(), Pendulum2::default());
    let (mut x1, mut x2) = (p1.rod.start(), p2.rod.start());
    let energy = |x1: &[f64; 4], x2: &[f64; 4]| {
        p1.rod.energy(x1) + p2.rod.energy(x2) + p1.spring_force(x1, x2).1
    };
    let mut energies = vec![energy(&x1, &x2)];
    let mut worst = 0.0f64;
    for _ in 0..steps {
        let (f, _) = p1.spring_force(&x1, &x2);
        p1.own_step(0.0, h, &mut x1, &x2);
        p2.own_step(0.0, h, &mut x2, &f);
        worst = worst
            .max(p1.rod.constraint_error(&x1).abs())
            .max(p2.rod.constraint_error(&x2).abs());
        energies.push(energy(&x1, &x2));
    }
    (energies, worst)
}

#[test]
fn constrained_symplectic_euler_holds_the_rods_and_keeps_the_energy_bounded() {
    let (energies, worst) = monolithic(1e-3, 20_000);
    assert!(worst < 1e-12, "constraint error {worst} m");
    let e0 = energies[0];
    // m g l (1 − cos θ) of both: 9.81·(4.75·(1 − cos 45°) + 10·(1 − cos 10°)) J.
    let expected = 9.81
        * (4.75 * (1.0 - libm::cos(0.25 * core::f64::consts::PI))
            + 10.0 * (1.0 - libm::cos(core::f64::consts::PI / 18.0)));
    assert!((e0 - expected).abs() < 1e-12, "{e0}");
    let swing = energies.iter().map(|e| (e - e0).abs()).fold(0.0, f64::max);
    // The motion carries about 16 J (pendulum 1 drops 1.4 m); the integrator swings E by
    // a few hundredths of a joule and does not drift.
    assert!(swing < 0.05, "swing {swing} J");
    let mean = |s: &[f64]| s.iter().sum::<f64>() / s.len() as f64;
    let drift = mean(&energies[energies.len() - 2000..]) - mean(&energies[..2000]);
    assert!(drift.abs() < 0.01, "drift {drift} J");
}

#[test]
fn the_registry_builds_both_with_tip_states_from_the_start_angles() {
    let mut params = BTreeMap::new();
    params.insert(alloc::string::String::from("theta2"), 0.0);
    let m = instantiate(PENDULUM2_ID, &params, &SolverSpec::Default).expect("pendulum 2");
    let x = m.description().variable("x").and_then(|v| v.start);
    let y = m.description().variable("y").and_then(|v| v.start);
    assert_eq!((x, y), (Some(7.5), Some(-10.0)));
    assert!(m.description().capabilities.x_reports_energy);
    let m = instantiate(PENDULUM1_ID, &BTreeMap::new(), &SolverSpec::Default).expect("p1");
    assert_eq!(m.description().outputs().len(), 3);
    // States are not settable by name: the start is the angle.
    params.clear();
    params.insert(alloc::string::String::from("x"), 1.0);
    assert!(instantiate(PENDULUM1_ID, &params, &SolverSpec::Default).is_err());
}
