//! The driver's rollback path: runs under controllers that reject chosen attempts
//! ([`crate::testing`]) must give bit for bit the numbers of the plain fixed-grid run, for
//! every algorithm (explicit Jacobi and Gauss-Seidel with extrapolation, early return with
//! events, the model-based corrector with finite-difference gains). Also the observer's
//! view of applied inputs, the step hook's offsets, and the up-front refusal of a
//! controller that may reject when a module cannot save its state.

use super::{boxed_system as system, two_mass};
use crate::error::MasterError;
use crate::master::{
    CoupledSystem, Executor, ExplicitCoupling, FixedStep, JacobianRequest, MasterAlgorithm,
    ModelBasedCorrection, ModuleSlot, Observer, Run, StepController, StepHook, Sweep, SystemView,
    TimeSeriesRecorder,
};
use crate::models::instantiate;
use crate::models::reference_fmus::{BOUNCING_BALL_ID, DAHLQUIST_ID};
use crate::module::Module;
use crate::scenario::SolverSpec;
use crate::testing::mock::MockModule;
use crate::testing::{RejectEvery, RejectFirstTry};
use crate::time::FixedGrid;
use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::string::ToString;
use alloc::sync::Arc;
use alloc::vec;
use alloc::vec::Vec;
use core::sync::atomic::{AtomicU32, Ordering};

fn reference(id: &str) -> Box<dyn Module> {
    instantiate(id, &BTreeMap::new(), &SolverSpec::Default).expect("reference model")
}

/// A bouncing ball and a decaying state stepped after it (Gauss-Seidel [1, 0] steps the
/// ball first; [0, 1] makes every bounce a rollback).
fn ball_and_decay() -> CoupledSystem {
    system(
        vec![
            ("decay", reference(DAHLQUIST_ID)),
            ("ball", reference(BOUNCING_BALL_ID)),
        ],
        &[],
    )
}

const GRID: FixedGrid = FixedGrid::uniform(0.0, 2e-5, 150);

const BALL_GRID: FixedGrid = FixedGrid::uniform(0.0, 0.01, 120);

fn record(
    sys: CoupledSystem,
    algorithm: Box<dyn MasterAlgorithm>,
    controller: Box<dyn StepController>,
) -> Result<(Run, TimeSeriesRecorder), MasterError> {
    let mut run = Run::with_controller(sys, algorithm, controller, None)?;
    let mut rec = TimeSeriesRecorder::new();
    assert!(run.advance(u32::MAX, &mut rec)?);
    Ok((run, rec))
}

/// Runs `make_sys` with `make_algorithm` on `grid` plainly, rejecting every third attempt,
/// and trying every step at twice its size first (if `first_try`), and checks the three
/// records are identical. Returns the rejecting run's rejected-attempt count.
fn rejections_leave_no_trace(
    make_sys: fn() -> CoupledSystem,
    make_algorithm: &dyn Fn() -> Box<dyn MasterAlgorithm>,
    grid: FixedGrid,
    first_try: bool,
) -> u32 {
    let (plain, expected) =
        record(make_sys(), make_algorithm(), Box::new(FixedStep::new(grid))).expect("plain run");
    let (every_third, rec) = record(
        make_sys(),
        make_algorithm(),
        Box::new(RejectEvery::new(grid, 3)),
    )
    .expect("run rejecting every third attempt");
    assert_eq!(rec, expected, "every third attempt rejected");
    assert_eq!(every_third.events(), plain.events());
    let stats = every_third.stats();
    // Plain runs reject only at events that need a rollback.
    assert!(stats.rejected > plain.stats().rejected);
    assert!(stats.modules_restored >= stats.rejected);
    if first_try {
        let (twice, rec) = record(
            make_sys(),
            make_algorithm(),
            Box::new(RejectFirstTry::new(grid, 2.0)),
        )
        .expect("run trying twice the step first");
        assert_eq!(rec, expected, "first tries of 2h rejected");
        // One rejected first try per accepted step, plus rollbacks at events.
        assert!(twice.stats().rejected >= twice.stats().accepted);
    }
    stats.rejected - plain.stats().rejected
}

#[test]
fn rejected_attempts_leave_no_trace_in_explicit_runs() {
    for p in 0..=3 {
        let rejected = rejections_leave_no_trace(
            two_mass,
            &|| Box::new(ExplicitCoupling::jacobi(p)),
            GRID,
            true,
        );
        // Every third judged attempt: 224 attempts for 150 accepted steps.
        assert_eq!(rejected, (GRID.steps - 1) / 2, "p = {p}");
        rejections_leave_no_trace(
            two_mass,
            &|| Box::new(ExplicitCoupling::gauss_seidel(vec![1, 0], p)),
            GRID,
            true,
        );
    }
}

#[test]
fn rejected_attempts_leave_no_trace_with_events_and_rollbacks_at_bounces() {
    for sequence in [vec![1, 0], vec![0, 1]] {
        rejections_leave_no_trace(
            ball_and_decay,
            &|| Box::new(ExplicitCoupling::gauss_seidel(sequence.clone(), 0)),
            BALL_GRID,
            true,
        );
    }
}

