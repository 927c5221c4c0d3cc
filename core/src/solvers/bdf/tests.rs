//! The BDF against known solutions: a stiff linear system (matrix exponential), Van der
//! Pol with μ = 1000 and Robertson's kinetics (published reference values), tolerance
//! proportionality, order variation, restarts and bad settings.

use super::*;
use crate::solvers::expm;
use alloc::vec;
use nalgebra::{DMatrix, DVector};

/// `y' = A y`.
struct Linear(DMatrix<f64>);
impl OdeSystem for Linear {
    fn dim(&self) -> usize {
        self.0.nrows()
    }
    fn rhs(&mut self, _t: f64, x: &[f64], dx: &mut [f64]) {
        let y = &self.0 * DVector::from_column_slice(x);
        dx.copy_from_slice(y.as_slice());
    }
}

/// A non-normal stiff matrix with eigenvalues −1, −1e3 and −1e5 (stiffness ratio 1e5).
fn stiff_matrix() -> DMatrix<f64> {
    let d = DMatrix::from_diagonal(&DVector::from_vec(vec![-1.0, -1e3, -1e5]));
    let s = DMatrix::from_row_slice(3, 3, &[1.0, 0.5, 0.2, 0.0, 1.0, 0.7, 0.3, 0.0, 1.0]);
    let s_inv = s.clone().try_inverse().expect("invertible");
    s * d * s_inv
}

/// Largest relative error at t = 2 of the stiff linear system integrated at `rtol`.
fn linear_error(rtol: f64) -> (f64, IntegrationStats) {
    let a = stiff_matrix();
    let y0 = [1.0, -2.0, 0.5];
    let exact = expm(&(a.clone() * 2.0)).expect("expm") * DVector::from_column_slice(&y0);
    let mut y = y0;
    let bdf = Bdf {
        rtol,
        atol: vec![rtol * 1e-3],
    };
    let mut ws = Workspace::new(3);
    let stats = bdf
        .integrate(&mut Linear(a), 0.0, 2.0, &mut y, &mut ws)
        .expect("integrates");
    let scale = exact.amax();
    let err = (0..3).fold(0.0f64, |m, i| m.max(libm::fabs(y[i] - exact[i]) / scale));
    (err, stats)
}

#[test]
fn stiff_linear_system_matches_the_matrix_exponential_and_error_falls_with_rtol() {
    let mut last = f64::INFINITY;
    for rtol in [1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8] {
        let (err, stats) = linear_error(rtol);
        // Global error within a small multiple of rtol, and strictly smaller at every
        // tenfold tighter tolerance.
        assert!(err < 20.0 * rtol, "rtol {rtol}: error {err:e}");
        assert!(err < last, "rtol {rtol}: error {err:e} not below {last:e}");
        // Stiff: an explicit method would need ≳ 2/1e5 · 2 s = 1e5 steps.
        assert!(stats.accepted < 2_000, "rtol {rtol}: {stats:?}");
        last = err;
    }
}

/// Van der Pol in the scaled form of the IVP test set (Hairer & Wanner, "Solving ODEs
/// II", §IV.10 and the Bari test set "VDPOL"): `y1' = y2`, `y2' = ((1 − y1²) y2 − y1)/ε`
/// with ε = 1e-6, i.e. μ = 1000 in time scaled by μ.
struct VanDerPol;
impl OdeSystem for VanDerPol {
    fn dim(&self) -> usize {
        2
    }
    fn rhs(&mut self, _t: f64, y: &[f64], dy: &mut [f64]) {
        dy[0] = y[1];
        dy[1] = ((1.0 - y[0] * y[0]) * y[1] - y[0]) / 1e-6;
    }
}

fn van_der_pol(rtol: f64) -> ([f64; 2], IntegrationStats, [u32; MAX_ORDER + 1]) {
    let mut y = [2.0, 0.0];
    let mut ws = Workspace::new(2);
    let bdf = Bdf {
        rtol,
        atol: vec![rtol],
    };
    let stats = bdf
        .integrate(&mut VanDerPol, 0.0, 2.0, &mut y, &mut ws)
        .expect("integrates");
    let orders = ws.bdf.as_ref().expect("work").steps_at_order;
    (y, stats, orders)
}

/// Reference at t = 2 from the test set (RADAU5 at tolerance 1e-12):
/// y1 = 1.706167732170483, y2 = −0.8928097010247975.
const VDP_REF: [f64; 2] = [1.706_167_732_170_483, -0.892_809_701_024_797_5];

