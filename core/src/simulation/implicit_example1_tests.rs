//! Seed 002 Example 1 with the implicit predictor/corrector: ImMilne and ImSLocal with
//! variable order lower the global error of eqn (36) with each ten-fold decrease of `rtol`
//! (the harness and tolerances of the explicit estimators' test).

use super::error_control_example1_tests::global_error;
use alloc::vec::Vec;

/// Measured in docs/methods.md §14.12: ImMilne and ImSLocal lower the error with every
/// decade from 1e-3 to 1e-6 (the harness of the explicit estimators' test: bodies on
/// Dormand–Prince at rtol 1e-13; ImSLocal from the tangent start).
#[test]
fn example_1_the_global_error_falls_with_rtol_for_both_implicit_estimators() {
    for estimator in ["im_milne", "im_s_local"] {
        let rtols = [1e-3, 1e-4, 1e-5, 1e-6];
        let errors: Vec<f64> = rtols
            .iter()
            .map(|&rtol| {
                let (e, accepted, rejected) = global_error(estimator, rtol);
                std::println!(
                    "{estimator} rtol {rtol:.0e}: e = {e:.3e}, {accepted} accepted, {rejected} rejected"
                );
                e
            })
            .collect();
        for j in 1..errors.len() {
            assert!(errors[j] < errors[j - 1], "{estimator}: {errors:.3?}");
        }
    }
}
