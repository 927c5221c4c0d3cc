//! Propagation matrices against closed forms (docs/methods.md §9.2, §9.1) and the time-domain master.

use super::*;
use crate::analysis::LinearBlock;
use crate::master::Scheme;
use crate::models::instantiate;
use crate::models::two_mass_oscillator::{MASS1_ID, MASS2_ID};
use crate::module::{InstantiateOptions, Subsystem};
use crate::solvers::discretize;
use crate::solvers::SolverSpec;
use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;
use nalgebra::{DMatrix, DVector};

pub(crate) fn two_mass_blocks(ck: f64, dk: f64) -> Vec<LinearBlock> {
    let block = |id: &str, params: &[(&str, f64)]| {
        let map: BTreeMap<String, f64> =
            params.iter().map(|(k, v)| (String::from(*k), *v)).collect();
        let module = instantiate(id, &map, &SolverSpec::Exact).expect("model");
        let mut sub =
            Subsystem::instantiate(module, InstantiateOptions::default()).expect("instantiate");
        sub.enter_initialization_mode(None, 0.0, None)
            .expect("init");
        LinearBlock::from_subsystem(&mut sub).expect("block")
    };
    alloc::vec![
        block(MASS1_ID, &[]),
        block(MASS2_ID, &[("ck", ck), ("dk", dk)])
    ]
}

/// Inputs [Mass1.Fk, Mass2.s1, Mass2.v1], outputs [s1, v1, Fk] (docs/methods.md §11.1, paper eqn 27).
pub(crate) fn two_mass_l() -> DMatrix<f64> {
    DMatrix::from_row_slice(3, 3, &[0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0])
}

fn block_diag(ms: &[&DMatrix<f64>]) -> DMatrix<f64> {
    let rows = ms.iter().map(|m| m.nrows()).sum();
    let cols = ms.iter().map(|m| m.ncols()).sum();
    let mut out = DMatrix::zeros(rows, cols);
    let (mut r, mut c) = (0, 0);
    for m in ms {
        out.view_mut((r, c), m.shape()).copy_from(m);
        r += m.nrows();
        c += m.ncols();
    }
    out
}

fn rel(a: &DMatrix<f64>, b: &DMatrix<f64>) -> f64 {
    (a - b).norm() / b.norm().max(1e-300)
}

#[test]
fn plain_zoh_equals_the_closed_form_block_matrix() {
    let blocks = two_mass_blocks(2e5, 5e2);
    let h = 1e-4;
    let pm = PropagationMatrix::build(&blocks, &two_mass_l(), &PropagationMethod::jacobi(0), h)
        .expect("phi");
    let d1 = discretize(&blocks[0].a, &blocks[0].b, h, 0).expect("d1");
    let d2 = discretize(&blocks[1].a, &blocks[1].b, h, 0).expect("d2");
    let ad = block_diag(&[&d1.ad, &d2.ad]);
    let bd0 = block_diag(&[&d1.gamma[0], &d2.gamma[0]]);
    let c = block_diag(&[&blocks[0].c, &blocks[1].c]);
    let d = block_diag(&[&blocks[0].d, &blocks[1].d]);
    let l = two_mass_l();
    // Φ = [[A_d, B_d0 L], [C A_d, K_y L]] with K_y = C B_d0 + D (docs/methods.md §9.2).
    let mut want = DMatrix::zeros(7, 7);
    want.view_mut((0, 0), (4, 4)).copy_from(&ad);
    want.view_mut((0, 4), (4, 3)).copy_from(&(&bd0 * &l));
    want.view_mut((4, 0), (3, 4)).copy_from(&(&c * &ad));
    want.view_mut((4, 4), (3, 3))
        .copy_from(&((&c * &bd0 + &d) * &l));
    assert!(rel(pm.phi(), &want) < 1e-14, "{}", rel(pm.phi(), &want));
    assert_eq!(pm.layout().dim(), 7);
}

