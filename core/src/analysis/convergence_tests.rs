//! Convergence orders of docs/methods.md §10.6 Q3 / §10.4: local error slopes `p + 1` without
//! and `p + 2` with model-based correction.

use super::convergence::*;
use crate::analysis::sweep::tests::two_mass;
use alloc::vec::Vec;

#[test]
fn local_error_orders_rise_by_one_with_correction() {
    // Quarter decades from 10^-3.25 to 10^-5 (the fit drops unstable points and errors
    // near the rounding floor by itself).
    let steps: Vec<f64> = (13..=20)
        .map(|i| libm::pow(10.0, -f64::from(i) / 4.0))
        .collect();
    let a = two_mass(0, None, 1e-4, 2e5, 5e2);
    let curves = convergence_study(&a, &steps, &[0, 1, 2, 3, 4], Some(1.0));
    assert_eq!(curves.len(), 10);
    for c in &curves {
        let want = f64::from(c.order) + if c.corrected { 2.0 } else { 1.0 };
        let slope = c.slope.expect("enough points to fit");
        assert!(
            libm::fabs(slope - want) <= 0.1,
            "order {} corrected {}: slope {slope}",
            c.order,
            c.corrected
        );
    }
}

#[test]
fn slope_fit_of_exact_power_law() {
    let pts: Vec<(f64, f64)> = [1e-3, 1e-4, 1e-5]
        .iter()
        .map(|&h| (h, 3.0 * h * h * h))
        .collect();
    assert!(libm::fabs(fitted_slope(&pts).expect("slope") - 3.0) < 1e-12);
    assert_eq!(fitted_slope(&pts[..1]), None);
    assert_eq!(fitted_slope(&[(1e-3, f64::INFINITY), (1e-4, 1.0)]), None);
}
