//! The multiple linear oscillator: forces and energies by hand, the registry, and the
//! monolithic star of the presets (n = 3 and 5) under symplectic Euler, whose modified
//! energy `E − ½ h xᵀ K v` is invariant for a linear undamped system.

use super::*;
use crate::models::registry::instantiate;
use alloc::collections::BTreeMap;

/// Outer mass i (from 1) as the presets set it: k = 5(i + 1), k_c = 20 + 5i N/m.
fn outer(i: usize) -> OuterMass {
    OuterMass {
        k: 5.0 * (i as f64 + 1.0),
        kc: 20.0 + 5.0 * i as f64,
        ..OuterMass::default()
    }
}

#[test]
fn outer_mass_outputs_the_force_on_the_tip_and_its_energy() {
    let m = OuterMass {
        cc: 2.0,
        ..outer(2)
    };
    // Mass at x = 0.5, v = 3; tip at xn = −0.5, vn = 1: stretch −1 m, rate −2 m/s.
    // f = −30·(−1) − 2·(−2) = 34 N on the tip; E = ½(9 + 15·0.25 + 30·1) = 21.375 J.
    let mut y = [0.0; 2];
    m.output(0.0, &[0.5, 3.0], &[-0.5, 1.0], &mut y);
    assert_eq!(y, [34.0, 21.375]);
    let mut dx = [0.0; 2];
    m.rhs(0.0, &[0.5, 3.0], &[-0.5, 1.0], &mut dx);
    assert_eq!(dx, [3.0, -15.0 * 0.5 - 34.0]);
    // The tip sums its inputs.
    let mut dx = [0.0; 2];
    Tip::<4>::default().rhs(0.0, &[0.01, 0.0], &[1.0, 2.0, 3.0, 4.0], &mut dx);
    assert_eq!(dx, [0.0, -5.0 + 10.0]);
}

/// Steps the monolithic star (outer masses, then the tip) by symplectic Euler and
/// returns (E, modified energy) at every step.
fn monolithic<const N: usize>(h: f64, steps: usize) -> Vec<(f64, f64)> {
    let masses: Vec<OuterMass> = (1..=N).map(outer).collect();
    let tip = Tip::<N>::default();
    let mut x: Vec<[f64; 2]> = masses.iter().map(|m| [m.x, m.v]).collect();
    let mut xt = [tip.x, tip.v];
    let energies = |x: &[[f64; 2]], xt: &[f64; 2]| {
        let mut e = 0.5 * (tip.m * xt[1] * xt[1] + tip.k * xt[0] * xt[0]);
        // ½ h xᵀ K v, K the stiffness matrix of the star.
        let mut xkv = tip.k * xt[0] * xt[1];
        for (m, s) in masses.iter().zip(x) {
            let mut y = [0.0; 2];
            m.output(0.0, s, xt, &mut y);
            e += y[1];
            xkv += m.k * s[0] * s[1] + m.kc * (xt[0] - s[0]) * (xt[1] - s[1]);
        }
        (e, e - 0.5 * h * xkv)
    };
    let mut out = vec![energies(&x, &xt)];
    for _ in 0..steps {
        let forces: Vec<f64> = masses
            .iter()
            .zip(&x)
            .map(|(m, s)| m.coupling_force(s[0], s[1], xt[0], xt[1]))
            .collect();
        for (m, s) in masses.iter().zip(x.iter_mut()) {
            let mut d = [0.0; 2];
            m.rhs(0.0, s, &xt, &mut d);
            s[1] += h * d[1];
            s[0] += h * s[1];
        }
        let mut d = [0.0; 2];
        tip.rhs(0.0, &xt, &forces, &mut d);
        xt[1] += h * d[1];
        xt[0] += h * xt[1];
        out.push(energies(&x, &xt));
    }
    out
}

fn check_monolithic<const N: usize>() {
    let run = monolithic::<N>(1e-3, 10_000);
    let (e0, q0) = run[0];
    assert_eq!(e0, 0.5 * (N as f64 + 1.0) * 1e4, "n = {}", N + 1);
    let worst_q = run
        .iter()
        .map(|r| (r.1 - q0).abs() / q0)
        .fold(0.0, f64::max);
    assert!(worst_q < 1e-12, "n = {}: {worst_q}", N + 1);
    // E itself swings by less than 2 % (ω_max·h ≈ 0.03) and does not drift.
    let worst_e = run
        .iter()
        .map(|r| (r.0 / e0 - 1.0).abs())
        .fold(0.0, f64::max);
    assert!(worst_e < 0.02, "n = {}: {worst_e}", N + 1);
}

#[test]
fn monolithic_star_keeps_its_modified_energy_under_symplectic_euler() {
    check_monolithic::<2>();
    check_monolithic::<4>();
}

#[test]
fn the_registry_builds_the_tips_with_one_force_input_per_outer_mass() {
    let none = BTreeMap::new();
    for (id, n) in [(TIP2_ID, 2), (TIP4_ID, 4)] {
        let m = instantiate(id, &none, &SolverSpec::Default).expect(id);
        let d = m.description();
        assert_eq!(d.model_name, id);
        assert_eq!(d.inputs().len(), n, "{id}");
        assert!(d.variable(&format!("f{n}")).is_some(), "{id}");
        assert!(d.capabilities.x_reports_energy, "{id}");
    }
    let m = instantiate(MASS_ID, &none, &SolverSpec::SymplecticEuler).expect("outer");
    assert!(m.description().capabilities.x_reports_energy);
}