#[test]
fn van_der_pol_mu_1000_matches_the_published_reference() {
    let mut last = f64::INFINITY;
    for rtol in [1e-5, 1e-7, 1e-9] {
        let (y, stats, orders) = van_der_pol(rtol);
        let err = libm::fabs(y[0] - VDP_REF[0]).max(libm::fabs(y[1] - VDP_REF[1]));
        assert!(
            err < 1e3 * rtol,
            "rtol {rtol}: {y:?}, error {err:e}, {stats:?}"
        );
        assert!(err < last, "rtol {rtol}: error {err:e} not below {last:e}");
        last = err;
        // The order really varies: low orders at the fast transitions, high ones on the
        // slow manifold.
        let low = orders[1] + orders[2];
        let high = orders[4] + orders[5];
        assert!(
            low > 0 && high > 0,
            "rtol {rtol}: steps per order {orders:?}"
        );
    }
}

/// Robertson's chemical kinetics (Hairer & Wanner II, §IV.1, eqn (1.4)).
struct Robertson;
impl OdeSystem for Robertson {
    fn dim(&self) -> usize {
        3
    }
    fn rhs(&mut self, _t: f64, y: &[f64], dy: &mut [f64]) {
        let r1 = 0.04 * y[0];
        let r2 = 1e4 * y[1] * y[2];
        let r3 = 3e7 * y[1] * y[1];
        dy[0] = -r1 + r2;
        dy[1] = r1 - r2 - r3;
        dy[2] = r3;
    }
}

#[test]
fn robertson_matches_published_values_at_t_40() {
    // Reference (Hairer & Wanner II, §IV.10; SUNDIALS cvRoberts): y(40).
    let reference = [
        0.715_827_068_719_368_7,
        9.185_534_764_557_768e-6,
        0.284_163_745_739_783_7,
    ];
    let mut y = [1.0, 0.0, 0.0];
    let bdf = Bdf {
        rtol: 1e-8,
        atol: vec![1e-12, 1e-16, 1e-12],
    };
    let mut ws = Workspace::new(3);
    let stats = bdf
        .integrate(&mut Robertson, 0.0, 40.0, &mut y, &mut ws)
        .expect("integrates");
    for i in 0..3 {
        let rel = libm::fabs(y[i] - reference[i]) / reference[i];
        assert!(
            rel < 1e-5,
            "component {i}: {} vs {}, {stats:?}",
            y[i],
            reference[i]
        );
    }
    assert!(
        (y[0] + y[1] + y[2] - 1.0).abs() < 1e-10,
        "mass conserved: {y:?}"
    );
}

#[test]
fn restarts_reproduce_bit_for_bit_and_stay_accurate() {
    let a = stiff_matrix();
    let bdf = Bdf {
        rtol: 1e-6,
        atol: vec![1e-9],
    };
    let y0 = [1.0, -2.0, 0.5];
    let (mut y, mut ws) = (y0, Workspace::new(3));
    let mut sys = Linear(a.clone());
    for i in 0..10 {
        let t = 0.1 * i as f64;
        bdf.integrate(&mut sys, t, t + 0.1, &mut y, &mut ws)
            .expect("piece");
    }
    // A saved state (x and step hint) replayed in a fresh workspace gives the identical
    // result: nothing else carries over between calls.
    let (mut replay, mut ws2) = (y, Workspace::new(3));
    ws2.step_hint = ws.step_hint;
    bdf.integrate(&mut sys, 1.0, 1.1, &mut y, &mut ws)
        .expect("a");
    bdf.integrate(&mut sys, 1.0, 1.1, &mut replay, &mut ws2)
        .expect("b");
    assert_eq!(y, replay);
    assert_eq!(ws.step_hint, ws2.step_hint);
    // Eleven restarts at order 1 still meet the tolerance to a small multiple.
    let exact = expm(&(a * 1.1)).expect("expm") * DVector::from_column_slice(&y0);
    for i in 0..3 {
        assert!(libm::fabs(y[i] - exact[i]) < 1e-4, "{y:?} vs {exact}");
    }
}

#[test]
fn bad_settings_are_errors() {
    let mut ws = Workspace::new(3);
    let mut y = [1.0, 0.0, 0.0];
    for (rtol, atol) in [
        (0.0, vec![1e-6]),
        (1e-6, vec![0.0]),
        (1e-6, vec![1e-6, 1e-6]),
    ] {
        let r = Bdf { rtol, atol }.integrate(&mut Robertson, 0.0, 1.0, &mut y, &mut ws);
        assert!(matches!(r, Err(SolverError::InvalidSettings(_))), "{r:?}");
    }
}
