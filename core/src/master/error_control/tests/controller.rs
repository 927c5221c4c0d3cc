//! [`MacroStepControl`]: the error test, the counters, the pinned choices and the H_min
//! abort, on constructed histories and norms.

use super::super::{
    coupling_ratio, Attempt, DerivativeNorms, ErrorControlSettings, ErrorNorms, EstimatorKind,
    GroupTolerance, MacroStepControl, OrderMode, OrderRule, StepRule, Tolerances,
};
use super::history_of;
use crate::error::MasterError;
use crate::master::OutputHistory;
use alloc::string::ToString;

fn settings(estimator: EstimatorKind) -> ErrorControlSettings {
    ErrorControlSettings {
        estimator,
        ..Default::default()
    }
}

fn attempt(t: f64, h: f64, k: usize, norms: ErrorNorms) -> Attempt {
    Attempt {
        t,
        h,
        k,
        norms,
        corrector_failed: false,
    }
}

/// `u = (sin t, cos t)` at `t = 0, h, …, (n − 1)h`.
fn smooth_history(n: usize, h: f64) -> OutputHistory {
    let mut hist = OutputHistory::new(8, 2);
    for j in 0..n {
        let t = j as f64 * h;
        hist.push(t, &[libm::sin(t), libm::cos(t)]);
    }
    hist
}

#[test]
fn state_estimators_test_the_larger_of_the_position_and_velocity_norms() {
    let ctl = MacroStepControl::new(settings(EstimatorKind::ExMilne)).unwrap();
    let hist = smooth_history(3, 0.1);
    let u = [libm::sin(0.3), libm::cos(0.3)];
    let v = ctl
        .assess(
            &attempt(0.2, 0.1, 0, ErrorNorms::states(0.3, 0.99)),
            &hist,
            &u,
        )
        .unwrap();
    assert!(v.accepted);
    assert_eq!(v.error, 0.99);
    let v = ctl
        .assess(
            &attempt(0.2, 0.1, 0, ErrorNorms::states(1.01, 0.2)),
            &hist,
            &u,
        )
        .unwrap();
    assert!(!v.accepted);
    assert_eq!((v.t_next, v.step_rule), (0.2, StepRule::FirstFailure));
    // A NaN estimate fails.
    let v = ctl
        .assess(
            &attempt(0.2, 0.1, 0, ErrorNorms::states(f64::NAN, 0.2)),
            &hist,
            &u,
        )
        .unwrap();
    assert!(!v.accepted);
}

#[test]
fn coupling_estimators_test_the_coupling_norm_only() {
    let ctl = MacroStepControl::new(settings(EstimatorKind::ImSLocal)).unwrap();
    let hist = smooth_history(2, 0.1);
    let u = [libm::sin(0.2), libm::cos(0.2)];
    let norms = ErrorNorms {
        positions: Some(50.0),
        velocities: Some(50.0),
        coupling: Some(0.5),
    };
    let v = ctl.assess(&attempt(0.1, 0.1, 0, norms), &hist, &u).unwrap();
    assert!(v.accepted);
    assert_eq!(v.error, 0.5);
}

#[test]
fn the_just_accepted_step_counts_in_n_succ() {
    // Degree 0 with three points after this step: SDN(2) exists, so the raise check runs
    // on the first acceptance only if this step counts (N_succ = 1 > k = 0).
    let mut ctl = MacroStepControl::new(settings(EstimatorKind::ExSLocal)).unwrap();
    ctl.start(2);
    let hist = smooth_history(2, 0.1);
    let u = [libm::sin(0.2), libm::cos(0.2)];
    let v = ctl
        .judge(&attempt(0.1, 0.1, 0, ErrorNorms::coupling(0.1)), &hist, &u)
        .unwrap();
    assert_eq!((v.k_next, v.order_rule), (1, OrderRule::RaiseFromZero));
    // The order changed, so the count restarts for the next step.
    assert_eq!(ctl.successes(), 0);
}

