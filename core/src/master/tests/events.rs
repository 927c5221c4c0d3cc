//! Early return, Event Mode and termination in the explicit masters, with the Reference FMU
//! equivalents (BouncingBall, Stair, Dahlquist) and mocks: other modules are brought to the
//! event time (shortened step or rollback), events go through a legal Event Mode sequence
//! (the `Subsystem` wrapper would refuse anything else), termination ends the run cleanly.

use super::boxed_system as system;
use crate::error::MasterError;
use crate::master::{CoupledSystem, ExplicitCoupling, Run, TimeSeriesRecorder};
use crate::models::instantiate;
use crate::models::reference_fmus::{BOUNCING_BALL_ID, DAHLQUIST_ID, STAIR_ID};
use crate::module::{FmiState, Module, StepReport};
use crate::scenario::SolverSpec;
use crate::testing::mock::{MockModule, Shared};
use crate::time::FixedGrid;
use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::sync::Arc;
use alloc::vec;
use alloc::vec::Vec;

fn reference(id: &str) -> Box<dyn Module> {
    instantiate(id, &BTreeMap::new(), &SolverSpec::Default).expect("reference model")
}

fn run(
    sys: CoupledSystem,
    algorithm: ExplicitCoupling,
    grid: FixedGrid,
) -> Result<(Run, TimeSeriesRecorder), MasterError> {
    let mut run = Run::new(sys, Box::new(algorithm), grid, None)?;
    let mut rec = TimeSeriesRecorder::new();
    assert!(run.advance(u32::MAX, &mut rec)?);
    Ok((run, rec))
}

/// `y = ∫ u dt` for a height input in m (zero-order hold over each step).
fn integrator() -> MockModule {
    MockModule::new(&[("u", "m")], &[("y", "m.s")])
        .states(&[0.0])
        .output(|c, y| y[0] = c.x[0])
        .on_step(|c, h, x| x[0] += c.u[0][0] * h)
}

/// An integrator of the ball's height that records every `(t, h)` it is stepped with.
fn passive(steps: &Arc<Shared<Vec<(f64, f64)>>>) -> MockModule {
    let steps = steps.clone();
    integrator().report(move |t, h| {
        steps.borrow_mut().push((t, h));
        StepReport::completed(t + h)
    })
}

const BALL_GRID: FixedGrid = FixedGrid::uniform(0.0, 0.01, 300);
/// First bounce: the Euler step ending at 0.453 s crosses h = 0 (see the model's tests).
const FIRST_BOUNCE: f64 = 0.453;

#[test]
fn early_return_brings_the_other_module_to_the_event_time() {
    let steps = Arc::new(Shared::default());
    let sys = system(
        vec![
            ("int", Box::new(passive(&steps))),
            ("ball", reference(BOUNCING_BALL_ID)),
        ],
        &[("ball.h", "int.u")],
    );
    let (run, rec) = run(sys, ExplicitCoupling::jacobi(0), BALL_GRID).expect("runs");
    // The passive module stopped at the bounce (shortened step) and went on from there to
    // the next grid point.
    let steps = steps.borrow();
    let k = steps
        .iter()
        .position(|&(t, h)| (t - 0.45).abs() < 1e-12 && (h - 0.003).abs() < 1e-12);
    let k = k.expect("a step from 0.45 s to the bounce at 0.453 s");
    assert!(
        (steps[k + 1].0 - FIRST_BOUNCE).abs() < 1e-12 && (steps[k + 1].1 - 0.007).abs() < 1e-12
    );
    // Recorded at the actual event time, after the bounce (Event Mode handled it).
    let i = rec
        .time
        .iter()
        .position(|&t| (t - FIRST_BOUNCE).abs() < 1e-12)
        .expect("event point recorded");
    let h = rec.columns[1][i];
    let v = rec.columns[2][i];
    assert_eq!(h, f64::MIN_POSITIVE);
    assert!(v > 3.0, "{v}");
    assert!(
        run.events() > 0 && run.steps_done() == BALL_GRID.steps && run.terminated_early().is_none()
    );
    // Communication points strictly increase and every grid point is still recorded.
    assert!(rec.time.windows(2).all(|w| w[1] > w[0]));
    for n in 0..=BALL_GRID.steps {
        assert!(
            rec.time.iter().any(|&t| t == BALL_GRID.time(n)),
            "grid point {n}"
        );
    }
    let mut sys = run.into_system();
    assert_eq!(sys.subsystem(1).state(), FmiState::StepMode);
    sys.terminate(3.0).expect("terminate");
}

#[test]
fn bouncing_ball_through_the_master_matches_the_published_output_at_every_grid_point() {
    // Early return + Event Mode in the master do the same arithmetic as the FMU's internal
    // event handling, so the grid rows equal BouncingBall_out.csv; the event rows are extra.
    let sys = system(vec![("ball", reference(BOUNCING_BALL_ID))], &[]);
    let (run, rec) = run(sys, ExplicitCoupling::jacobi(0), BALL_GRID).expect("runs");
    let csv = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/fixtures/reference-fmus/BouncingBall_out.csv"
    ));
    let mut grid_rows = 0;
    for line in csv.lines().skip(1) {
        let cols: Vec<f64> = line
            .split(',')
            .map(|c| c.parse().expect("number"))
            .collect();
        let i = rec
            .time
            .iter()
            .position(|&t| t == cols[0])
            .unwrap_or_else(|| panic!("t = {} recorded", cols[0]));
        assert_eq!(
            (rec.columns[0][i], rec.columns[1][i]),
            (cols[1], cols[2]),
            "t = {}",
            cols[0]
        );
        grid_rows += 1;
    }
    assert_eq!(grid_rows, 301);
    assert_eq!(rec.time.len(), 301 + run.events() as usize);
    assert!(run.events() >= 5, "bounces: {}", run.events());
}

