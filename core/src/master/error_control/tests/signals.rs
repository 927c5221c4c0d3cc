//! Order control on constructed coupling signals, through [`MacroStepControl`] with the
//! history it would see in a run: the degree climbs to `k_max` on a smooth signal, drops at
//! a kink, and follows the failure overrides.

use super::super::{
    Attempt, ErrorControlSettings, ErrorNorms, EstimatorKind, MacroStepControl, OrderMode,
    OrderRule,
};
use crate::master::error_control::coupling_history;
use crate::master::OutputHistory;
use alloc::vec::Vec;

const H: f64 = 0.1;

/// ExSLocal with a constant estimate that keeps the step (`SF·‖ε‖ = 0.9`), and
/// `H_max = H` so that growth after an order change is clamped: the grid stays uniform.
fn controller(k_max: usize) -> MacroStepControl {
    MacroStepControl::new(ErrorControlSettings {
        estimator: EstimatorKind::ExSLocal,
        h_max: H,
        order: OrderMode::Variable { k_max },
        ..Default::default()
    })
    .unwrap()
}

const KEEP: f64 = 0.15;

/// Runs `steps` accepted steps of `u(t)` from `t0`, each with the step the controller
/// chose, and returns the degree and step after each.
fn run(
    ctl: &mut MacroStepControl,
    hist: &mut OutputHistory,
    u: impl Fn(f64) -> [f64; 2],
    t0: f64,
    steps: usize,
) -> Vec<(usize, f64)> {
    let mut out = Vec::new();
    let (mut t, mut h) = (t0, H);
    for _ in 0..steps {
        let attempt = Attempt {
            t,
            h,
            k: ctl.degree(),
            norms: ErrorNorms::coupling(KEEP),
            corrector_failed: false,
        };
        let u_new = u(t + h);
        let v = ctl.judge(&attempt, hist, &u_new).unwrap();
        assert!(v.accepted);
        hist.push(t + h, &u_new);
        out.push((v.k_next, v.h_next));
        (t, h) = (t + h, v.h_next);
    }
    out
}

/// The degrees of a run on a smooth signal, whose steps must all stay `H`.
fn degrees_of(steps: &[(usize, f64)]) -> Vec<usize> {
    assert!(steps.iter().all(|s| s.1 == H), "{steps:?}");
    steps.iter().map(|s| s.0).collect()
}

fn smooth(t: f64) -> [f64; 2] {
    [libm::sin(t), libm::cos(t)]
}

/// A smooth start up to k = 5: returns the controller and its history at t = 4.
fn at_k_max() -> (MacroStepControl, OutputHistory) {
    let mut ctl = controller(5);
    let mut hist = coupling_history(2);
    hist.push(0.0, &smooth(0.0));
    ctl.start(1);
    let degrees = degrees_of(&run(&mut ctl, &mut hist, smooth, 0.0, 40));
    assert_eq!(*degrees.last().unwrap(), 5);
    (ctl, hist)
}

#[test]
fn a_smooth_signal_raises_the_degree_step_by_step_to_k_max() {
    let mut ctl = controller(5);
    let mut hist = coupling_history(2);
    hist.push(0.0, &smooth(0.0));
    ctl.start(1);
    let degrees = degrees_of(&run(&mut ctl, &mut hist, smooth, 0.0, 40));
    // Never lowered, raised by one at a time, each raise after more than k steps at k.
    let mut steps_at_k = 0;
    for w in degrees.windows(2) {
        steps_at_k += 1;
        assert!(w[1] == w[0] || w[1] == w[0] + 1, "{degrees:?}");
        if w[1] == w[0] + 1 {
            assert!(steps_at_k > w[0], "{degrees:?}");
            steps_at_k = 0;
        }
    }
    assert_eq!(*degrees.last().unwrap(), 5, "{degrees:?}");
    let first_at_5 = degrees.iter().position(|&k| k == 5).unwrap();
    assert!(first_at_5 < 30, "{degrees:?}");
    // A lower k_max is respected.
    let mut ctl = controller(2);
    let mut hist = coupling_history(2);
    hist.push(0.0, &smooth(0.0));
    ctl.start(1);
    let capped = degrees_of(&run(&mut ctl, &mut hist, smooth, 0.0, 40));
    assert_eq!(capped.iter().max(), Some(&2));
}

#[test]
fn a_kink_lowers_the_degree() {
    let (mut ctl, mut hist) = at_k_max();
    // The slope of the first component jumps by 5 at t = 4.05.
    let kinked = |t: f64| {
        let [a, b] = smooth(t);
        [a + 5.0 * (t - 4.05).max(0.0), b]
    };
    let (mut smooth_ctl, mut smooth_hist) = (ctl.clone(), hist.clone());
    let steps = run(&mut ctl, &mut hist, kinked, 4.0, 4);
    // The first point past the kink lowers k (and the a priori estimate shortens the step).
    assert_eq!(steps[0].0, 4, "{steps:?}");
    assert!(steps[0].1 < H, "{steps:?}");
    assert!(steps.iter().map(|s| s.0).min().unwrap() <= 3, "{steps:?}");
    // Without the kink the degree stays at 5.
    let steps = run(&mut smooth_ctl, &mut smooth_hist, smooth, 4.0, 4);
    assert_eq!(degrees_of(&steps), [5, 5, 5, 5]);
}

#[test]
fn failures_force_the_degree_to_one_then_zero() {
    let (mut ctl, hist) = at_k_max();
    let t = 4.0;
    let mut h = H;
    let mut seen = Vec::new();
    for _ in 0..6 {
        let attempt = Attempt {
            t,
            h,
            k: ctl.degree(),
            norms: ErrorNorms::coupling(2.0),
            corrector_failed: false,
        };
        let v = ctl.judge(&attempt, &hist, &[0.0, 0.0]).unwrap();
        assert!(!v.accepted);
        h = v.h_next;
        seen.push((ctl.failures(), v.k_next, v.order_rule));
    }
    assert_eq!(
        seen.iter().map(|s| s.1).collect::<Vec<_>>(),
        [5, 5, 5, 1, 1, 0],
        "{seen:?}"
    );
    assert_eq!(seen[3].2, OrderRule::FailuresToOne);
    assert_eq!(seen[5].2, OrderRule::FailuresToZero);
    // An accepted step resets N_fail.
    let attempt = Attempt {
        t,
        h,
        k: ctl.degree(),
        norms: ErrorNorms::coupling(KEEP),
        corrector_failed: false,
    };
    ctl.judge(&attempt, &hist, &smooth(t + h)).unwrap();
    assert_eq!(ctl.failures(), 0);
}
