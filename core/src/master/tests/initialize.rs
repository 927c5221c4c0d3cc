//! Initialisation propagates initial outputs through direct feedthrough in dependency
//! order, whatever the module order.

use super::system;
use crate::master::{ExplicitCoupling, Run, TimeSeriesRecorder};
use crate::testing::mock::{source, CallLog, MockModule};
use crate::time::FixedGrid;
use alloc::boxed::Box;
use alloc::vec;

#[test]
fn initial_outputs_are_consistent_through_a_feedthrough_chain() {
    // Declared downstream first: C (y = u) ← B (y = 3u) ← A (y = 2).
    let log = CallLog::default();
    let gain = |k: f64| {
        MockModule::new(&[("u", "")], &[("y", "")])
            .feedthrough(0, 0)
            .output(move |c, y| y[0] = k * c.u[0][0])
    };
    let mut sys = system(
        vec![
            ("C", gain(1.0).log_to(&log, "C")),
            ("B", gain(3.0)),
            ("A", source(|_| 2.0)),
        ],
        &[("A.y", "B.u"), ("B.y", "C.u")],
    );
    sys.initialize(0.5, 1.0).unwrap();
    assert_eq!(sys.outputs(), &[6.0, 6.0, 2.0]);
    assert_eq!(sys.initialized_at(), Some(0.5));
    assert!(sys.initialize(0.5, 1.0).is_err());
    // An initialised system can be handed to a run that starts at the same time.
    let grid = FixedGrid::uniform(0.5, 0.25, 2);
    let mut run = Run::new(sys, Box::new(ExplicitCoupling::jacobi(0)), grid, None).unwrap();
    let mut rec = TimeSeriesRecorder::new();
    assert!(run.advance(10, &mut rec).unwrap());
    assert_eq!(rec.time, vec![0.5, 0.75, 1.0]);
    assert_eq!(rec.columns[0][0], 6.0);
}

#[test]
fn run_refuses_a_system_initialised_at_another_time() {
    let mut sys = system(vec![("A", source(|t| t))], &[]);
    sys.initialize(1.0, 2.0).unwrap();
    let grid = FixedGrid::uniform(0.0, 0.5, 2);
    assert!(Run::new(sys, Box::new(ExplicitCoupling::jacobi(0)), grid, None).is_err());
}
