//! Defect-controlled Jacobi on [`PolynomialProbe`] chains, whose defects are known in closed
//! form: a source `p(t)` feeding an integrator.

use super::*;
use crate::error::MasterError;
use crate::error::RejectReason;
use crate::master::tests::boxed_system;
use crate::master::{FixedStep, Run, StepController, StepDecision, StepDiagnostics, StepProposal};
use crate::module::Module;
use crate::testing::mock::Shared;
use crate::testing::polynomial::PolynomialProbe;
use crate::time::FixedGrid;
use alloc::boxed::Box;
use alloc::sync::Arc;
use alloc::vec;
use alloc::vec::Vec;
use core::sync::atomic::Ordering;

/// `p(t) = 1 + 2t − t²/2`, whose second derivative is `c = −1/2` times 2.
const PARABOLA: [f64; 3] = [1.0, 2.0, -0.5];

/// One accepted step as the controller saw it: `(t, h_taken, ε_k)`.
type StepLog = Arc<Shared<Vec<(f64, f64, f64)>>>;

/// A controller that records every accepted step's `ε_k`.
struct Recording {
    inner: Box<dyn StepController>,
    log: StepLog,
}

impl StepController for Recording {
    fn name(&self) -> &'static str {
        self.inner.name()
    }
    fn t_start(&self) -> f64 {
        self.inner.t_start()
    }
    fn t_stop(&self) -> f64 {
        self.inner.t_stop()
    }
    fn nominal_step(&self) -> f64 {
        self.inner.nominal_step()
    }
    fn may_reject(&self) -> bool {
        self.inner.may_reject()
    }
    fn variable_steps(&self) -> bool {
        self.inner.variable_steps()
    }
    fn propose(&mut self, t: f64) -> StepProposal {
        self.inner.propose(t)
    }
    fn judge(
        &mut self,
        t: f64,
        proposal: &StepProposal,
        h_taken: f64,
        diagnostics: &StepDiagnostics,
    ) -> Result<StepDecision, MasterError> {
        let eps = diagnostics.defect.unwrap_or(f64::NAN);
        self.log.borrow_mut().push((t, h_taken, eps));
        self.inner.judge(t, proposal, h_taken, diagnostics)
    }
    fn retry(&mut self, t: f64, h: f64, reason: &RejectReason) -> Option<f64> {
        self.inner.retry(t, h, reason)
    }
    fn finished(&self, t: f64) -> bool {
        self.inner.finished(t)
    }
}

fn settings(m: usize, n: usize) -> DefectSettings {
    DefectSettings {
        input_order: m,
        output_order: n,
        ..Default::default()
    }
}

/// `src.y → int.u` with these probes, run to the end under `controller`.
fn run_chain(
    src: PolynomialProbe,
    int: PolynomialProbe,
    s: DefectSettings,
    controller: Box<dyn StepController>,
) -> Result<(Run, StepLog), MasterError> {
    let sys = boxed_system(
        vec![
            ("src", Box::new(src) as Box<dyn Module>),
            ("int", Box::new(int)),
        ],
        &[("src.y", "int.u")],
    );
    let log = StepLog::default();
    let controller = Box::new(Recording {
        inner: controller,
        log: log.clone(),
    });
    let mut run = Run::with_controller(sys, Box::new(DefectJacobi::new(s)), controller, None)?;
    while !run.advance(u32::MAX, &mut ())? {}
    Ok((run, log))
}

fn fixed(h: f64, steps: u32) -> Box<dyn StepController> {
    Box::new(FixedStep::new(FixedGrid::uniform(0.0, h, steps)))
}

fn defect_control(stop: f64, h0: f64, tol: f64) -> Box<dyn StepController> {
    Box::new(DefectControl::new(0.0, stop, h0, tol).unwrap())
}

fn chain(s: DefectSettings, c: Box<dyn StepController>) -> (Run, StepLog) {
    let src = PolynomialProbe::source(&PARABOLA);
    match run_chain(src, PolynomialProbe::integrator(0.0), s, c) {
        Ok(r) => r,
        Err(e) => panic!("run failed: {e}"),
    }
}

#[test]
fn second_order_polynomials_carry_a_parabola_without_defect() {
    let (run, log) = chain(settings(2, 2), defect_control(2.0, 0.05, 1e-6));
    let log = log.borrow();
    assert!(log.len() > 3);
    for &(t, _, eps) in log.iter() {
        assert!(eps <= 1e-13, "ε = {eps} at t = {t}");
    }
    // A zero defect asks for the largest growth: ×2 per step until the stop time clips it.
    for w in log.windows(2).take(log.len() - 2) {
        assert!((w[1].1 / w[0].1 - 2.0).abs() < 1e-12, "{:?}", w);
    }
    assert_eq!(run.time(), 2.0);
    let d = run.algorithm().defects().unwrap();
    assert!(d.output_rms(0) <= 1e-13 && d.connection_rms(0) <= 1e-13);
    assert_eq!(d.t_reached, 2.0);
}

