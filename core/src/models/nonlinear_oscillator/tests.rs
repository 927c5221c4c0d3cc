//! The double nonlinear oscillator: element laws and energies by hand, the √-spring's
//! energy as the work of its force, and the energy of the monolithic system under the
//! symplectic Euler of the co-simulation (bounded, no drift).

use super::*;
use crate::models::registry::instantiate;
use crate::solvers::SolverSpec;
use alloc::collections::BTreeMap;

#[test]
fn element_forces_and_energies_match_hand_computed_values() {
    let e = Element {
        k: 2.0,
        ks: 3.0,
        c: 5.0,
        cq: 7.0,
    };
    // e = 4 m, ė = −2 m/s: −(2·4 + 3·2 + 5·(−2) − 7·4) = 24 N.
    assert_eq!(e.force(4.0, -2.0), 24.0);
    // V(4) = ½·2·16 + ⅔·3·8 = 32 J; V is even in e.
    assert!((e.potential(4.0) - 32.0).abs() < 1e-12);
    assert_eq!(e.potential(-4.0), e.potential(4.0));
    assert_eq!(e.force(0.0, 0.0), 0.0);
}

#[test]
fn the_sqrt_spring_energy_is_the_work_of_its_force() {
    // ∫₀^a −F(e) de by the midpoint rule against V(a), for both signs of a.
    let spring = Element {
        ks: 100.0,
        ..Element::default()
    };
    for a in [2.5f64, -0.7] {
        let n = 200_000;
        let de = a / n as f64;
        let work: f64 = (0..n)
            .map(|i| -spring.force((i as f64 + 0.5) * de, 0.0) * de)
            .sum();
        assert!(
            (work - spring.potential(a)).abs() < 1e-6 * spring.potential(a),
            "{a}"
        );
    }
}

#[test]
fn mass1_outputs_the_force_on_mass2_and_its_stored_energy() {
    let m1 = Mass1::default();
    // Mass 1 at x = 0.25, v = 1; mass 2 at x2 = 1.25, v2 = −1: elongation 1 m, so the
    // coupling √-spring pulls mass 2 back with −100 N and stores ⅔·100 J.
    let mut y = [0.0; 2];
    m1.output(0.0, &[0.25, 1.0], &[1.25, -1.0], &mut y);
    assert_eq!(y[0], -100.0);
    let expected = 0.5 + 2.0 / 3.0 * 10.0 * 0.125 + 2.0 / 3.0 * 100.0;
    assert!((y[1] - expected).abs() < 1e-12, "{y:?}");
    // Mass 1 feels the reaction +100 N and its ground spring −10·√0.25 = −5 N.
    let mut dx = [0.0; 2];
    m1.rhs(0.0, &[0.25, 1.0], &[1.25, -1.0], &mut dx);
    assert_eq!(dx, [1.0, 95.0]);
}

/// Energy of the monolithic oscillator stepped by symplectic Euler with the coupling
/// force of the current state (no interface), every step for `t_end` s at `h`.
fn monolithic_energies(m1: &Mass1, m2: &Mass2, h: f64, t_end: f64) -> Vec<f64> {
    let mut z = [m1.x, m1.v, m2.x, m2.v];
    let mut out = Vec::new();
    let energy = |z: &[f64; 4]| {
        let (mut y1, mut y2) = ([0.0; 2], [0.0; 3]);
        m1.output(0.0, &z[0..2], &z[2..4], &mut y1);
        m2.output(0.0, &z[2..4], &[0.0], &mut y2);
        y1[1] + y2[2]
    };
    out.push(energy(&z));
    for _ in 0..(t_end / h).round() as usize {
        let f = m1.coupling_force(z[0], z[1], z[2], z[3]);
        let (mut d1, mut d2) = ([0.0; 2], [0.0; 2]);
        m1.rhs(0.0, &z[0..2], &z[2..4], &mut d1);
        m2.rhs(0.0, &z[2..4], &[f], &mut d2);
        z[1] += h * d1[1];
        z[3] += h * d2[1];
        z[0] += h * z[1];
        z[2] += h * z[3];
        out.push(energy(&z));
    }
    out
}

#[test]
fn case1_monolithic_energy_under_symplectic_euler_stays_bounded_without_drift() {
    let e = monolithic_energies(&Mass1::default(), &Mass2::default(), 1e-3, 20.0);
    let e0 = e[0];
    assert_eq!(e0, 1e4, "½·1·100² twice, springs unloaded");
    let worst = e.iter().map(|v| (v / e0 - 1.0).abs()).fold(0.0, f64::max);
    assert!(worst < 0.03, "swing {worst}");
    // No drift: the mean over the last 2 s equals the mean over the first 2 s within 1 %.
    let mean = |s: &[f64]| s.iter().sum::<f64>() / s.len() as f64;
    let (first, last) = (mean(&e[..2000]), mean(&e[e.len() - 2000..]));
    assert!((last / first - 1.0).abs() < 0.01, "{first} {last}");
}

#[test]
fn case2_quadratic_dampers_dissipate_what_the_energy_loses() {
    // Linear springs, quadratic dampers everywhere: E falls monotonically in the mean and
    // ends well below E0 after 10 s (c_q = 1e-3 N·s²/m² at 100 m/s is ~1 kW at the start).
    let damper = |k: f64| Element {
        k,
        cq: 1e-3,
        ..Element::default()
    };
    let m1 = Mass1 {
        ground: damper(10.0),
        coupling: damper(100.0),
        ..Mass1::default()
    };
    let m2 = Mass2 {
        ground: damper(1000.0),
        ..Mass2::default()
    };
    let e = monolithic_energies(&m1, &m2, 1e-3, 10.0);
    let (e1, e10) = (e[1000] / e[0], e[e.len() - 1] / e[0]);
    assert!(e1 < 0.9 && e1 > 0.7, "E(1 s)/E0 = {e1}");
    assert!(e10 < 0.3 && e10 > 0.1, "E(10 s)/E0 = {e10}");
}

#[test]
fn the_registry_builds_both_with_symplectic_euler_by_default() {
    for id in [MASS1_ID, MASS2_ID] {
        let m = instantiate(id, &BTreeMap::new(), &SolverSpec::Default).expect(id);
        assert!(m.description().capabilities.x_reports_energy, "{id}");
    }
}
