//! The Reference FMU equivalents reproduce the published `*_out.csv` files of the
//! Reference FMUs (`tests/fixtures/reference-fmus/`, with their licence) to the printed digits, run standalone
//! through the [`Subsystem`] wrapper the way `fmusim` runs an FMU in co-simulation with its
//! defaults (`fmusim/FMI3CSSimulation.c`): `eventModeUsed = earlyReturnAllowed = false`,
//! communication points `t_start + n·interval` from an integer count, one row per
//! communication point (no extra rows at events: those appear only with event mode or early
//! return), the run ending after the row of a step that asked to terminate.
//! Also: capability-specific behaviour (directional derivatives, output derivatives,
//! event mode, early return, rollback, serialisation).

use super::*;
use crate::models::{instantiate, registry};
use crate::module::{FmiState, InstantiateOptions, StepReport, Subsystem, ValueRef};
use alloc::collections::BTreeMap;
use alloc::string::ToString;
use alloc::vec;

macro_rules! reference_csv {
    ($name:literal) => {
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/fixtures/reference-fmus/",
            $name
        ))
    };
}

/// Default experiment and recorded outputs of one model.
struct Experiment {
    id: &'static str,
    start: f64,
    stop: f64,
    interval: f64,
    /// Parameters set in Instantiated (fmusim `--start-value`).
    start_values: &'static [(&'static str, f64)],
    /// CSV column → module variable names (a StateSpace array column has several).
    columns: &'static [(&'static str, &'static [&'static str])],
}

fn module(id: &str) -> Box<dyn Module> {
    instantiate(id, &BTreeMap::new(), &SolverSpec::Default)
        .unwrap_or_else(|e| panic!("{id} instantiates: {e}"))
}

fn vr_of(sub: &Subsystem, name: &str) -> ValueRef {
    sub.description()
        .variable(name)
        .map(|v| v.value_ref)
        .unwrap_or_else(|| panic!("variable {name}"))
}

/// Runs `e` like fmusim and returns the rows (time, then every variable of `e.columns`).
fn simulate(e: &Experiment) -> Vec<Vec<f64>> {
    let mut sub =
        Subsystem::instantiate(module(e.id), InstantiateOptions::default()).expect("instantiate");
    for (name, value) in e.start_values {
        let vr = vr_of(&sub, name);
        sub.set_float64(&[vr], &[*value]).expect("start value");
    }
    sub.enter_initialization_mode(None, e.start, Some(e.stop))
        .expect("enter init");
    sub.exit_initialization_mode().expect("exit init");
    let vrs: Vec<ValueRef> = e
        .columns
        .iter()
        .flat_map(|(_, vars)| vars.iter().map(|n| vr_of(&sub, n)))
        .collect();
    let mut rows = Vec::new();
    let mut sample = |sub: &mut Subsystem, t: f64| {
        let mut row = vec![0.0; vrs.len() + 1];
        row[0] = t;
        sub.get_float64(&vrs, &mut row[1..]).expect("get");
        rows.push(row);
    };
    let mut time = e.start;
    sample(&mut sub, time);
    let mut n_steps = 0u32;
    while time < e.stop {
        let next_regular = e.start + f64::from(n_steps + 1) * e.interval;
        let report: StepReport = sub.do_step(time, next_regular - time, true).expect("step");
        time = if report.early_return && report.last_successful_time < next_regular {
            report.last_successful_time
        } else {
            next_regular
        };
        if time == next_regular {
            n_steps += 1;
        }
        sample(&mut sub, time);
        if report.terminate_simulation {
            break;
        }
    }
    rows
}

/// Significant digits of a printed decimal number (`0.00123` → 3, `1.5e-3` → 2).
fn significant_digits(s: &str) -> usize {
    let mantissa = s.split(['e', 'E']).next().unwrap_or(s);
    let digits: String = mantissa.chars().filter(|c| c.is_ascii_digit()).collect();
    digits.trim_start_matches('0').len().max(1)
}

