//! A module whose integrator fails inside an attempt (constructed: mass 1 of the linear
//! two-mass oscillator refuses every step longer than `H_FAIL` with a numerical error, as a
//! stiff integrator giving up at an impact): the attempt is rejected and repeated with `H/4`
//! (seed 002 §5.3), the run reaches its end, and a failure that would need a step at or below
//! `H_min` ends the run with the controller's message.

use crate::error::{MasterError, RejectReason};
use crate::master::error_control::{
    ErrorControlSettings, EstimatorKind, GroupTolerance, OrderMode, Tolerances,
};
use crate::master::tests::boxed_system;
use crate::master::{ErrorControlledCoupling, Observer, Run, RunStats, SystemView};
use crate::models::two_mass_oscillator::{mass1_linear, mass2_linear, Mass1Params, Mass2Params};
use crate::module::{
    DirectionalDerivatives, EventMode, ExposedEquations, InputDerivatives, MidpointOutputs, Module,
    ModuleDescription, ModuleError, OutputDerivatives, StateSnapshot, StepReport, ValueRef,
};
use alloc::boxed::Box;
use alloc::vec;
use alloc::vec::Vec;

const T_END: f64 = 2e-3;
/// Mass 1's integrator gives up on any step longer than this.
const H_FAIL: f64 = 3e-5;

/// A module that fails every step longer than `h_fail` and is `inner` otherwise.
struct FailsAbove {
    inner: Box<dyn Module>,
    h_fail: f64,
}

impl Module for FailsAbove {
    fn description(&self) -> &ModuleDescription {
        self.inner.description()
    }
    fn enter_initialization_mode(
        &mut self,
        tolerance: Option<f64>,
        start: f64,
        stop: Option<f64>,
    ) -> Result<(), ModuleError> {
        self.inner.enter_initialization_mode(tolerance, start, stop)
    }
    fn exit_initialization_mode(&mut self) -> Result<(), ModuleError> {
        self.inner.exit_initialization_mode()
    }
    fn set_float64(&mut self, vrs: &[ValueRef], values: &[f64]) -> Result<(), ModuleError> {
        self.inner.set_float64(vrs, values)
    }
    fn get_float64(&mut self, vrs: &[ValueRef], values: &mut [f64]) -> Result<(), ModuleError> {
        self.inner.get_float64(vrs, values)
    }
    fn do_step(&mut self, t: f64, h: f64, no_set: bool) -> Result<StepReport, ModuleError> {
        if h > self.h_fail {
            return Err(ModuleError::numerical(alloc::format!(
                "mass1: step size too small at t = {t}"
            )));
        }
        self.inner.do_step(t, h, no_set)
    }
    fn reset(&mut self) -> Result<(), ModuleError> {
        self.inner.reset()
    }
    fn state_snapshot(&mut self) -> Option<&mut dyn StateSnapshot> {
        self.inner.state_snapshot()
    }
    fn directional_derivatives(&mut self) -> Option<&mut dyn DirectionalDerivatives> {
        self.inner.directional_derivatives()
    }
    fn output_derivatives(&mut self) -> Option<&mut dyn OutputDerivatives> {
        self.inner.output_derivatives()
    }
    fn input_derivatives(&mut self) -> Option<&mut dyn InputDerivatives> {
        self.inner.input_derivatives()
    }
    fn event_mode(&mut self) -> Option<&mut dyn EventMode> {
        self.inner.event_mode()
    }
    fn midpoint_outputs(&mut self) -> Option<&mut dyn MidpointOutputs> {
        self.inner.midpoint_outputs()
    }
    fn exposed_equations(&mut self) -> Option<&mut dyn ExposedEquations> {
        self.inner.exposed_equations()
    }
}

/// Accepted steps and rejected attempts.
#[derive(Default)]
struct Attempts {
    accepted: Vec<f64>,
    /// `(t, h, reason)` of each rejection, and the index of the accepted step it preceded.
    rejected: Vec<(f64, f64, RejectReason, usize)>,
}

