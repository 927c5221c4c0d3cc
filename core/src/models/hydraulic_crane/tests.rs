//! The crane: both sides' equations against values computed by hand (an independent
//! script of the same equations) at one state, the seed's equilibrium check (γ₀ = 0.45435
//! balances the load at θ₁ = π/6), consistent start lengths, and the multibody side's
//! energy under symplectic Euler with a constant cylinder force.

use super::*;
use crate::models::ode_module::OdeModel;
use crate::models::registry::instantiate;
use crate::models::stepped::OwnStep;
use alloc::collections::BTreeMap;

fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * b.abs().max(1.0)
}

#[test]
fn mechanics_match_hand_computed_values_at_a_state() {
    let m = Mechanics::default();
    let x = [0.6, 4.5, 0.3, -0.8];
    let mut dx = [0.0; 4];
    m.rhs(0.0, &x, &[12_000.0], &mut dx);
    assert_eq!(&dx[..2], &[0.3, -0.8]);
    assert!(close(dx[2], 1.382_368_210_047_214_8, 1e-12), "{dx:?}");
    assert!(close(dx[3], 5.264_120_875_313_416_5, 1e-12), "{dx:?}");
    let mut y = [0.0; 3];
    m.output(0.0, &x, &[12_000.0], &mut y);
    assert!(close(y[0], 2.576_490_132_263_735, 1e-14), "{y:?}");
    assert!(close(y[1], 0.218_498_203_701_090_47, 1e-13), "{y:?}");
    assert!(close(y[2], 2_911.186_402_335_338_2, 1e-13), "{y:?}");
}

#[test]
fn hydraulics_match_hand_computed_values_at_a_state() {
    let h = Hydraulics::default();
    assert!(close(h.bulk_modulus(1e6), 1_520_758_358.662_614_3, 1e-13));
    // t = 1.3 s: A = 0.1, γ = 0.45435 (1 − 0.1 sin(5.2π)) = 0.481056…
    assert!(close(h.spool(1.3), 0.481_056_022_937_908_45, 1e-12));
    let (x, u) = ([0.9e6, 1.2e6], [2.53, 0.02]);
    let mut dx = [0.0; 2];
    h.rhs(1.3, &x, &u, &mut dx);
    assert!(close(dx[0], 148_411_258.170_039_18, 1e-11), "{dx:?}");
    assert!(close(dx[1], -140_877_215.437_856_82, 1e-11), "{dx:?}");
    let mut y = [0.0];
    h.output(1.3, &x, &u, &mut y);
    // 0.028·0.3e6 − 2000·0.02 = 8360 N.
    assert!(close(y[0], 8360.0, 1e-12), "{y:?}");
}

#[test]
fn the_valve_at_gamma0_balances_the_load_at_the_start() {
    // The seed's check: the static equilibrium at θ₁ = π/6 needs γ₀ ≈ 0.45435.
    let (m, h) = (Mechanics::default(), Hydraulics::default());
    let (sc, lever) = m.cylinder(m.theta1);
    assert!(
        (sc - h.sc0).abs() < 1e-12,
        "start lengths differ: {sc} vs {}",
        h.sc0
    );
    let (p1, p2) = h.equilibrium_pressures(h.gamma0);
    let f = h.force(&[p1, p2], 0.0);
    let (g1, _) = m.gravity_torques(m.theta1, m.theta2);
    // The load m₃ = 290.4 kg is rounded to 0.1 kg: the torques agree to 3e-5, and the
    // spool position that balances it exactly differs from γ₀ by 1.3e-6.
    assert!(
        ((f * lever - g1) / g1).abs() < 1e-4,
        "torque {} vs {g1}",
        f * lever
    );
    let needed = g1 / lever / (h.ap * (h.p_pump - h.p_tank));
    let (mut lo, mut hi) = (0.0, 0.5);
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        let ratio = (1.0 - 2.0 * mid) / (mid * mid + (1.0 - mid) * (1.0 - mid));
        if ratio > needed {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    assert!((lo - 0.45435).abs() < 5e-6, "balancing spool position {lo}");
    // So the whole crane starts at rest: the 0.2 N·m left by the rounded load gives
    // accelerations of order 1e-4 rad/s² only, and the pressures do not move.
    let x = [m.theta1, m.theta2, 0.0, 0.0];
    let mut dx = [0.0; 4];
    m.rhs(0.0, &x, &[f], &mut dx);
    assert!(dx[2].abs() < 2e-4 && dx[3].abs() < 2e-4, "{dx:?}");
    let mut dp = [0.0; 2];
    h.rhs(0.0, &[p1, p2], &[sc, 0.0], &mut dp);
    assert!(dp[0].abs() < 1e-3 && dp[1].abs() < 1e-3, "{dp:?}");
}

#[test]
fn multibody_energy_with_a_constant_cylinder_force_stays_bounded_under_symplectic_euler() {
    // A constant force f does the work f·Δs_c, so E − f·s_c is the system's energy; with
    // the equilibrium force and a small push, the seed's h_M = 10 ms with symplectic Euler
    // keeps it within a small band for 100 s.
    let m = Mechanics {
        omega1: 0.05,
        omega2: 0.3,
        ..Mechanics::default()
    };
    let h = Hydraulics::default();
    let (p1, p2) = h.equilibrium_pressures(h.gamma0);
    let f = h.force(&[p1, p2], 0.0);
    let mut x = [m.theta1, m.theta2, m.omega1, m.omega2];
    let total = |x: &[f64; 4]| m.energy(x) - f * m.cylinder(x[0]).0;
    let e0 = total(&x);
    let kinetic0 = m.energy(&x) - m.energy(&[x[0], x[1], 0.0, 0.0]);
    let mut worst = 0.0f64;
    for _ in 0..10_000 {
        m.own_step(0.0, 0.01, &mut x, &[f]);
        worst = worst.max((total(&x) - e0).abs());
    }
    assert!(worst < 0.05 * kinetic0, "swing {worst} J of {kinetic0} J");
}

#[test]
fn the_registry_builds_both_sides_with_their_own_methods() {
    let none = BTreeMap::new();
    let m = instantiate(MECHANICS_ID, &none, &SolverSpec::Default).expect("mechanics");
    assert!(m.description().capabilities.x_reports_energy);
    let h = instantiate(HYDRAULICS_ID, &none, &SolverSpec::Euler).expect("hydraulics");
    assert!(!h.description().capabilities.x_reports_energy);
    let p1 = h.description().variable("p1").and_then(|v| v.start);
    let (e1, _) = Hydraulics::default().equilibrium_pressures(0.45435);
    assert_eq!(p1, Some(e1));
    assert!(instantiate(HYDRAULICS_ID, &none, &SolverSpec::SymplecticEuler).is_err());
    let mut bad = BTreeMap::new();
    bad.insert(alloc::string::String::from("pT"), 3e6);
    assert!(instantiate(HYDRAULICS_ID, &bad, &SolverSpec::Default).is_err());
}
