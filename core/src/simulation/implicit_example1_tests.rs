//! Seed 002 Example 1 with the implicit predictor/corrector: ImMilne and ImSLocal with
//! variable order lower the global error of eqn (36) with each ten-fold decrease of `rtol`
//! (the harness and tolerances of the explicit estimators' test).

use super::error_control_example1_tests::errors_over_rtols;

/// Measured in docs/methods.md §14.12: ImMilne and ImSLocal lower the error with every
/// decade from 1e-3 to 1e-6 (the harness of the explicit estimators' test: bodies on
/// Dormand–Prince at rtol 1e-13; ImSLocal from the tangent start).
#[test]
fn example_1_the_global_error_falls_with_rtol_for_both_implicit_estimators() {
    for estimator in ["im_milne", "im_s_local"] {
        let errors = errors_over_rtols(estimator);
        for j in 1..errors.len() {
            assert!(errors[j] < errors[j - 1], "{estimator}: {errors:.3?}");
        }
    }
}
