//! The stepped module through the [`Module`] interface: one own step is one symplectic
//! Euler step of the model, `default` is the own method, integrators stay available, and
//! the energy output declares `x-reportsEnergy`.

use super::*;
use crate::models::nonlinear_oscillator::{Element, Mass2, MASS2_ID};
use crate::models::registry::instantiate;
use crate::module::{InputDerivatives, ValueRef};
use alloc::collections::BTreeMap;
use alloc::string::String;

/// Mass 2 of the nonlinear oscillator with a linear spring only (k = 400 N/m, m = 2 kg).
fn linear_mass() -> Mass2 {
    Mass2 {
        m: 2.0,
        ground: Element {
            k: 400.0,
            ..Element::default()
        },
        x: 0.1,
        v: 3.0,
    }
}

fn value_ref(m: &dyn Module, name: &str) -> ValueRef {
    m.description().variable(name).expect(name).value_ref
}

#[test]
fn one_own_step_is_one_symplectic_euler_step_with_the_input_at_the_step_start() {
    let mut m = SteppedModule::new(linear_mass(), &SolverSpec::Default).expect("builds");
    assert!(m.steps_itself());
    m.enter_initialization_mode(None, 0.0, None).expect("init");
    m.exit_initialization_mode().expect("init");
    let f = value_ref(&m, "f");
    m.set_float64(&[f], &[5.0]).expect("input");
    // An input slope the own step must ignore (ũ = u_k over the step).
    let d = crate::module::Derivatives {
        vrs: &[f],
        orders: &[1],
        values: &[1e3][..],
    };
    m.set_input_derivatives(d).expect("slope");
    m.do_step(0.0, 0.01, true).expect("step");
    // v = 3 + 0.01·(−400·0.1 + 5)/2 = 2.825; x = 0.1 + 0.01·2.825 = 0.12825.
    let (x, v) = (m.state()[0], m.state()[1]);
    assert!((v - 2.825).abs() < 1e-15, "{v}");
    assert!((x - 0.12825).abs() < 1e-15, "{x}");
    let mut e = [0.0];
    m.get_float64(&[value_ref(&m, "E")], &mut e).expect("E");
    let expected = 0.5 * 2.0 * v * v + 0.5 * 400.0 * x * x;
    assert!((e[0] - expected).abs() < 1e-12, "{e:?}");
}

#[test]
fn integrators_remain_and_other_solvers_are_refused_naming_the_own_method() {
    let rk4 = SolverSpec::Rk4 { step: 1e-3 };
    let m = SteppedModule::new(linear_mass(), &rk4).expect("rk4");
    assert!(!m.steps_itself());
    let e = match instantiate(MASS2_ID, &BTreeMap::new(), &SolverSpec::Euler) {
        Ok(_) => panic!("euler accepted"),
        Err(e) => alloc::format!("{e}"),
    };
    assert!(e.contains("`symplectic_euler` (the default)"), "{e}");
    let built = instantiate(MASS2_ID, &BTreeMap::new(), &SolverSpec::SymplecticEuler);
    assert!(built.is_ok());
}

#[test]
fn an_energy_output_declares_x_reports_energy() {
    let mut params = BTreeMap::new();
    params.insert(String::from("m2"), 3.0);
    let m = instantiate(MASS2_ID, &params, &SolverSpec::Default).expect("builds");
    assert!(m.description().capabilities.x_reports_energy);
    assert!(m.description().capabilities.x_exposes_equations);
}

#[test]
fn symplectic_euler_keeps_its_modified_energy_of_a_linear_oscillator_exactly() {
    // For v' = v − h k x/m, x' = x + h v', the quantity ½ m v² + ½ k x² − ½ h k x v is
    // invariant, so E = Q + ½ h k x v only swings and never drifts: |E − E0| ≤ h·ω·E.
    let p = linear_mass();
    let (h, k, m) = (1e-3, p.ground.k, p.m);
    let modified =
        |x: &[f64]| 0.5 * m * x[1] * x[1] + 0.5 * k * x[0] * x[0] - 0.5 * h * k * x[0] * x[1];
    let mut x = [p.x, p.v];
    let q0 = modified(&x);
    let e0 = 0.5 * m * p.v * p.v + 0.5 * k * p.x * p.x;
    let (mut worst_q, mut worst_e) = (0.0f64, 0.0f64);
    for _ in 0..100_000 {
        symplectic_euler(&p, 0.0, h, &mut x, &[0.0]);
        worst_q = worst_q.max((modified(&x) - q0).abs() / q0);
        let e = 0.5 * m * x[1] * x[1] + 0.5 * k * x[0] * x[0];
        worst_e = worst_e.max((e - e0).abs() / e0);
    }
    assert!(worst_q < 1e-12, "{worst_q}");
    // ω = √(k/m) = 14.1 rad/s: E swings by up to h·ω ≈ 1.4 %, no more.
    let h_omega = h * libm::sqrt(k / m);
    assert!(worst_e > 0.25 * h_omega && worst_e < h_omega, "{worst_e}");
}