#[test]
fn first_order_polynomials_give_the_closed_form_defects_of_a_parabola() {
    // Both polynomials of order 1 miss p'' = −1: δu = c h (h − 2s) with c = −1/2, RMS
    // |c| h²/√3; the output polynomial misses c (s − h)², RMS |c| h²/√5, and the Hermite
    // estimate is exact for it.
    let h = 0.1;
    let connection = 0.5 * h * h / libm::sqrt(3.0);
    let output = 0.5 * h * h / libm::sqrt(5.0);
    let (run, log) = chain(settings(1, 1), fixed(h, 10));
    for &(t, _, eps) in log.borrow().iter() {
        assert!((eps - connection).abs() < 1e-12, "ε = {eps} at t = {t}");
    }
    let d = run.algorithm().defects().unwrap();
    assert!(
        (d.output_rms(0) - output).abs() < 1e-12,
        "{}",
        d.output_rms(0)
    );
    assert!((d.connection_rms(0) - connection).abs() < 1e-12);
    assert_eq!(d.output_names, ["src.y"]);
    assert_eq!(d.input_names, ["int.u"]);

    // The authors' initialisation holds the input constant in the first step only.
    let zero = DefectSettings {
        initialisation: Initialisation::ZeroDerivatives,
        ..settings(1, 1)
    };
    let (_, log) = chain(zero, fixed(h, 10));
    let log = log.borrow();
    assert!(log[0].2 > 10.0 * connection, "first step ε = {}", log[0].2);
    for &(_, _, eps) in &log[1..] {
        assert!((eps - connection).abs() < 1e-12);
    }
}

#[test]
fn output_order_zero_leaves_higher_input_derivatives_zero() {
    // n = 0: no derivative reaches the input, whatever m (docs/methods.md §15.2), so m = 2
    // behaves as m = 0.
    let (_, log2) = chain(settings(2, 0), fixed(0.1, 5));
    let (_, log0) = chain(settings(0, 0), fixed(0.1, 5));
    assert_eq!(*log2.borrow(), *log0.borrow());
    assert!(log0.borrow()[1].2 > 1e-3);
}

#[test]
fn no_module_state_is_ever_saved_or_restored() {
    let (src, int) = (
        PolynomialProbe::source(&[0.3, 1.0, -2.0, 0.7]),
        PolynomialProbe::integrator(1.0),
    );
    let counters = [src.state_calls(), int.state_calls()];
    let (run, log) = match run_chain(src, int, settings(1, 1), defect_control(3.0, 1e-3, 1e-4)) {
        Ok(r) => r,
        Err(e) => panic!("{e}"),
    };
    assert!(log.borrow().len() > 10);
    assert!(!run.algorithm().may_reject());
    assert_eq!(run.stats().rejected, 0);
    for (m, c) in counters.iter().enumerate() {
        assert_eq!(c.load(Ordering::SeqCst), 0, "module {m}");
        assert_eq!(run.system().subsystem(m).counts().set_state, 0);
        // One do_step per module and macro-step, never two half steps.
        assert_eq!(
            run.system().subsystem(m).counts().do_step,
            u64::from(run.stats().accepted)
        );
    }
    // The counter works: a state call is refused and counted.
    let mut sys = run.into_system();
    assert!(sys.subsystem_mut(0).get_state().is_err());
    assert_eq!(counters[0].load(Ordering::SeqCst), 1);
}

#[test]
fn variable_steps_end_on_the_stop_time_and_follow_the_defect() {
    let src = PolynomialProbe::source(&[0.0, 0.0, 0.0, 1.0]);
    let (run, log) = match run_chain(
        src,
        PolynomialProbe::integrator(0.0),
        settings(1, 1),
        defect_control(3.0, 1e-3, 1e-4),
    ) {
        Ok(r) => r,
        Err(e) => panic!("{e}"),
    };
    let log = log.borrow();
    assert_eq!(run.time(), 3.0);
    let (t_last, h_last, _) = log[log.len() - 1];
    assert_eq!(t_last + h_last, 3.0);
    let hs: Vec<f64> = log.iter().map(|s| s.1).collect();
    let (h_min, h_max) = hs
        .iter()
        .fold((f64::MAX, 0.0f64), |(a, b), &h| (a.min(h), b.max(h)));
    assert!(h_max > 10.0 * h_min, "steps {h_min}..{h_max}");
    // Once ramped up, the PI law holds ε_k at the tolerance (within 10 %, measured 1 %).
    for &(t, _, eps) in log
        .iter()
        .filter(|s| s.0 > 1.5)
        .take_while(|s| s.0 < t_last)
    {
        assert!((eps / 1e-4 - 1.0).abs() < 0.1, "ε = {eps} at t = {t}");
    }
}

