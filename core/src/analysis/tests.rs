//! Tests of the monolithic reference against hand-derived matrices and closed forms.

use super::*;
use crate::error::MasterError;
use crate::models::instantiate;
use crate::models::two_mass_oscillator::{
    exact_outputs, monolithic_a, Mass1Params, Mass2Params, MASS1_ID, MASS2_ID,
};
use crate::module::{InstantiateOptions, Subsystem};
use crate::solvers::SolverSpec;
use alloc::collections::BTreeMap;
use alloc::string::String;
use nalgebra::{DMatrix, DVector};

fn block(a: f64, b: f64, c: f64, d: f64, x0: f64) -> LinearBlock {
    let s = |v| DMatrix::from_element(1, 1, v);
    LinearBlock {
        a: s(a),
        b: s(b),
        c: s(c),
        d: s(d),
        x0: DVector::from_element(1, x0),
    }
}

fn subsystem(id: &str, params: &[(&str, f64)], solver: &SolverSpec) -> Subsystem {
    let map: BTreeMap<String, f64> = params.iter().map(|(k, v)| (String::from(*k), *v)).collect();
    let module = instantiate(id, &map, solver).expect("model");
    let mut sub =
        Subsystem::instantiate(module, InstantiateOptions::default()).expect("instantiate");
    sub.enter_initialization_mode(None, 0.0, None)
        .expect("init");
    sub
}

/// L for the two-mass oscillator: inputs [Mass1.Fk, Mass2.s1, Mass2.v1], outputs
/// [Mass1.s1, Mass1.v1, Mass2.Fk] (docs/methods.md §11.1, paper eqn (27)).
fn two_mass_l() -> DMatrix<f64> {
    DMatrix::from_row_slice(3, 3, &[0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0])
}

#[test]
fn two_mass_a_star_equals_hand_written_monolithic_matrix() {
    let (ck, dk) = (3e5, 7e2);
    for solver in [SolverSpec::Exact, SolverSpec::Rk4 { step: 1e-5 }] {
        let mut s1 = subsystem(MASS1_ID, &[("x1", 0.01)], &solver);
        let mut s2 = subsystem(MASS2_ID, &[("ck", ck), ("dk", dk), ("x2", 0.2)], &solver);
        let blocks = [
            LinearBlock::from_subsystem(&mut s1).expect("block 1"),
            LinearBlock::from_subsystem(&mut s2).expect("block 2"),
        ];
        let r = MonolithicReference::new(&blocks, &two_mass_l()).expect("reference");
        let p2 = Mass2Params {
            ck,
            dk,
            ..Mass2Params::default()
        };
        let want = monolithic_a(&Mass1Params::default(), &p2);
        // Exact Jacobians give A* to rounding; finite differences to their accuracy.
        let tol = if solver == SolverSpec::Exact {
            1e-14
        } else {
            1e-7
        };
        let err = (r.a_star() - &want).norm() / want.norm();
        assert!(err < tol, "{solver:?}: relative error {err}");
        // C* rows: s1, v1, ck (s2 − s1) + dk (v2 − v1).
        let c_want = DMatrix::from_row_slice(
            3,
            4,
            &[1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, -ck, -dk, ck, dk],
        );
        assert!(
            (r.c_star() - &c_want).norm() <= tol * c_want.norm(),
            "{solver:?}: C*"
        );
        assert_eq!(r.x0().as_slice(), &[0.01, 0.0, 0.0, 0.2]);
    }
}