#[test]
fn gauss_seidel_rolls_back_a_module_that_already_passed_the_event() {
    // Dahlquist steps first (to t + h), then the ball returns early: Dahlquist is rolled
    // back with its saved state and both are stepped to the event time.
    let sys = system(
        vec![
            ("decay", reference(DAHLQUIST_ID)),
            ("ball", reference(BOUNCING_BALL_ID)),
        ],
        &[],
    );
    let grid = FixedGrid::uniform(0.0, 0.01, 50);
    let (run, rec) = run(sys, ExplicitCoupling::gauss_seidel(vec![0, 1], 0), grid).expect("runs");
    assert!(rec.time.iter().any(|&t| (t - FIRST_BOUNCE).abs() < 1e-12));
    assert_eq!(run.events(), 1);
    let sys = run.into_system();
    assert_eq!(sys.subsystem(0).counts().set_state, 1);
    assert_eq!(sys.subsystem(1).counts().set_state, 1);
}

#[test]
fn rollback_without_get_set_state_is_a_clear_error() {
    let steps = Arc::new(Shared::default());
    let sys = system(
        vec![
            ("int", Box::new(passive(&steps))),
            ("ball", reference(BOUNCING_BALL_ID)),
        ],
        &[("ball.h", "int.u")],
    );
    let err = run(
        sys,
        ExplicitCoupling::gauss_seidel(vec![0, 1], 0),
        BALL_GRID,
    )
    .err()
    .expect("refused");
    match &err {
        MasterError::MissingCapability {
            module, capability, ..
        } => {
            assert_eq!(
                (module.as_str(), *capability),
                ("int", "canGetAndSetFMUState")
            );
        }
        other => panic!("expected MissingCapability, got {other:?}"),
    }
    let text = format!("{err}");
    assert!(
        text.contains("`ball` returned early at t = 0.453"),
        "{text}"
    );
}

#[test]
fn early_return_needs_variable_step_sizes_everywhere() {
    let sys = system(
        vec![
            ("int", Box::new(integrator().fixed_step_only())),
            ("ball", reference(BOUNCING_BALL_ID)),
        ],
        &[("ball.h", "int.u")],
    );
    let err = Run::new(sys, Box::new(ExplicitCoupling::jacobi(0)), BALL_GRID, None)
        .err()
        .expect("refused");
    match err {
        MasterError::MissingCapability {
            module,
            capability,
            needed_by,
        } => {
            assert_eq!(
                (module.as_str(), capability),
                ("int", "canHandleVariableCommunicationStepSize")
            );
            assert!(needed_by.contains("`ball`"), "{needed_by}");
        }
        other => panic!("expected MissingCapability, got {other:?}"),
    }
}

#[test]
fn stair_counts_in_event_mode_and_terminates_the_run_cleanly() {
    // Event Mode and early return at its time events; the recorded run equals Stair_out.csv.
    let sys = system(vec![("stair", reference(STAIR_ID))], &[]);
    let grid = FixedGrid::uniform(0.0, 0.2, 50);
    let (run, rec) = run(sys, ExplicitCoupling::jacobi(0), grid).expect("ends cleanly");
    assert_eq!(run.terminated_early(), Some((9.0, "stair")));
    assert!(run.finished() && run.steps_done() == 45);
    let csv = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/fixtures/reference-fmus/Stair_out.csv"
    ));
    let expected: Vec<(f64, f64)> = csv
        .lines()
        .skip(1)
        .map(|l| {
            let (t, c) = l.split_once(',').expect("two columns");
            (t.parse().expect("time"), c.parse().expect("counter"))
        })
        .collect();
    let ours: Vec<(f64, f64)> = rec
        .time
        .iter()
        .copied()
        .zip(rec.columns[0].iter().copied())
        .collect();
    assert_eq!(ours, expected);
    // Terminated inside Event Mode; fmi3Terminate is legal from there.
    let mut sys = run.into_system();
    assert_eq!(sys.subsystem(0).state(), FmiState::EventMode);
    sys.terminate(9.0).expect("terminate");
}

#[test]
fn a_run_after_termination_takes_no_more_steps() {
    let sys = system(vec![("stair", reference(STAIR_ID))], &[]);
    let grid = FixedGrid::uniform(0.0, 0.5, 40);
    let mut run =
        Run::new(sys, Box::new(ExplicitCoupling::jacobi(0)), grid, None).expect("prepare");
    let mut rec = TimeSeriesRecorder::new();
    assert!(run.advance(u32::MAX, &mut rec).expect("clean end"));
    let points = rec.time.len();
    assert!(run.advance(10, &mut rec).expect("still finished"));
    assert_eq!(rec.time.len(), points);
    assert_eq!(run.time(), 9.0);
}