/// `ours` rounded to the digits `printed` shows equals `printed`.
fn agrees(ours: f64, printed: &str) -> bool {
    let expected: f64 = printed.parse().expect("number");
    let rounded: f64 = alloc::format!("{:.*e}", significant_digits(printed) - 1, ours)
        .parse()
        .expect("number");
    rounded == expected
}

fn check(e: &Experiment, csv: &str) {
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().expect("header").split(',').collect();
    assert_eq!(header[0], "time", "{}", e.id);
    let index: Vec<usize> = e
        .columns
        .iter()
        .map(|(c, _)| {
            header
                .iter()
                .position(|h| h == c)
                .unwrap_or_else(|| panic!("{}: column {c}", e.id))
        })
        .collect();
    let expected: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    let ours = simulate(e);
    assert_eq!(ours.len(), expected.len(), "{}: number of rows", e.id);
    for (row, (mine, theirs)) in ours.iter().zip(&expected).enumerate() {
        assert!(
            agrees(mine[0], theirs[0]),
            "{} row {row}: time {} vs {}",
            e.id,
            mine[0],
            theirs[0]
        );
        let printed = index.iter().flat_map(|&k| theirs[k].split(' '));
        for (k, p) in printed.enumerate() {
            assert!(
                agrees(mine[k + 1], p),
                "{} row {row} (t = {}): value {k}: {} vs {p}",
                e.id,
                theirs[0],
                mine[k + 1]
            );
        }
    }
}

/// fmusim's default experiment of `id` from time 0, with no start values.
const fn experiment(
    id: &'static str,
    stop: f64,
    interval: f64,
    columns: &'static [(&'static str, &'static [&'static str])],
) -> Experiment {
    Experiment {
        id,
        start: 0.0,
        stop,
        interval,
        start_values: &[],
        columns,
    }
}

const STAIR: Experiment = experiment(STAIR_ID, 10.0, 0.2, &[("counter", &["counter"])]);

#[test]
fn every_model_reproduces_its_published_output() {
    let feedthrough = Experiment {
        // The readme's settings: Float64_fixed_parameter = 1 (no effect on outputs).
        start_values: &[("Float64_fixed_parameter", 1.0)],
        ..experiment(
            FEEDTHROUGH_ID,
            2.0,
            0.1,
            &[
                ("Float64_continuous_output", &["Float64_continuous_output"]),
                ("Float64_discrete_output", &["Float64_discrete_output"]),
            ],
        )
    };
    let published = [
        (
            experiment(DAHLQUIST_ID, 10.0, 0.1, &[("x", &["x"])]),
            reference_csv!("Dahlquist_out.csv"),
        ),
        (
            experiment(
                VAN_DER_POL_ID,
                20.0,
                1e-2,
                &[("x0", &["x0"]), ("x1", &["x1"])],
            ),
            reference_csv!("VanDerPol_out.csv"),
        ),
        (
            experiment(BOUNCING_BALL_ID, 3.0, 1e-2, &[("h", &["h"]), ("v", &["v"])]),
            reference_csv!("BouncingBall_out.csv"),
        ),
        (STAIR, reference_csv!("Stair_out.csv")),
        (feedthrough, reference_csv!("Feedthrough_out.csv")),
        (
            experiment(
                STATE_SPACE_ID,
                10.0,
                1.0,
                &[("y", &["y[1]", "y[2]", "y[3]"])],
            ),
            reference_csv!("StateSpace_out.csv"),
        ),
    ];
    for (e, csv) in &published {
        check(e, csv);
    }
}

#[test]
fn stair_terminates_after_the_row_at_nine_seconds() {
    let rows = simulate(&STAIR);
    assert_eq!(rows.last().map(|r| (r[0], r[1])), Some((9.0, 10.0)));
}

#[test]
fn feedthrough_inputs_of_the_published_run_are_not_float64() {
    // Feedthrough_in.csv drives integer inputs only, which this Float64 module omits, so
    // its published Float64 outputs stay at their start values.
    let inputs = reference_csv!("Feedthrough_in.csv");
    assert!(!inputs
        .lines()
        .next()
        .unwrap_or_default()
        .contains("Float64"));
}

