//! The tangent start of the SLocal estimators (docs/methods.md §14.10): the initial
//! derivative of the coupling variables equals the exact one, the history gains the
//! tangent's point before `T_0`, and a run starts at degree 1 and drops that point.

use super::runs::controlled;
use super::support::settings;
use crate::master::error_control::{EstimatorKind, OrderMode};
use crate::master::tests::two_mass_with_reference;
use crate::master::{CouplingVariables, RunStart};

#[test]
fn the_initial_derivative_of_the_coupling_variables_is_exact() {
    let (mut sys, reference) = two_mass_with_reference(1e-3);
    let mut cv = CouplingVariables::new(&mut sys).unwrap();
    let start = RunStart {
        t_start: 0.0,
        h: 1e-5,
        variable_steps: true,
        history: &[],
    };
    cv.start(&sys, &start).unwrap();
    let du = cv.initial_derivative(&mut sys, 0.0).unwrap();
    let du = du.expect("the two-mass modules expose their equations");
    // Every output's exact derivative is C* A* x0.
    let dy = reference.c_star() * (reference.a_star() * reference.x0());
    for (c, &i) in cv.input_indices().iter().enumerate() {
        let exact = dy[sys.graph().source_of_input(i)];
        let err = (du[c] - exact).abs();
        assert!(
            err <= 1e-8 * exact.abs().max(1.0),
            "{c}: {} against {exact}",
            du[c]
        );
    }
    assert!(du.iter().filter(|d| d.abs() > 1.0).count() >= 2, "{du:?}");
    let u0 = cv.history().sample(0).to_vec();
    assert!(cv.start_on_tangent(&mut sys, 1e-5).unwrap());
    let h = cv.history();
    assert_eq!(h.len(), 2);
    assert_eq!((h.time(0), h.time(1)), (0.0, -1e-5));
    for c in 0..cv.len() {
        assert_eq!(h.sample(0)[c], u0[c]);
        let slope = (h.sample(0)[c] - h.sample(1)[c]) / 1e-5;
        assert!((slope - du[c]).abs() <= 1e-9 * du[c].abs().max(1.0), "{c}");
    }
    // Past samples given: no tangent point.
    let samples = [(-1e-5, sys.outputs().to_vec())];
    let with_history = RunStart {
        history: &samples,
        ..start
    };
    cv.start(&sys, &with_history).unwrap();
    assert!(!cv.start_on_tangent(&mut sys, 1e-5).unwrap());
    assert_eq!(cv.history().len(), 2);
}

#[test]
fn slocal_runs_start_at_degree_1_and_the_state_estimators_at_0() {
    for (estimator, first) in [(EstimatorKind::ExSLocal, 1), (EstimatorKind::ExMilne, 0)] {
        let s = settings(estimator, 1e-5, OrderMode::Variable { k_max: 4 });
        let (points, _, _) = controlled(s, 1e-5).unwrap();
        assert_eq!(points.k[0], Some(first), "{estimator:?}");
        // The run goes on from real points only: it completes and its degree climbs.
        assert!(points.k.iter().any(|&k| k >= Some(3)), "{estimator:?}");
    }
    // A fixed degree 0 stays at 0 (the tangent point is never used).
    let s = settings(EstimatorKind::ExSLocal, 1e-5, OrderMode::Fixed(0));
    let (points, _, _) = controlled(s, 1e-6).unwrap();
    assert!(points.k.iter().all(|&k| k == Some(0)));
}