#[test]
fn n_succ_restarts_after_a_failure_and_a_reduction() {
    let mut ctl = MacroStepControl::new(ErrorControlSettings {
        order: OrderMode::Fixed(0),
        ..settings(EstimatorKind::ExSLocal)
    })
    .unwrap();
    ctl.start(1);
    let hist = smooth_history(1, 0.1);
    let u = [libm::sin(0.1), libm::cos(0.1)];
    // SF·‖ε‖ = 0.9: r = 1.11, keep the step.
    let keep = ErrorNorms::coupling(0.15);
    ctl.judge(&attempt(0.0, 0.1, 0, keep), &hist, &u).unwrap();
    ctl.judge(&attempt(0.0, 0.1, 0, keep), &hist, &u).unwrap();
    assert_eq!((ctl.successes(), ctl.failures()), (2, 0));
    let v = ctl
        .judge(&attempt(0.0, 0.1, 0, ErrorNorms::coupling(3.0)), &hist, &u)
        .unwrap();
    assert!(!v.accepted);
    assert_eq!((ctl.successes(), ctl.failures()), (0, 1));
    ctl.judge(&attempt(0.0, 0.1, 0, keep), &hist, &u).unwrap();
    assert_eq!((ctl.successes(), ctl.failures()), (1, 0));
    // Accepted, but the next step is shorter (r < 1): the count restarts.
    let v = ctl
        .judge(&attempt(0.0, 0.1, 0, ErrorNorms::coupling(0.5)), &hist, &u)
        .unwrap();
    assert_eq!(v.step_rule, StepRule::Shrink);
    assert_eq!(ctl.successes(), 0);
}

#[test]
fn after_an_order_change_the_step_comes_from_the_a_priori_estimate_with_the_new_degree() {
    let mut ctl = MacroStepControl::new(settings(EstimatorKind::ExSLocal)).unwrap();
    ctl.start(2);
    let (h, t) = (0.1, 0.1);
    let hist = smooth_history(2, h);
    let u = [libm::sin(0.2), libm::cos(0.2)];
    let v = ctl
        .judge(&attempt(t, h, 0, ErrorNorms::coupling(0.1)), &hist, &u)
        .unwrap();
    assert_eq!(v.k_next, 1);
    assert!(v.a_priori);
    let tol = &ctl.settings().tolerances.coupling;
    let full = history_of(&[
        (0.0, &[0.0, 1.0]),
        (0.1, &[libm::sin(0.1), libm::cos(0.1)]),
        (0.2, &u),
    ]);
    let norms = DerivativeNorms::of(&full, tol);
    let sf = ctl.settings().safety_factor;
    let new_degree = coupling_ratio(norms.a_priori_norm(1, 0.3).unwrap(), 1, sf);
    let old_degree = coupling_ratio(norms.a_priori_norm(0, 0.3).unwrap(), 0, sf);
    assert!((v.ratio - new_degree).abs() < 1e-12 * new_degree);
    assert!((new_degree - old_degree).abs() > 0.1 * new_degree);
}

#[test]
fn a_step_at_or_below_h_min_ends_the_run_naming_t_h_k_and_the_estimator() {
    let mut ctl = MacroStepControl::new(ErrorControlSettings {
        h_min: 1e-6,
        ..settings(EstimatorKind::ImMilne)
    })
    .unwrap();
    ctl.start(1);
    let hist = smooth_history(1, 0.1);
    let u = [0.0, 1.0];
    let mut h = 1e-4;
    let err = loop {
        let a = Attempt {
            corrector_failed: true,
            ..attempt(0.0, h, 0, ErrorNorms::default())
        };
        match ctl.judge(&a, &hist, &u) {
            Ok(v) => {
                assert_eq!(v.step_rule, StepRule::NotConverged);
                h = v.h_next;
            }
            Err(e) => break e,
        }
    };
    let MasterError::MacroStepTooSmall {
        t,
        h: h_need,
        h_min,
        order,
        estimator,
    } = &err
    else {
        panic!("unexpected error {err:?}");
    };
    assert_eq!((*t, *h_min, *order, *estimator), (0.0, 1e-6, 0, "ImMilne"));
    assert!(*h_need <= 1e-6 && *h_need > 1e-7);
    let text = err.to_string();
    for part in [
        "t = 0 s",
        "H = 0.000000",
        "k = 0",
        "ImMilne",
        "H_min = 0.000001",
    ] {
        assert!(text.contains(part), "`{part}` missing in: {text}");
    }
}

