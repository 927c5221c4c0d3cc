//! Whole controlled runs of the two-mass oscillator through the driver: rejected attempts
//! leave no trace (every module restored), the error falls with the tolerance, an
//! unsatisfiable tolerance ends with a message naming t, H, k and the estimator, and the
//! settings the explicit algorithm cannot run are refused.

use super::support::{assert_replays, settings, two_mass_run, untested, Points, T_END};
use crate::error::MasterError;
use crate::master::error_control::{ErrorControlSettings, EstimatorKind, OrderMode};
use crate::master::tests::two_mass_with_reference;
use crate::master::{ErrorControlledCoupling, Run, RunStats};
use alloc::boxed::Box;
use alloc::vec::Vec;

/// A controlled run from a ramp-up start with first step `h0`: the points, the counts and
/// each output's largest relative error.
pub(super) fn controlled(
    s: ErrorControlSettings,
    h0: f64,
) -> Result<(Points, RunStats, Vec<f64>), MasterError> {
    let alg = ErrorControlledCoupling::new(s);
    let controller = alg.step_controller(0.0, T_END, h0);
    two_mass_run(Box::new(alg), Box::new(controller))
}

#[test]
fn a_run_with_rejections_equals_the_replay_of_its_accepted_steps() {
    for estimator in [
        EstimatorKind::ExLocal,
        EstimatorKind::ExMilne,
        EstimatorKind::ExSLocal,
    ] {
        // A first step far too large: the controller rejects until the error test passes.
        let s = settings(estimator, 1e-6, OrderMode::Fixed(2));
        let (points, stats, _) = controlled(s.clone(), 2e-4).unwrap();
        assert!(stats.rejected > 0, "{estimator:?}: no rejection to test");
        // Replay exactly the accepted steps with no test at all (huge tolerances).
        let alg = ErrorControlledCoupling::new(untested(&s));
        assert_replays(Box::new(alg), &points, &alloc::format!("{estimator:?}"));
    }
}

#[test]
fn the_error_falls_with_the_tolerance_for_every_explicit_estimator_with_variable_order() {
    for estimator in [
        EstimatorKind::ExLocal,
        EstimatorKind::ExMilne,
        EstimatorKind::ExSLocal,
    ] {
        let mut previous = f64::INFINITY;
        for rtol in [1e-3, 1e-4, 1e-5, 1e-6, 1e-7] {
            let s = settings(estimator, rtol, OrderMode::Variable { k_max: 5 });
            let (points, stats, errors) = controlled(s, 1e-5).unwrap();
            let error = errors.iter().copied().fold(0.0, f64::max);
            let k_max = points.k.iter().flatten().max().copied().unwrap_or(0);
            std::println!(
                "{estimator:?} rtol {rtol:.0e}: error {error:.3e}, accepted {}, rejected {}, max k {k_max}",
                stats.accepted,
                stats.rejected
            );
            assert!(
                error < previous,
                "{estimator:?} rtol {rtol}: {error} ≥ {previous}"
            );
            previous = error;
        }
    }
}

#[test]
fn an_unreachable_tolerance_ends_the_run_naming_t_h_k_and_the_estimator() {
    let mut s = settings(EstimatorKind::ExMilne, 1e-14, OrderMode::Fixed(1));
    s.h_min = 1e-6;
    let e = controlled(s, 1e-4).err().expect("the run must fail");
    let text = alloc::format!("{e}");
    assert!(matches!(e, MasterError::MacroStepTooSmall { .. }), "{text}");
    for part in [
        "ExMilne",
        "with degree k = ",
        "at t = ",
        "H = ",
        "H_min = 0.000001",
    ] {
        assert!(text.contains(part), "{part:?} missing in: {text}");
    }
}

#[test]
fn implicit_estimators_and_fixed_degrees_beyond_the_input_derivatives_are_refused() {
    let (sys, _) = two_mass_with_reference(T_END);
    let s = settings(EstimatorKind::ImMilne, 1e-4, OrderMode::Fixed(1));
    let alg = ErrorControlledCoupling::new(s);
    let c = alg.step_controller(0.0, T_END, 1e-5);
    let e = Run::with_controller(sys, Box::new(alg), Box::new(c), None)
        .err()
        .unwrap();
    assert!(
        alloc::format!("{e}").contains("ImMilne needs the implicit"),
        "{e}"
    );

    // Built-in modules take input derivatives up to order 4: ExLocal's comparative run at
    // k = 4 would need order 5.
    let (sys, _) = two_mass_with_reference(T_END);
    let alg =
        ErrorControlledCoupling::new(settings(EstimatorKind::ExLocal, 1e-4, OrderMode::Fixed(4)));
    let c = alg.step_controller(0.0, T_END, 1e-5);
    let e = Run::with_controller(sys, Box::new(alg), Box::new(c), None)
        .err()
        .unwrap();
    let text = alloc::format!("{e}");
    assert!(
        text.contains("mass1") && text.contains("x-maxInputDerivativeOrder"),
        "{text}"
    );
}