impl Observer for Attempts {
    fn on_initialized(&mut self, _view: &SystemView<'_>) {}
    fn on_macro_step(&mut self, view: &SystemView<'_>) {
        self.accepted.push(view.h);
    }
    fn on_rejected(&mut self, t: f64, h: f64, reason: &RejectReason) {
        let before = self.accepted.len();
        self.rejected.push((t, h, reason.clone(), before));
    }
}

/// A controlled run of `estimator` (loose `rtol`, so the steps grow into the failure) with
/// mass 1 failing above [`H_FAIL`], first step `h0`.
fn run(estimator: EstimatorKind, h0: f64, h_min: f64) -> Result<(Attempts, RunStats), MasterError> {
    let rtol = 1e-3;
    let s = ErrorControlSettings {
        estimator,
        tolerances: Tolerances {
            positions: GroupTolerance::new(rtol, 1e-2 * rtol),
            velocities: GroupTolerance::new(rtol, 10.0 * rtol),
            coupling: GroupTolerance::new(rtol, 1e3 * rtol),
        },
        order: OrderMode::Variable { k_max: 3 },
        h_min,
        ..ErrorControlSettings::default()
    };
    let mass1 = FailsAbove {
        inner: Box::new(mass1_linear(&Mass1Params::default()).unwrap()),
        h_fail: H_FAIL,
    };
    let mass2 = mass2_linear(&Mass2Params::default()).unwrap();
    let mut sys = boxed_system(
        vec![("mass1", Box::new(mass1)), ("mass2", Box::new(mass2))],
        &[
            ("mass1.s1", "mass2.s1"),
            ("mass1.v1", "mass2.v1"),
            ("mass2.Fk", "mass1.Fk"),
        ],
    );
    sys.initialize(0.0, T_END).unwrap();
    let alg = ErrorControlledCoupling::new(s);
    let controller = alg.step_controller(0.0, T_END, h0);
    let mut run = Run::with_controller(sys, Box::new(alg), Box::new(controller), None)?;
    let mut attempts = Attempts::default();
    run.advance(u32::MAX, &mut attempts)?;
    assert!(run.finished());
    Ok((attempts, run.stats()))
}

#[test]
fn an_integrator_failure_inside_an_attempt_is_a_rejection_with_a_quarter_step() {
    for estimator in [
        EstimatorKind::ExMilne,
        EstimatorKind::ExLocal,
        EstimatorKind::ExSLocal,
    ] {
        let (attempts, stats) = run(estimator, 1e-4, 1e-12)
            .unwrap_or_else(|e| panic!("{estimator:?}: the run ended with {e}"));
        let failures: Vec<_> = attempts
            .rejected
            .iter()
            .enumerate()
            .filter(|(_, r)| matches!(&r.2, RejectReason::ModuleFailed { module, .. } if module == "mass1"))
            .collect();
        // The first step and every later growth past H_FAIL fail.
        assert!(
            failures.len() >= 2,
            "{estimator:?}: {:?}",
            attempts.rejected
        );
        let text = alloc::format!("{}", failures[0].1 .2);
        assert!(
            text.contains("`mass1` failed inside the attempt")
                && text.contains("step size too small"),
            "{text}"
        );
        for (i, (_, h, _, before)) in failures {
            // The next attempt, rejected again or accepted, is a quarter of the failed one.
            let next = match attempts.rejected.get(i + 1) {
                Some(r) if r.3 == *before => r.1,
                _ => attempts.accepted[*before],
            };
            assert_eq!(next, 0.25 * h, "{estimator:?}: retry after H = {h}");
        }
        assert!(attempts.accepted.iter().all(|&h| h <= H_FAIL));
        assert!(stats.modules_restored >= stats.rejected, "{estimator:?}");
        let t_end: f64 = attempts.accepted.iter().sum();
        assert!((t_end - T_END).abs() < 1e-12, "{estimator:?}: {t_end}");
    }
}

#[test]
fn a_failure_that_needs_a_step_at_h_min_ends_the_run_with_the_controller_message() {
    // 2e-3 → 5e-4 → 1.25e-4 → 3.1e-5: all fail, and the next would be 7.8e-6 < H_min.
    let e = run(EstimatorKind::ExMilne, 2e-3, 1e-5)
        .err()
        .expect("the run must end");
    let text = alloc::format!("{e}");
    assert!(matches!(e, MasterError::MacroStepTooSmall { .. }), "{text}");
    assert!(text.contains("ExMilne") && text.contains("H_min"), "{text}");
}