#[test]
fn rejected_attempts_leave_no_trace_with_finite_difference_correction() {
    for p in [0, 2] {
        rejections_leave_no_trace(
            two_mass,
            &|| {
                Box::new(ModelBasedCorrection::new(
                    p,
                    1.0,
                    JacobianRequest::FiniteDifferences,
                ))
            },
            GRID,
            false,
        );
    }
    // The corrector's gains are for one step size: a controller that varies it is refused.
    let err = record(
        two_mass(),
        Box::new(ModelBasedCorrection::new(1, 1.0, JacobianRequest::Auto)),
        Box::new(RejectFirstTry::new(GRID, 2.0)),
    )
    .err()
    .expect("refused");
    assert!(err.to_string().contains("fixed macro-step"), "{err}");
}

#[test]
fn a_controller_that_may_reject_is_refused_when_a_module_cannot_save_its_state() {
    let stateless = MockModule::new(&[], &[("y", "1")]).output(|_, y| y[0] = 1.0);
    let sys = system(
        vec![
            ("mass", reference(DAHLQUIST_ID)),
            ("plain", Box::new(stateless)),
        ],
        &[],
    );
    let err = Run::with_controller(
        sys,
        Box::new(ExplicitCoupling::jacobi(0)),
        Box::new(RejectEvery::new(GRID, 3)),
        None,
    )
    .err()
    .expect("refused before the first step");
    match err {
        MasterError::MissingCapability {
            module, capability, ..
        } => assert_eq!(
            (module.as_str(), capability),
            ("plain", "canGetAndSetFMUState")
        ),
        other => panic!("unexpected error: {other}"),
    }
}

/// Records the inputs applied at every step start and the step sizes.
#[derive(Default)]
struct InputLog(Vec<(f64, Vec<f64>)>);

impl Observer for InputLog {
    fn on_initialized(&mut self, view: &SystemView<'_>) {
        self.0.push((view.h, view.inputs().to_vec()));
    }
    fn on_macro_step(&mut self, view: &SystemView<'_>) {
        self.0.push((view.h, view.inputs().to_vec()));
    }
}

/// Adds 1 to every input from the third step on.
struct ShiftInputs(u32);

impl StepHook for ShiftInputs {
    fn step_commencing(
        &mut self,
        _view: &SystemView<'_>,
        _h: f64,
        offsets: &mut [f64],
    ) -> Result<(), MasterError> {
        self.0 += 1;
        if self.0 == 3 {
            offsets.iter_mut().for_each(|o| *o = 1.0);
        }
        Ok(())
    }
}

/// `y = u` (direct feedthrough of a held input) feeding `y = t` clock's consumer.
fn clock_and_echo() -> CoupledSystem {
    let clock = MockModule::new(&[], &[("t", "s")]).output(|c, y| y[0] = c.t);
    let echo = MockModule::new(&[("u", "s")], &[("y", "s")]).output(|c, y| y[0] = c.u[0][0]);
    system(
        vec![("clock", Box::new(clock)), ("echo", Box::new(echo))],
        &[("clock.t", "echo.u")],
    )
}

#[test]
fn observers_see_the_inputs_applied_and_a_hook_offsets_them() {
    let grid = FixedGrid::uniform(0.0, 0.5, 4);
    let mut run = Run::new(
        clock_and_echo(),
        Box::new(ExplicitCoupling::jacobi(0)),
        grid,
        None,
    )
    .expect("prepares");
    let mut log = InputLog::default();
    run.set_hook(Box::new(ShiftInputs(0)));
    assert!(run.advance(u32::MAX, &mut log).expect("runs"));
    // Zero-order hold of the clock: the input at the start of the step ending at t is
    // t − h; from the third step on the hook adds 1.
    let applied: Vec<(f64, f64)> = log.0.iter().map(|(h, u)| (*h, u[0])).collect();
    assert_eq!(
        applied,
        [(0.0, 0.0), (0.5, 0.0), (0.5, 0.5), (0.5, 2.0), (0.5, 2.5)]
    );
}

/// Steps the modules of a sweep in reverse index order, as a parallel executor might, and
/// counts the module steps it ran.
struct Reversed(Arc<AtomicU32>);

impl Executor for Reversed {
    fn sweep(&mut self, s: Sweep<'_, '_>) -> Result<(), MasterError> {
        let selected = s.selected;
        let mut slots: Vec<ModuleSlot<'_>> =
            s.sys.slots().filter(|slot| selected[slot.index]).collect();
        for slot in slots.iter_mut().rev() {
            s.reports[slot.index] = (s.task)(slot)?;
            self.0.fetch_add(1, Ordering::Relaxed);
        }
        Ok(())
    }
}

#[test]
fn a_jacobi_sweep_gives_the_same_numbers_in_any_module_order() {
    for p in [0, 2] {
        let algorithm = || ExplicitCoupling::jacobi(p);
        let (_, expected) = record(
            two_mass(),
            Box::new(algorithm()),
            Box::new(FixedStep::new(GRID)),
        )
        .expect("sequential");
        let count = Arc::new(AtomicU32::new(0));
        let (run, rec) = record(
            two_mass(),
            Box::new(algorithm().with_executor(Box::new(Reversed(count.clone())))),
            Box::new(FixedStep::new(GRID)),
        )
        .expect("reversed");
        assert_eq!(rec, expected, "p = {p}");
        assert_eq!(run.stats().accepted, GRID.steps);
        assert_eq!(
            count.load(Ordering::Relaxed),
            2 * GRID.steps,
            "both modules swept"
        );
    }
}