#[test]
fn steps_are_clamped_to_h_max() {
    let ctl = MacroStepControl::new(ErrorControlSettings {
        h_max: 0.15,
        order: OrderMode::Fixed(0),
        ..settings(EstimatorKind::ExSLocal)
    })
    .unwrap();
    let hist = smooth_history(1, 0.1);
    let v = ctl
        .assess(
            &attempt(0.0, 0.1, 0, ErrorNorms::coupling(1e-6)),
            &hist,
            &[0.1, 1.0],
        )
        .unwrap();
    assert_eq!((v.step_rule, v.h_next), (StepRule::Grow, 0.15));
    assert_eq!(ctl.first_step(1.0), 0.15);
}

#[test]
fn a_fixed_degree_ramps_up_with_the_history_and_then_stays() {
    let mut ctl = MacroStepControl::new(ErrorControlSettings {
        order: OrderMode::Fixed(3),
        ..settings(EstimatorKind::ExMilne)
    })
    .unwrap();
    // ExMilne needs k + 2 points: none at one point, degree 0 at two.
    assert_eq!(ctl.start(1), None);
    assert_eq!(ctl.start(2), Some(0));
    let h = 0.1;
    let mut hist = smooth_history(2, h);
    let mut degrees = alloc::vec::Vec::new();
    for n in 2..9 {
        let t = (n - 1) as f64 * h;
        let u = [libm::sin(t + h), libm::cos(t + h)];
        let v = ctl
            .judge(
                &attempt(t, h, ctl.degree(), ErrorNorms::states(1e-9, 1e-9)),
                &hist,
                &u,
            )
            .unwrap();
        hist.push(t + h, &u);
        degrees.push(v.k_next);
    }
    assert_eq!(degrees, [1, 2, 3, 3, 3, 3, 3]);
}

#[test]
fn bad_settings_name_their_field() {
    let cases = [
        (
            ErrorControlSettings {
                tolerances: Tolerances {
                    coupling: GroupTolerance::new(0.0, 1.0),
                    ..Default::default()
                },
                ..Default::default()
            },
            "coupling.rtol",
        ),
        (
            ErrorControlSettings {
                h_min: 1.0,
                h_max: 0.5,
                ..Default::default()
            },
            "h_min",
        ),
        (
            ErrorControlSettings {
                order: OrderMode::Variable { k_max: 6 },
                ..Default::default()
            },
            "k_max",
        ),
        (
            ErrorControlSettings {
                r_max: 1.0,
                ..Default::default()
            },
            "r_max",
        ),
    ];
    for (s, field) in cases {
        let Err(MasterError::InvalidSettings(m)) = MacroStepControl::new(s) else {
            panic!("{field} accepted");
        };
        assert!(m.contains(field), "{m}");
    }
}

#[test]
fn estimator_names_schemes_and_history_needs() {
    for e in EstimatorKind::ALL {
        assert_eq!(EstimatorKind::from_name(e.name()), Some(e));
    }
    assert!(EstimatorKind::ImMilne.implicit() && !EstimatorKind::ExMilne.implicit());
    assert!(EstimatorKind::ExLocal.on_states() && !EstimatorKind::ImSLocal.on_states());
    assert_eq!(EstimatorKind::ExLocal.history_points(3), 5);
    assert_eq!(EstimatorKind::ExSLocal.history_points(3), 4);
    assert_eq!(EstimatorKind::ExMilne.max_degree(1), None);
    assert_eq!(EstimatorKind::ImSLocal.max_degree(1), Some(0));
}
