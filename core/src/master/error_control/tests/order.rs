//! One test per rule of the list implemented in seed 002, Sect. 5.2.2, and per pinned choice, on
//! constructed scaled derivative norms `SDN(1), SDN(2), …`.

use super::super::{select_order, OrderChoice, OrderCounters, OrderRule};

/// `sdn[j]` for `j < sdn.len()` (index 0 unused), `None` beyond (too few history points).
fn choose(k: usize, sdn: &[f64], n_fail: u32, n_succ: u32, k_max: usize) -> OrderChoice {
    select_order(
        k,
        |j| sdn.get(j).copied(),
        OrderCounters { n_fail, n_succ },
        k_max,
    )
}

const NO_SUCC: u32 = 0;

#[test]
fn decrease_from_one_when_sdn1_is_at_most_half_sdn2() {
    let c = choose(1, &[0., 0.5, 1.0], 0, NO_SUCC, 5);
    assert_eq!((c.k, c.rule), (0, OrderRule::DecreaseToZero));
    let c = choose(1, &[0., 0.5001, 1.0], 0, NO_SUCC, 5);
    assert_eq!((c.k, c.rule), (1, OrderRule::Kept));
}

#[test]
fn decrease_when_neither_lower_term_is_larger() {
    // k = 3: max(SDN(3), SDN(2)) ≤ SDN(4).
    let c = choose(3, &[0., 1.0, 0.3, 0.2, 0.3], 0, NO_SUCC, 5);
    assert_eq!((c.k, c.rule), (2, OrderRule::Decrease));
    // SDN(2) larger than SDN(4): keep.
    let c = choose(3, &[0., 1.0, 0.31, 0.2, 0.3], 0, NO_SUCC, 5);
    assert_eq!((c.k, c.rule), (3, OrderRule::Kept));
}

#[test]
fn degree_zero_has_no_decrease() {
    let c = choose(0, &[0., 0.1, 10.0, 100.0], 0, NO_SUCC, 5);
    assert_eq!((c.k, c.rule), (0, OrderRule::Kept));
}

#[test]
fn more_than_five_failures_force_degree_zero() {
    let smooth = [0., 1.0, 0.1, 0.01, 0.001, 1e-4, 1e-5];
    assert_eq!(
        choose(4, &smooth, 6, NO_SUCC, 5).rule,
        OrderRule::FailuresToZero
    );
    assert_eq!(choose(4, &smooth, 6, NO_SUCC, 5).k, 0);
    // Five failures: only "more than 3" applies.
    assert_eq!(choose(4, &smooth, 5, NO_SUCC, 5).k, 1);
}

#[test]
fn more_than_three_failures_force_at_most_degree_one() {
    let smooth = [0., 1.0, 0.1, 0.01, 0.001, 1e-4, 1e-5];
    let c = choose(4, &smooth, 4, NO_SUCC, 5);
    assert_eq!((c.k, c.rule), (1, OrderRule::FailuresToOne));
    assert_eq!(choose(1, &smooth, 4, NO_SUCC, 5).k, 1);
    assert_eq!(choose(0, &smooth, 4, NO_SUCC, 5).k, 0);
    // Three failures: no override.
    assert_eq!(choose(4, &smooth, 3, NO_SUCC, 5).k, 4);
}

#[test]
fn raise_from_zero_when_sdn2_is_below_half_sdn1() {
    let c = choose(0, &[0., 1.0, 0.49], 0, 1, 5);
    assert_eq!((c.k, c.rule), (1, OrderRule::RaiseFromZero));
    assert_eq!(choose(0, &[0., 1.0, 0.5], 0, 1, 5).rule, OrderRule::Kept);
}

#[test]
fn raise_needs_more_than_k_successes() {
    let smooth = [0., 1.0, 0.1, 0.01, 0.001, 1e-4, 1e-5];
    let c = choose(3, &smooth, 0, 3, 5);
    assert_eq!(
        (c.k, c.rule),
        (3, OrderRule::Kept),
        "N_succ = k is not enough"
    );
    let c = choose(3, &smooth, 0, 4, 5);
    assert_eq!((c.k, c.rule), (4, OrderRule::Raise));
}

#[test]
fn raise_when_sdn_k_plus_2_is_below_sdn_k_plus_1() {
    // k = 2: SDN(2) > min(SDN(3), SDN(4)) and SDN(4) < SDN(3).
    let c = choose(2, &[0., 1.0, 0.5, 0.4, 0.39], 0, 3, 5);
    assert_eq!((c.k, c.rule), (3, OrderRule::Raise));
    // SDN(4) = SDN(3): keep.
    assert_eq!(
        choose(2, &[0., 1.0, 0.5, 0.4, 0.4], 0, 3, 5).rule,
        OrderRule::Kept
    );
}

#[test]
fn increase_check_lowers_when_sdn_k_is_the_smallest() {
    // k = 2: the decrease check fails (SDN(1) > SDN(3)) but SDN(2) ≤ min(SDN(3), SDN(4)).
    let c = choose(2, &[0., 1.0, 0.1, 0.2, 0.3], 0, 3, 5);
    assert_eq!((c.k, c.rule), (1, OrderRule::LowerInIncreaseCheck));
    // Without enough successes the increase check does not run: keep.
    assert_eq!(choose(2, &[0., 1.0, 0.1, 0.2, 0.3], 0, 2, 5).k, 2);
}

#[test]
fn a_decided_decrease_skips_the_raise_check() {
    // The decrease check lowers k = 2 to 1; the raise check alone would give 3.
    let sdn = [0., 0.1, 0.2, 0.3, 0.01];
    let c = choose(2, &sdn, 0, 9, 5);
    assert_eq!((c.k, c.rule), (1, OrderRule::Decrease));
    // So does a failure override.
    let smooth = [0., 1.0, 0.1, 0.01, 0.001, 1e-4, 1e-5];
    assert_eq!(choose(3, &smooth, 4, 9, 5).k, 1);
}

#[test]
fn no_raise_check_at_k_max() {
    let smooth = [0., 1.0, 0.1, 0.01, 0.001, 1e-4, 1e-5];
    assert_eq!(choose(3, &smooth, 0, 9, 3).k, 3);
    assert_eq!(choose(3, &smooth, 0, 9, 4).k, 4);
    // At k_max even the increase check's lowering branch is skipped (IDA: maintain).
    assert_eq!(choose(2, &[0., 1.0, 0.1, 0.2, 0.3], 0, 9, 2).k, 2);
}

#[test]
fn comparisons_need_their_history_points() {
    // k = 2 without SDN(3): no decrease check; k = 0 without SDN(2): no raise.
    assert_eq!(choose(2, &[0., 0.1, 0.2], 0, 9, 5).rule, OrderRule::Kept);
    assert_eq!(choose(0, &[0., 1.0], 0, 9, 5).rule, OrderRule::Kept);
    // k = 2 with SDN(3) but not SDN(4): decrease check yes, raise check no.
    assert_eq!(choose(2, &[0., 0.1, 0.2, 0.3], 0, 9, 5).k, 1);
    assert_eq!(choose(2, &[0., 1.0, 0.5, 0.4], 0, 9, 5).k, 2);
}
