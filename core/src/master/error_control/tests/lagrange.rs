//! Lagrange polynomials on non-uniform grids: exact for polynomials up to their degree, the
//! a priori estimate (31) equal to its closed form, and the derivative norms.

use super::super::lagrange::{
    a_priori_estimate, derivatives_at, divided_differences, evaluate, lagrange_basis,
    leading_derivative, MAX_POINTS,
};
use super::super::{DerivativeNorms, GroupTolerance, NewtonPolynomial, Samples, WithNewest};
use super::{assert_close, history_of};
use alloc::format;
use alloc::vec::Vec;

/// Non-uniform times, oldest first (ratios of neighbouring steps from 0.4 to 2.3).
const TIMES: [f64; 8] = [0.0, 0.13, 0.31, 0.42, 0.6, 0.83, 0.9, 1.05];

/// Two components: a polynomial of degree `deg` and its mirror.
fn poly(deg: usize, t: f64) -> [f64; 2] {
    let coeffs = [0.7, -1.3, 2.1, 0.45, -0.8, 1.1, -0.6, 0.9];
    let p: f64 = coeffs[..=deg].iter().rev().fold(0.0, |acc, c| acc * t + c);
    [p, -2.0 * p + 1.0]
}

fn points(f: impl Fn(f64) -> [f64; 2]) -> Vec<(f64, [f64; 2])> {
    TIMES.iter().map(|&t| (t, f(t))).collect()
}

fn history(pts: &[(f64, [f64; 2])]) -> crate::master::OutputHistory {
    let refs: Vec<(f64, &[f64])> = pts.iter().map(|(t, u)| (*t, &u[..])).collect();
    history_of(&refs)
}

#[test]
fn extrapolation_reproduces_polynomials_up_to_its_degree() {
    for deg in 0..=7 {
        let h = history(&points(|t| poly(deg, t)));
        for j in deg..=7 {
            for &t in &[1.05, 1.2, 1.5, 0.5, -0.1] {
                let mut out = [0.0; 2];
                evaluate(&h, j, t, &mut out);
                let exact = poly(deg, t);
                for i in 0..2 {
                    let what = format!("deg={deg} j={j} t={t} i={i}");
                    assert_close(out[i], exact[i], 1e-11 * (1.0 + exact[i].abs()), &what);
                }
            }
        }
        // One degree too low is not exact (the signal is not of lower degree).
        if deg > 0 {
            let mut out = [0.0; 2];
            evaluate(&h, deg - 1, 1.3, &mut out);
            assert!((out[0] - poly(deg, 1.3)[0]).abs() > 1e-6, "deg={deg}");
        }
    }
}

#[test]
fn interpolation_through_a_new_end_point_reproduces_polynomials() {
    // The corrector's polynomial: (T_{N+1}, u*) in front of the newest k history points.
    for k in 0..=7 {
        let h = history(&points(|t| poly(k, t)));
        let t_new = 1.4;
        let u_new = poly(k, t_new);
        let view = WithNewest::new(t_new, &u_new, &h);
        assert_eq!((view.len(), view.time(0), view.time(1)), (9, 1.4, 1.05));
        for &t in &[1.05, 1.2, 1.4] {
            let mut out = [0.0; 2];
            evaluate(&view, k, t, &mut out);
            assert_close(out[1], poly(k, t)[1], 1e-10, &format!("k={k} t={t}"));
        }
    }
}

#[test]
fn leading_derivative_is_j_factorial_times_the_leading_coefficient() {
    let lead = [0.7, -1.3, 2.1, 0.45, -0.8, 1.1, -0.6, 0.9];
    for (j, lead_j) in lead.iter().enumerate() {
        let h = history(&points(|t| poly(j, t)));
        let mut out = [0.0; 2];
        leading_derivative(&h, j, &mut out);
        let fact: f64 = (1..=j).map(|m| m as f64).product();
        let exact = fact * lead_j;
        assert_close(
            out[0],
            exact,
            1e-8 * exact.abs().max(1.0),
            &format!("j={j}"),
        );
        assert_close(
            out[1],
            -2.0 * exact + if j == 0 { 1.0 } else { 0.0 },
            1e-7,
            "mirror",
        );
    }
}

#[test]
fn divided_differences_of_t_squared() {
    let h = history(&points(|t| [t * t, 0.0]));
    let mut d = [0.0; MAX_POINTS];
    divided_differences(&h, 0, 3, &mut d);
    // Newest first: T_0 = 1.05, T_1 = 0.9, T_2 = 0.83.
    assert_close(d[0], 1.05 * 1.05, 1e-15, "u[T0]");
    assert_close(d[1], 1.05 + 0.9, 1e-13, "u[T0,T1]");
    assert_close(d[2], 1.0, 1e-12, "u[T0,T1,T2]");
    assert_close(d[3], 0.0, 1e-10, "u[T0..T3]");
}

