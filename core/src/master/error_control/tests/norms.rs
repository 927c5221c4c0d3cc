//! WRMS norms (paper eqns 25–27) and the pinned per-group `rtol`.

use super::super::{
    AbsTol, Attempt, ErrorControlSettings, ErrorNorms, EstimatorKind, GroupTolerance,
    MacroStepControl, MilneFactors, Tolerances,
};
use super::{assert_close, history_of};
use alloc::vec;

#[test]
fn wrms_uses_atol_per_component_and_rtol_times_the_new_value() {
    let tol = GroupTolerance {
        rtol: 1e-2,
        atol: AbsTol::PerComponent(vec![1e-3, 1e-1]),
    };
    // W = (1e-3 + 1e-2·2, 1e-1 + 1e-2·10) = (0.021, 0.2).
    let norm = tol.wrms(&[0.021, 0.1], &[-2.0, 10.0]);
    assert_close(norm, libm::sqrt((1.0 + 0.25) / 2.0), 1e-15, "WRMS");
    assert_eq!(tol.wrms(&[], &[]), 0.0);
    // atol = 0 on a zero value: a zero error passes, any other fails.
    let exact = GroupTolerance::new(1e-3, 0.0);
    assert_eq!(exact.wrms(&[0.0, 1e-3], &[0.0, 1.0]), libm::sqrt(0.5));
    assert_eq!(exact.wrms(&[1e-20], &[0.0]), f64::INFINITY);
    // A third component uses the last atol.
    assert_eq!(tol.weight(2, 0.0), 1e-1);
    assert_eq!(GroupTolerance::new(1e-3, 1e-6).weight(5, -1.0), 1e-6 + 1e-3);
}

#[test]
fn state_test_is_the_max_and_a_missing_group_counts_zero() {
    assert_eq!(ErrorNorms::states(0.4, 0.7).tested(true), 0.7);
    assert_eq!(ErrorNorms::states(1.4, 0.7).tested(true), 1.4);
    assert_eq!(ErrorNorms::coupling(0.3).tested(false), 0.3);
    assert_eq!(ErrorNorms::coupling(0.3).tested(true), 0.0);
    assert_eq!(
        ErrorNorms::states(f64::NAN, 0.1).tested(true),
        f64::INFINITY
    );
}

#[test]
fn each_group_has_its_own_rtol_and_order_control_uses_the_coupling_group() {
    // Example 1: states rtol 1e-5, coupling forces rtol_fc 1e-3.
    let tol = Tolerances::default();
    assert_eq!(tol.positions.rtol, tol.velocities.rtol);
    assert_eq!((tol.positions.rtol, tol.coupling.rtol), (1e-5, 1e-3));
    let eps = [1e-3];
    let value = [100.0];
    let pos = tol.positions.wrms(&eps, &value);
    let u = tol.coupling.wrms(&eps, &value);
    assert!(pos > 10.0 * u, "the coupling group is looser: {pos} vs {u}");
    // The order signals and the a priori step see only the coupling tolerances: a raise
    // from degree 0 at the first acceptance takes its step from (31).
    let hist = history_of(&[(0.0, &[0.0]), (0.1, &[0.1])]);
    let attempt = Attempt {
        t: 0.1,
        h: 0.1,
        k: 0,
        norms: ErrorNorms::states(0.1, 0.1),
        corrector_failed: false,
    };
    let ratio = |tolerances: Tolerances| {
        let ctl = MacroStepControl::new(ErrorControlSettings {
            estimator: EstimatorKind::ExMilne,
            tolerances,
            ..Default::default()
        })
        .unwrap();
        let v = ctl.assess(&attempt, &hist, &[0.2 + 1e-3]).unwrap();
        assert!(v.a_priori && v.k_next == 1, "{v:?}");
        v.ratio
    };
    let base = ratio(Tolerances::default());
    let looser_states = ratio(Tolerances {
        positions: GroupTolerance::new(0.5, 1.0),
        velocities: GroupTolerance::new(0.5, 1.0),
        ..Default::default()
    });
    let tighter_coupling = ratio(Tolerances {
        coupling: GroupTolerance::new(1e-3, 1e-3),
        ..Default::default()
    });
    assert_eq!(base, looser_states);
    assert!(
        tighter_coupling < 0.5 * base,
        "{tighter_coupling} vs {base}"
    );
}

#[test]
fn norms_straight_from_the_compared_solutions() {
    let tol = Tolerances {
        positions: GroupTolerance::new(0.1, 1.0),
        velocities: GroupTolerance::new(0.1, 2.0),
        coupling: GroupTolerance::new(0.5, 0.0),
    };
    let f = MilneFactors {
        pos: 0.5,
        vel: 0.25,
    };
    // Weights from the new solution: W_q = 1 + 0.1·10 = 2, W_v = 2 + 0.1·20 = 4.
    let n = ErrorNorms::from_states(&tol, f, (&[10.0], &[14.0]), (&[-20.0], &[-4.0]));
    assert_eq!(n, ErrorNorms::states(0.5 * 4.0 / 2.0, 0.25 * 16.0 / 4.0));
    assert_eq!(n.tested(true), 1.0);
    let n = ErrorNorms::from_states(&tol, MilneFactors::UNIT, (&[10.0], &[11.0]), (&[], &[]));
    assert_eq!(n, ErrorNorms::states(0.5, 0.0));
    // W_u = 0.5·|u_new| = (1, 2).
    let n = ErrorNorms::from_coupling(&tol, &[2.0, -4.0], &[1.0, -4.0]);
    assert_close(n.coupling.unwrap(), libm::sqrt(0.5), 1e-15, "‖ε_u‖");
}