/// Runs `src → int` under `controller`, expecting a refusal before any step.
fn refusal(
    src: PolynomialProbe,
    int: PolynomialProbe,
    s: DefectSettings,
    controller: Box<dyn StepController>,
) -> MasterError {
    match run_chain(src, int, s, controller) {
        Ok(_) => panic!("the run was not refused"),
        Err(e) => e,
    }
}

fn assert_missing(e: MasterError, module: &str, flag: &str) {
    match e {
        MasterError::MissingCapability {
            module: m,
            capability,
            ..
        } => assert_eq!((m.as_str(), capability), (module, flag)),
        e => panic!("expected a missing `{flag}`, got {e}"),
    }
}

#[test]
fn modules_lacking_what_the_settings_need_are_refused_by_name() {
    let src = || PolynomialProbe::source(&PARABOLA);
    let int = || PolynomialProbe::integrator(0.0);
    let e = refusal(
        src().output_derivative_order(0),
        int(),
        settings(0, 1),
        fixed(0.1, 3),
    );
    assert_missing(e, "src", "maxOutputDerivativeOrder");
    let e = refusal(
        src(),
        int().input_derivative_order(1),
        settings(2, 2),
        fixed(0.1, 3),
    );
    assert_missing(e, "int", "x-maxInputDerivativeOrder");
    let e = refusal(
        src().without_midpoint(),
        int(),
        settings(1, 1),
        fixed(0.1, 3),
    );
    assert_missing(e, "src", "x-providesMidpointOutputs");
    let e = refusal(
        src(),
        int().fixed_step_only(),
        settings(1, 1),
        defect_control(1.0, 0.1, 1e-3),
    );
    assert_missing(e, "int", "canHandleVariableCommunicationStepSize");
    let e = refusal(src(), int(), settings(3, 1), fixed(0.1, 3));
    assert!(matches!(e, MasterError::InvalidSettings(_)), "{e}");

    // What the settings do not need is not asked for.
    let ok = |src: PolynomialProbe, int: PolynomialProbe, s, c| {
        if let Err(e) = run_chain(src, int, s, c) {
            panic!("{e}");
        }
    };
    ok(
        src().output_derivative_order(0),
        int(),
        settings(0, 0),
        fixed(0.1, 3),
    );
    let connection_only = DefectSettings {
        monitored: Monitored::Connection,
        ..settings(1, 1)
    };
    ok(
        src().without_midpoint(),
        int(),
        connection_only,
        fixed(0.1, 3),
    );
    ok(
        src(),
        int().fixed_step_only(),
        settings(1, 1),
        fixed(0.1, 3),
    );
    // The integrator's output is not connected: it needs no output derivatives.
    ok(
        src(),
        int().output_derivative_order(0).without_midpoint(),
        settings(2, 2),
        fixed(0.1, 3),
    );
}

#[test]
fn consistent_start_carries_derivatives_through_direct_feedthrough() {
    // src: p = 1 + 2t; mid: y = ∫p + 3p (feedthrough), a parabola; end integrates it. With
    // m = n = 2 every polynomial is exact, if the start derivatives of mid.y include
    // 3 p'(0) = 6: the master sets mid's input derivatives before reading them.
    let run = |initialisation| {
        let sys = boxed_system(
            vec![
                (
                    "src",
                    Box::new(PolynomialProbe::source(&[1.0, 2.0])) as Box<dyn Module>,
                ),
                (
                    "mid",
                    Box::new(PolynomialProbe::integrator(0.5).feedthrough(3.0)),
                ),
                ("end", Box::new(PolynomialProbe::integrator(0.0))),
            ],
            &[("src.y", "mid.u"), ("mid.y", "end.u")],
        );
        let log = StepLog::default();
        let controller = Box::new(Recording {
            inner: fixed(0.25, 8),
            log: log.clone(),
        });
        let s = DefectSettings {
            initialisation,
            ..settings(2, 2)
        };
        let algorithm = Box::new(DefectJacobi::new(s));
        let mut run = match Run::with_controller(sys, algorithm, controller, None) {
            Ok(r) => r,
            Err(e) => panic!("{e}"),
        };
        if let Err(e) = run.advance(u32::MAX, &mut ()) {
            panic!("{e}");
        }
        let eps: Vec<f64> = log.borrow().iter().map(|s| s.2).collect();
        eps
    };
    let consistent = run(Initialisation::Consistent);
    assert!(consistent.iter().all(|&e| e < 1e-13), "{consistent:?}");
    // Without derivatives the first step holds every input; later steps are exact again.
    let zero = run(Initialisation::ZeroDerivatives);
    assert!(zero[0] > 0.1, "{zero:?}");
    assert!(zero[2..].iter().all(|&e| e < 1e-13), "{zero:?}");
}