#[test]
fn a_priori_estimate_equals_its_closed_form_on_a_non_uniform_grid() {
    let signal = |t: f64| [libm::sin(3.0 * t), libm::exp(t)];
    let h = history(&points(signal));
    for k in 0..=5 {
        for &t_next in &[1.1, 1.3] {
            let (mut hi, mut lo, mut closed) = ([0.0; 2], [0.0; 2], [0.0; 2]);
            evaluate(&h, k + 1, t_next, &mut hi);
            evaluate(&h, k, t_next, &mut lo);
            a_priori_estimate(&h, k, t_next, &mut closed);
            for i in 0..2 {
                let diff = hi[i] - lo[i];
                assert!(
                    diff.abs() > 1e-9,
                    "k={k}: the estimate is not trivially zero"
                );
                assert_close(closed[i], diff, 1e-12, &format!("k={k} t={t_next} i={i}"));
            }
        }
    }
    // Zero for a polynomial of degree ≤ k.
    let h = history(&points(|t| poly(3, t)));
    let mut closed = [0.0; 2];
    a_priori_estimate(&h, 3, 1.2, &mut closed);
    assert!(closed.iter().all(|c| c.abs() < 1e-10));
}

#[test]
fn lagrange_basis_is_a_partition_of_unity_and_cardinal() {
    let times = [1.05, 0.9, 0.83, 0.6];
    let mut l = [0.0; 4];
    lagrange_basis(&times, 1.2, &mut l);
    assert_close(l.iter().sum::<f64>(), 1.0, 1e-13, "Σ ℓ_j");
    for (i, &ti) in times.iter().enumerate() {
        lagrange_basis(&times, ti, &mut l);
        for (j, lj) in l.iter().enumerate() {
            assert_close(*lj, if i == j { 1.0 } else { 0.0 }, 1e-14, "ℓ_j(t_i)");
        }
    }
}

#[test]
fn derivative_norms_are_the_weighted_divided_differences() {
    let signal = |t: f64| [10.0 * libm::sin(3.0 * t), libm::exp(t)];
    let h = history(&points(signal));
    let tol = GroupTolerance::new(1e-3, 0.1);
    let norms = DerivativeNorms::of(&h, &tol);
    assert_eq!(norms.len(), 8);
    let newest = signal(1.05);
    let w = [tol.weight(0, newest[0]), tol.weight(1, newest[1])];
    let wrms = |v: [f64; 2]| {
        libm::sqrt(((v[0] / w[0]) * (v[0] / w[0]) + (v[1] / w[1]) * (v[1] / w[1])) / 2.0)
    };
    let h_n: f64 = 0.2;
    for j in 0..8 {
        let mut p = [0.0; 2];
        leading_derivative(&h, j, &mut p);
        let expected = wrms([
            p[0] * libm::pow(h_n, j as f64),
            p[1] * libm::pow(h_n, j as f64),
        ]);
        let got = norms.sdn(j, h_n).unwrap();
        assert_close(
            got,
            expected,
            1e-12 * expected.max(1e-300),
            &format!("SDN({j})"),
        );
    }
    assert_eq!(norms.sdn(8, h_n), None);
    for k in 0..=6 {
        let mut e = [0.0; 2];
        a_priori_estimate(&h, k, 1.25, &mut e);
        let expected = wrms(e);
        let got = norms.a_priori_norm(k, 1.25).unwrap();
        assert_close(got, expected, 1e-12 * expected, &format!("‖ε̃‖ k={k}"));
    }
    assert_eq!(norms.a_priori_norm(7, 1.25), None);
}

#[test]
fn derivatives_at_an_anchor_are_the_polynomials_taylor_data() {
    let coeffs = [0.7, -1.3, 2.1, 0.45, -0.8, 1.1, -0.6, 0.9];
    let anchor = 1.05;
    for deg in 0..=7 {
        let h = history(&points(|t| poly(deg, t)));
        let mut out = [0.0; MAX_POINTS];
        derivatives_at(&h, deg, anchor, 0, &mut out);
        for (k, got) in out.iter().enumerate() {
            // d^k/dt^k Σ a_m t^m at the anchor.
            let exact: f64 = (k..=deg)
                .map(|m| {
                    let falling: f64 = (0..k).map(|i| (m - i) as f64).product();
                    coeffs[m] * falling * libm::pow(anchor, (m - k) as f64)
                })
                .sum();
            let tol = 1e-8 * (1.0 + exact.abs());
            assert_close(*got, exact, tol, &format!("deg={deg} k={k}"));
        }
    }
}

#[test]
fn a_fitted_newton_polynomial_matches_the_free_functions() {
    let signal = |t: f64| [libm::sin(3.0 * t), libm::exp(t)];
    let h = history(&points(signal));
    let mut p = NewtonPolynomial::new(2);
    for j in 0..=7 {
        p.fit(&h, j);
        assert_eq!(p.degree(), j);
        let (mut fitted, mut direct) = ([0.0; 2], [0.0; 2]);
        p.value(1.2, &mut fitted);
        evaluate(&h, j, 1.2, &mut direct);
        assert_eq!(fitted, direct, "j={j}");
        let (mut a, mut b) = ([0.0; MAX_POINTS], [0.0; MAX_POINTS]);
        p.derivatives(1, 1.05, &mut a);
        derivatives_at(&h, j, 1.05, 1, &mut b);
        assert_eq!(a, b, "j={j}");
    }
    // The interpolation through a new end point reproduces that point.
    let u_new = [0.25, -0.5];
    p.fit(&WithNewest::new(1.3, &u_new, &h), 3);
    assert_close(p.value_of(0, 1.3), 0.25, 1e-14, "u*");
    assert_close(p.value_of(1, 1.3), -0.5, 1e-14, "u*");
}