#[test]
fn printed_precision_comparison_rounds_to_the_printed_digits() {
    assert_eq!(significant_digits("0.99955855"), 8);
    assert_eq!(significant_digits("0.30000000000000004"), 17);
    assert_eq!(significant_digits("1"), 1);
    assert!(agrees(0.999558551, "0.99955855"));
    assert!(!agrees(0.99955856, "0.99955855"));
    assert!(agrees(f64::MIN_POSITIVE, &f64::MIN_POSITIVE.to_string()));
}

/// What an importer that handles events sets: Event Mode used, early return allowed.
const EVENT_MODE: InstantiateOptions = InstantiateOptions {
    event_mode_used: true,
    early_return_allowed: true,
};

fn initialized(id: &str, options: InstantiateOptions, stop: f64) -> Subsystem {
    let mut sub = Subsystem::instantiate(module(id), options).expect("instantiate");
    sub.enter_initialization_mode(None, 0.0, Some(stop))
        .expect("enter init");
    sub.exit_initialization_mode().expect("exit init");
    if sub.state() == FmiState::EventMode {
        while sub
            .update_discrete_states()
            .expect("update")
            .discrete_states_need_update
        {}
        sub.enter_step_mode().expect("step mode");
    }
    sub
}

#[test]
fn van_der_pol_directional_derivatives_are_exact_at_the_start() {
    let mut sub = initialized(VAN_DER_POL_ID, InstantiateOptions::default(), 20.0);
    let (x0, x1) = (vr_of(&sub, "x0"), vr_of(&sub, "x1"));
    let der = [vr_of(&sub, "der(x0)"), vr_of(&sub, "der(x1)")];
    let mut jac = [[0.0; 2]; 2];
    for (j, known) in [x0, x1].into_iter().enumerate() {
        let mut col = [0.0; 2];
        sub.directional_derivative(&der, &[known], &[1.0], &mut col)
            .expect("dd");
        jac[0][j] = col[0];
        jac[1][j] = col[1];
    }
    assert_eq!(jac, [[0.0, 1.0], [-1.0, -3.0]]);
    let mut d_mu = [0.0];
    sub.directional_derivative(&der[1..], &[vr_of(&sub, "mu")], &[1.0], &mut d_mu)
        .expect("dd mu");
    assert_eq!(d_mu, [0.0]); // (1 − x0²)·x1 with x1 = 0
}

#[test]
fn bouncing_ball_returns_early_at_the_bounce_and_bounces_in_event_mode() {
    let mut sub = initialized(BOUNCING_BALL_ID, EVENT_MODE, 3.0);
    let (h, v) = (vr_of(&sub, "h"), vr_of(&sub, "v"));
    // Free fall from 1 m reaches the ground after √(2/9.81) ≈ 0.4515 s; forward Euler at
    // 1 ms lags slightly (h_n = 1 − 9.81e-6·n(n−1)/2) and crosses zero in the step ending
    // at 0.453 s.
    let r = sub.do_step(0.0, 1.0, true).expect("step");
    assert!(r.early_return && r.event_handling_needed && !r.terminate_simulation);
    assert!(
        (r.last_successful_time - 0.453).abs() < 1e-12,
        "{}",
        r.last_successful_time
    );
    let mut before = [0.0; 2];
    sub.get_float64(&[h, v], &mut before).expect("get");
    assert!(before[0] <= 0.0 && before[1] < 0.0);
    let mut slope = [0.0; 2];
    sub.get_output_derivatives(&[h, v], &[1, 1], &mut slope)
        .expect("output derivatives");
    assert_eq!(slope, [before[1], -9.81]);
    // The Subsystem insists on Event Mode before the next step.
    assert!(sub.do_step(r.last_successful_time, 0.01, true).is_err());
    let mut sub = initialized(BOUNCING_BALL_ID, EVENT_MODE, 3.0);
    let r = sub.do_step(0.0, 1.0, true).expect("step");
    sub.enter_event_mode().expect("event mode");
    let u = sub.update_discrete_states().expect("update");
    assert!(
        !u.discrete_states_need_update && !u.terminate_simulation && u.next_event_time.is_none()
    );
    sub.enter_step_mode().expect("step mode");
    let mut after = [0.0; 2];
    sub.get_float64(&[h, v], &mut after).expect("get");
    assert_eq!(after[0], f64::MIN_POSITIVE);
    assert_eq!(after[1], -before[1] * 0.7);
    // Rising again: no second event right after the bounce.
    let t = r.last_successful_time;
    let r2 = sub.do_step(t, 0.1, true).expect("step");
    assert!(!r2.early_return && !r2.event_handling_needed);
}