#[test]
fn outputs_follow_the_scalar_exponential_forward_and_backward() {
    let r = MonolithicReference::new(&[block(-0.5, 1.0, 3.0, 0.0, 2.0)], &DMatrix::zeros(1, 1))
        .expect("reference");
    let h = 0.1;
    let rows = r.outputs_at_offsets(h, 10).expect("forward");
    assert_eq!(rows.len(), 11);
    for (k, y) in rows.iter().enumerate() {
        let want = 6.0 * libm::exp(-0.5 * k as f64 * h);
        assert!(libm::fabs(y[0] - want) < 1e-14 * want, "k = {k}");
    }
    let past = r.outputs_at_negative_offsets(h, 3).expect("backward");
    for (i, y) in past.iter().enumerate() {
        let k = 3 - i; // oldest first
        let want = 6.0 * libm::exp(0.5 * k as f64 * h);
        assert!(libm::fabs(y[0] - want) < 1e-14 * want, "k = -{k}");
    }
    let hist = r.history(1.0, h, 2).expect("history");
    assert_eq!(hist.len(), 2);
    assert!(libm::fabs(hist[0].0 - 0.8) < 1e-15 && libm::fabs(hist[1].0 - 0.9) < 1e-15);
    assert_eq!(hist[1].1, past[2]);
    assert!(r.outputs_at_offsets(0.0, 1).is_err());
}

#[test]
fn feedthrough_loop_is_closed_through_inverse_of_i_minus_dl() {
    // y = x + 0.5 u, u = y: y = 2x, x' = −x + u = x.
    let r = MonolithicReference::new(
        &[block(-1.0, 1.0, 1.0, 0.5, 1.0)],
        &DMatrix::from_element(1, 1, 1.0),
    )
    .expect("reference");
    assert!(libm::fabs(r.a_star()[(0, 0)] - 1.0) < 1e-15);
    assert!(libm::fabs(r.c_star()[(0, 0)] - 2.0) < 1e-15);
    let singular = MonolithicReference::new(
        &[block(-1.0, 1.0, 1.0, 1.0, 1.0)],
        &DMatrix::from_element(1, 1, 1.0),
    );
    assert!(
        matches!(singular, Err(MasterError::SingularMatrix { .. })),
        "{singular:?}"
    );
    let wrong_l =
        MonolithicReference::new(&[block(-1.0, 1.0, 1.0, 0.0, 1.0)], &DMatrix::zeros(2, 1));
    assert!(matches!(wrong_l, Err(MasterError::InvalidSettings(_))));
}

/// `[s1, v1, Fk]` of the default two-mass oscillator at t = 0.05 s from x0 = (0.01, 0, 0, 0),
/// computed independently with a 50-digit matrix exponential (mpmath 1.3 `expm`).
pub(crate) const TWO_MASS_AT_50_MS: [f64; 3] = [
    -2.456_732_301_053_455e-4,
    1.041_420_885_896_379_8,
    -447.890_755_535_586_66,
];

#[test]
fn two_mass_reference_stays_exact_over_fifty_thousand_steps() {
    let mut s1 = subsystem(MASS1_ID, &[], &SolverSpec::Exact);
    let mut s2 = subsystem(MASS2_ID, &[], &SolverSpec::Exact);
    let blocks = [
        LinearBlock::from_subsystem(&mut s1).expect("block 1"),
        LinearBlock::from_subsystem(&mut s2).expect("block 2"),
    ];
    let r = MonolithicReference::new(&blocks, &two_mass_l()).expect("reference");
    let amplitude = [0.01, 3.2, 2e3]; // of s1, v1, Fk
    for (h, n) in [(1e-4, 500u32), (1e-6, 50_000)] {
        let rows = r.outputs_at_offsets(h, n).expect("outputs");
        let last = &rows[n as usize];
        for j in 0..3 {
            let err = libm::fabs(last[j] - TWO_MASS_AT_50_MS[j]) / amplitude[j];
            assert!(
                err < 1e-13,
                "h = {h}: output {j}: {} vs {} (error {err:e})",
                last[j],
                TWO_MASS_AT_50_MS[j]
            );
        }
    }
    let direct =
        exact_outputs(&Mass1Params::default(), &Mass2Params::default(), 0.05).expect("exact");
    for j in 0..3 {
        assert!(
            libm::fabs(direct[j] - TWO_MASS_AT_50_MS[j]) / amplitude[j] < 1e-14,
            "exact_outputs {j}"
        );
    }
}
