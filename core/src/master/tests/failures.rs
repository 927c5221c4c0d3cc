//! Refusals before the first step and failures during the run, each with a message that
//! names the module or signal.

use super::{run_all, system};
use crate::error::MasterError;
use crate::master::{ExplicitCoupling, Run, TimeSeriesRecorder};
use crate::module::StepReport;
use crate::testing::mock::{integrator, source, CallLog};
use crate::time::FixedGrid;
use alloc::boxed::Box;
use alloc::format;
use alloc::vec;

fn grid() -> FixedGrid {
    FixedGrid::uniform(0.0, 0.1, 10)
}

#[test]
fn missing_input_derivative_order_is_refused_before_the_first_step() {
    let log = CallLog::default();
    let sys = system(
        vec![
            ("src", source(libm::sin).log_to(&log, "src")),
            ("int", integrator(0.0, 1).log_to(&log, "int")),
        ],
        &[("src.y", "int.u")],
    );
    let err = Run::new(sys, Box::new(ExplicitCoupling::jacobi(2)), grid(), None)
        .err()
        .unwrap();
    match &err {
        MasterError::MissingCapability {
            module, capability, ..
        } => {
            assert_eq!(module, "int");
            assert_eq!(*capability, "x-maxInputDerivativeOrder ≥ 2");
        }
        other => panic!("expected MissingCapability, got {other:?}"),
    }
    let text = format!("{err}");
    assert!(
        text.contains("extrapolation order 2")
            && text.contains("`int`")
            && text.contains("order 1"),
        "{text}"
    );
    assert!(!log.borrow().iter().any(|c| c.ends_with(".step")));
    // A source without inputs needs no input derivatives: order 4 with a capable consumer runs.
    let sys = system(
        vec![("src", source(libm::sin)), ("int", integrator(0.0, 4))],
        &[("src.y", "int.u")],
    );
    assert!(run_all(sys, ExplicitCoupling::jacobi(4), grid(), None).is_ok());
}

#[test]
fn order_above_four_is_refused_before_the_first_step() {
    let log = CallLog::default();
    let sys = system(
        vec![
            ("src", source(libm::sin).log_to(&log, "src")),
            ("int", integrator(0.0, 4)),
        ],
        &[("src.y", "int.u")],
    );
    let r = Run::new(sys, Box::new(ExplicitCoupling::jacobi(5)), grid(), None);
    assert!(matches!(r, Err(MasterError::InvalidSettings(m)) if m.contains("order 5")));
    assert!(!log.borrow().iter().any(|c| c.ends_with(".step")));
}

#[test]
fn diverging_output_names_the_signal_and_the_time() {
    let sys = system(
        vec![
            ("src", source(|t| if t > 0.45 { f64::INFINITY } else { t })),
            ("int", integrator(0.0, 0)),
        ],
        &[("src.y", "int.u")],
    );
    let mut run = Run::new(sys, Box::new(ExplicitCoupling::jacobi(0)), grid(), None).unwrap();
    let mut rec = TimeSeriesRecorder::new();
    let err = run.advance(100, &mut rec).unwrap_err();
    match &err {
        MasterError::Diverged { t, signal } => {
            assert_eq!(signal, "src.y");
            assert!((t - 0.5).abs() < 1e-12, "t = {t}");
        }
        other => panic!("expected Diverged, got {other:?}"),
    }
    assert_eq!(run.steps_done(), 4);
    assert_eq!(rec.time.len(), 5);
    // The run stays failed.
    assert_eq!(run.advance(1, &mut rec).unwrap_err(), err);
}

fn reporting(report: impl Fn(f64, f64) -> StepReport + Send + 'static) -> Result<(), MasterError> {
    let sys = system(
        vec![
            ("src", source(|t| t)),
            ("int", integrator(0.0, 0).report(report)),
        ],
        &[("src.y", "int.u")],
    );
    run_all(sys, ExplicitCoupling::jacobi(0), grid(), None).map(|_| ())
}

#[test]
fn discard_is_an_error_for_the_fixed_step_master() {
    let err = reporting(|t, h| {
        if t > 0.25 {
            StepReport::discarded(t)
        } else {
            StepReport::completed(t + h)
        }
    })
    .unwrap_err();
    let text = format!("{err}");
    assert!(
        text.contains("`int`") && text.contains("cannot retry"),
        "{text}"
    );
}

#[test]
fn terminate_request_ends_the_run_cleanly() {
    let sys = system(
        vec![
            ("src", source(|t| t)),
            (
                "int",
                integrator(0.0, 0).report(|t, h| StepReport {
                    terminate_simulation: t > 0.25,
                    ..StepReport::completed(t + h)
                }),
            ),
        ],
        &[("src.y", "int.u")],
    );
    // Finished, not failed: the step that asked to stop is recorded, then nothing more.
    let (run, rec) = run_all(sys, ExplicitCoupling::jacobi(0), grid(), None).expect("clean end");
    assert!(run.finished());
    assert_eq!(
        run.terminated_early()
            .map(|(t, m)| (libm::round(t * 10.0), m)),
        Some((4.0, "int"))
    );
    assert_eq!(rec.time.len(), 5);
    assert!((rec.time[4] - 0.4).abs() < 1e-12);
}

#[test]
fn early_return_without_early_return_allowed_is_refused() {
    // The mock does not declare mightReturnEarlyFromDoStep, so it runs with
    // earlyReturnAllowed = false and must not return early.
    let err = reporting(|t, h| StepReport {
        early_return: true,
        ..StepReport::completed(t + 0.5 * h)
    })
    .unwrap_err();
    let text = format!("{err}");
    assert!(
        text.contains("`int`") && text.contains("earlyReturnAllowed = false"),
        "{text}"
    );
}

#[test]
fn bad_history_is_refused() {
    let make = || {
        system(
            vec![("src", source(|t| t)), ("int", integrator(0.0, 2))],
            &[("src.y", "int.u")],
        )
    };
    let bad = [
        vec![(-0.1, vec![0.0])],                              // wrong length
        vec![(0.0, vec![0.0, 0.0])],                          // not before start
        vec![(-0.1, vec![0.0, 0.0]), (-0.2, vec![0.0, 0.0])], // not increasing
        vec![(-0.1, vec![f64::NAN, 0.0])],                    // non-finite
    ];
    for h in bad {
        let r = Run::new(
            make(),
            Box::new(ExplicitCoupling::jacobi(2)),
            grid(),
            Some(h),
        );
        assert!(matches!(r, Err(MasterError::InvalidSettings(_))));
    }
}

#[test]
fn invalid_grid_is_refused() {
    let sys = system(vec![("src", source(|t| t))], &[]);
    let g = FixedGrid::uniform(0.0, 0.0, 3);
    assert!(matches!(
        Run::new(sys, Box::new(ExplicitCoupling::jacobi(0)), g, None),
        Err(MasterError::InvalidSettings(_))
    ));
}
