//! One test per branch of the step-size rules of seed 002, Sect. 5.3, and the exponents of eqn (32).

use super::super::{coupling_ratio, state_ratio, step_factor, StepLimits, StepRule};
use super::assert_close;

const LIMITS: StepLimits = StepLimits {
    r_min: 0.5,
    r_max: 2.0,
};

fn accepted(r: f64) -> (f64, StepRule) {
    step_factor(r, 0, false, LIMITS)
}

#[test]
fn exponents_are_the_local_orders_k_plus_3_2_1() {
    let sf = 4.0;
    for k in 0..=5 {
        // SF·‖ε‖ = 2^−(order) gives r = 2 exactly at the right exponent.
        let at = |order: i32| libm::pow(2.0, -(order as f64)) / sf;
        let big = 1e300;
        assert_close(
            state_ratio(at(k as i32 + 3), 0.0, k, sf),
            2.0,
            1e-14,
            "r_pos",
        );
        assert_close(
            state_ratio(0.0, at(k as i32 + 2), k, sf),
            2.0,
            1e-14,
            "r_vel",
        );
        assert_close(coupling_ratio(at(k as i32 + 1), k, sf), 2.0, 1e-14, "r_u");
        // The state factor is the smaller of the two.
        let r = state_ratio(at(k as i32 + 3), big, k, sf);
        assert!(r < 1e-10, "min(r_pos, r_vel)");
    }
    // A zero estimate allows any growth.
    assert_eq!(coupling_ratio(0.0, 2, 6.0), f64::INFINITY);
}

#[test]
fn accepted_with_r_at_least_r_max_grows_by_exactly_r_max() {
    assert_eq!(accepted(2.0), (2.0, StepRule::Grow));
    assert_eq!(accepted(7.3), (2.0, StepRule::Grow));
    assert_eq!(accepted(f64::INFINITY), (2.0, StepRule::Grow));
}

#[test]
fn accepted_with_r_between_one_and_r_max_keeps_the_step() {
    assert_eq!(accepted(1.0), (1.0, StepRule::Keep));
    assert_eq!(accepted(1.999), (1.0, StepRule::Keep));
}

#[test]
fn accepted_with_r_below_one_shrinks_to_between_r_min_and_0_9() {
    assert_eq!(accepted(0.95), (0.9, StepRule::Shrink));
    assert_eq!(accepted(0.7), (0.7, StepRule::Shrink));
    assert_eq!(accepted(0.1), (0.5, StepRule::Shrink));
    assert_eq!(accepted(f64::NAN), (0.5, StepRule::Shrink));
}

#[test]
fn first_failure_uses_0_9_r_between_0_25_and_0_9() {
    let first = |r| step_factor(r, 1, false, LIMITS);
    assert_close(first(0.5).0, 0.45, 1e-15, "0.9·0.5");
    assert_eq!(first(0.5).1, StepRule::FirstFailure);
    assert_eq!(first(0.1).0, 0.25);
    assert_eq!(first(3.0).0, 0.9);
    assert_eq!(first(f64::NAN).0, 0.25);
}

#[test]
fn later_failures_quarter_the_step() {
    assert_eq!(
        step_factor(0.8, 2, false, LIMITS),
        (0.25, StepRule::RepeatedFailure)
    );
    assert_eq!(
        step_factor(0.8, 7, false, LIMITS),
        (0.25, StepRule::RepeatedFailure)
    );
}

#[test]
fn a_corrector_that_did_not_converge_quarters_the_step() {
    assert_eq!(
        step_factor(0.8, 1, true, LIMITS),
        (0.25, StepRule::NotConverged)
    );
    assert_eq!(
        step_factor(5.0, 0, true, LIMITS),
        (0.25, StepRule::NotConverged)
    );
}
