//! Whole controlled runs of the two-mass oscillator through the driver: rejected attempts
//! leave no trace (every module restored), the error falls with the tolerance, an
//! unsatisfiable tolerance ends with a message naming t, H, k and the estimator, and the
//! settings the explicit algorithm cannot run are refused.

use super::support::Script;
use crate::error::MasterError;
use crate::master::error_control::{
    ErrorControlSettings, EstimatorKind, GroupTolerance, OrderMode, Tolerances,
};
use crate::master::tests::two_mass_with_reference;
use crate::master::{ErrorControlledCoupling, Observer, Run, RunStats, SystemView};
use crate::solvers::expm;
use alloc::boxed::Box;
use alloc::vec::Vec;

const T_END: f64 = 2e-3;

/// Every accepted point: time, step, degree, outputs.
#[derive(Default)]
pub(super) struct Points {
    time: Vec<f64>,
    h: Vec<f64>,
    pub(super) k: Vec<Option<u32>>,
    outputs: Vec<Vec<f64>>,
}

impl Observer for Points {
    fn on_initialized(&mut self, _view: &SystemView<'_>) {}
    fn on_macro_step(&mut self, view: &SystemView<'_>) {
        self.time.push(view.t);
        self.h.push(view.h);
        self.k.push(view.diagnostics.order);
        self.outputs.push(view.system.outputs().to_vec());
    }
}

pub(super) fn settings(
    estimator: EstimatorKind,
    rtol: f64,
    order: OrderMode,
) -> ErrorControlSettings {
    // Positions ≈ 1e-2 m, velocities ≈ 10 m/s, forces ≈ 1e3 N.
    ErrorControlSettings {
        estimator,
        tolerances: Tolerances {
            positions: GroupTolerance::new(rtol, 1e-2 * rtol),
            velocities: GroupTolerance::new(rtol, 10.0 * rtol),
            coupling: GroupTolerance::new(rtol, 1e3 * rtol),
        },
        order,
        ..ErrorControlSettings::default()
    }
}

/// A controlled run from a ramp-up start with first step `h0`.
pub(super) fn controlled(
    s: ErrorControlSettings,
    h0: f64,
) -> Result<(Points, RunStats, Vec<f64>), MasterError> {
    let (sys, reference) = two_mass_with_reference(T_END);
    let alg = ErrorControlledCoupling::new(s);
    let controller = alg.step_controller(0.0, T_END, h0);
    let mut run = Run::with_controller(sys, Box::new(alg), Box::new(controller), None)?;
    let mut points = Points::default();
    run.advance(u32::MAX, &mut points)?;
    // Each output's largest error relative to its largest exact magnitude.
    let a = reference.a_star().clone();
    let exact: Vec<Vec<f64>> = points
        .time
        .iter()
        .map(|t| {
            let y = reference.c_star() * (expm(&(&a * *t)).unwrap() * reference.x0());
            y.iter().copied().collect()
        })
        .collect();
    let errors = (0..exact[0].len())
        .map(|o| {
            let scale = exact.iter().map(|y| y[o].abs()).fold(0.0, f64::max);
            let worst = exact
                .iter()
                .zip(&points.outputs)
                .map(|(y, c)| (y[o] - c[o]).abs())
                .fold(0.0, f64::max);
            worst / scale
        })
        .collect();
    Ok((points, run.stats(), errors))
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
        let mut loose = s;
        loose.tolerances = settings(estimator, 1e30, OrderMode::Fixed(2)).tolerances;
        let (sys, _) = two_mass_with_reference(T_END);
        let script = Script {
            steps: points.h.clone(),
            done: 0,
            t_stop: T_END,
        };
        let alg = ErrorControlledCoupling::new(loose);
        let mut run = Run::with_controller(sys, Box::new(alg), Box::new(script), None).unwrap();
        let mut replay = Points::default();
        run.advance(u32::MAX, &mut replay).unwrap();
        assert_eq!(run.stats().rejected, 0);
        assert_eq!(replay.k, points.k, "{estimator:?}");
        assert_eq!(
            replay.outputs, points.outputs,
            "{estimator:?}: rejected attempts left a trace"
        );
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