#[test]
fn stair_in_event_mode_counts_in_event_mode_and_terminates_there() {
    let mut sub = initialized(STAIR_ID, EVENT_MODE, 10.0);
    let counter = vr_of(&sub, "counter");
    let mut t = 0.0;
    let mut events = Vec::new();
    loop {
        let r = sub.do_step(t, 10.0 - t, true).expect("step");
        t = r.last_successful_time;
        assert!(r.event_handling_needed && r.early_return);
        sub.enter_event_mode().expect("event mode");
        let u = sub.update_discrete_states().expect("update");
        let mut c = [0.0];
        sub.get_float64(&[counter], &mut c).expect("get");
        events.push((t, c[0]));
        if u.terminate_simulation {
            sub.terminate().expect("terminate");
            break;
        }
        assert_eq!(u.next_event_time, Some(t + 1.0));
        sub.enter_step_mode().expect("step mode");
    }
    let expected: Vec<(f64, f64)> = (1..=9).map(|k| (f64::from(k), f64::from(k + 1))).collect();
    assert_eq!(events, expected);
}

#[test]
fn rollback_and_serialised_state_repeat_a_step_exactly() {
    let mut sub = initialized(VAN_DER_POL_ID, InstantiateOptions::default(), 20.0);
    let x = [vr_of(&sub, "x0"), vr_of(&sub, "x1")];
    sub.do_step(0.0, 0.5, true).expect("step");
    let saved = sub.get_state().expect("get state");
    let bytes = sub.serialize_state(&saved).expect("serialize");
    let restored = sub.deserialize_state(&bytes).expect("deserialize");
    sub.do_step(0.5, 0.5, false).expect("step");
    let mut first = [0.0; 2];
    sub.get_float64(&x, &mut first).expect("get");
    for state in [&saved, &restored] {
        sub.set_state(state).expect("set state");
        sub.do_step(0.5, 0.5, false).expect("step again");
        let mut again = [0.0; 2];
        sub.get_float64(&x, &mut again).expect("get");
        assert_eq!(again, first);
    }
    assert!(sub.deserialize_state(&bytes[1..]).is_err());
}

#[test]
fn reference_models_refuse_other_solvers_and_bad_parameters() {
    let rk4 = SolverSpec::Rk4 { step: 1e-3 };
    let e = instantiate(DAHLQUIST_ID, &BTreeMap::new(), &rk4)
        .err()
        .expect("rk4 refused");
    assert!(
        e.to_string().contains("its solver must be `default`"),
        "{e}"
    );
    let mut p = BTreeMap::new();
    p.insert(String::from("e"), 0.2);
    assert!(instantiate(BOUNCING_BALL_ID, &p, &SolverSpec::Default).is_err());
    let mut p = BTreeMap::new();
    p.insert(String::from("v_min"), 0.2);
    assert!(instantiate(BOUNCING_BALL_ID, &p, &SolverSpec::Default).is_err());
    // The registry offers each of them with its own solver only.
    let reference: Vec<_> = registry()
        .iter()
        .filter(|m| m.id.starts_with("ReferenceFMU."))
        .collect();
    assert_eq!(reference.len(), 6);
    for m in reference {
        assert_eq!((m.solvers)(), vec![SolverSpec::Default], "{}", m.id);
    }
}