#[test]
fn perfect_model_corrector_forgets_past_outputs() {
    // docs/methods.md §9.2: with exact Jacobians K_y = G_ZOH, so M_y = M_δu = 0; for FOH ȳ_{n+1}
    // depends on x_n and ȳ_n only (§9.2).
    let blocks = two_mass_blocks(2e5, 5e2);
    for p in 0..=1u32 {
        let pm = PropagationMatrix::build(
            &blocks,
            &two_mass_l(),
            &PropagationMethod::corrected(p, 1.0),
            3e-4,
        )
        .expect("phi");
        let lay = pm.layout();
        let phi = pm.phi();
        let y = lay.y(0);
        let scale = phi.rows(y.start, y.len()).norm();
        let du = lay.du().expect("du slot");
        let du_cols = phi.view((y.start, du.start), (y.len(), du.len())).norm();
        assert!(du_cols < 1e-12 * scale, "p = {p}: M_du = {du_cols:e}");
        let last = lay.y(p as usize);
        let hist_cols = phi
            .view((y.start, last.start), (y.len(), last.len()))
            .norm();
        assert!(
            hist_cols < 1e-12 * scale,
            "p = {p}: oldest history column {hist_cols:e}"
        );
        assert_eq!(lay.dim(), 4 + 3 * (p as usize + 1) + 3);
    }
}

#[test]
fn phi_times_z_equals_the_direct_step() {
    let blocks = two_mass_blocks(1e7, 3e3);
    let methods = [
        PropagationMethod::jacobi(3),
        PropagationMethod::corrected(4, 0.7),
        PropagationMethod {
            scheme: Scheme::GaussSeidel(alloc::vec![1, 0]),
            order: 2,
            correction: None,
        },
    ];
    for m in &methods {
        let pm = PropagationMatrix::build(&blocks, &two_mass_l(), m, 2e-5).expect("phi");
        let z = DVector::from_fn(pm.layout().dim(), |i, _| libm::sin(1.0 + i as f64));
        let direct = pm.step(&z);
        let via_phi = pm.phi() * &z;
        assert!(
            (&direct - &via_phi).norm() <= 1e-13 * direct.norm(),
            "{m:?}"
        );
    }
}

#[test]
fn bad_methods_are_refused() {
    let blocks = two_mass_blocks(2e5, 5e2);
    let l = two_mass_l();
    let gs = |seq: Vec<usize>, corr| PropagationMethod {
        scheme: Scheme::GaussSeidel(seq),
        order: 1,
        correction: corr,
    };
    assert!(PropagationMatrix::build(&blocks, &l, &PropagationMethod::jacobi(5), 1e-4).is_err());
    assert!(PropagationMatrix::build(&blocks, &l, &gs(alloc::vec![0, 0], None), 1e-4).is_err());
    assert!(
        PropagationMatrix::build(&blocks, &l, &gs(alloc::vec![0, 1], Some(1.0)), 1e-4).is_err()
    );
    assert!(PropagationMatrix::build(&blocks, &l, &PropagationMethod::jacobi(1), 0.0).is_err());
    assert!(PropagationMatrix::build(
        &blocks,
        &DMatrix::zeros(2, 3),
        &PropagationMethod::jacobi(1),
        1e-4
    )
    .is_err());
}

#[test]
fn reference_matrix_is_padded_exact_solution() {
    let blocks = two_mass_blocks(2e5, 5e2);
    let pm = PropagationMatrix::build(
        &blocks,
        &two_mass_l(),
        &PropagationMethod::corrected(2, 1.0),
        1e-4,
    )
    .expect("phi");
    let r = reference_matrix(&blocks, &two_mass_l(), &pm.layout(), 1e-4).expect("reference");
    assert_eq!(r.shape(), (pm.layout().dim(), pm.layout().dim()));
    assert_eq!(r.columns(4, r.ncols() - 4).norm(), 0.0);
    assert_eq!(r.rows(7, r.nrows() - 7).norm(), 0.0);
}
