//! A binary module's set-step-get as one engine sequence (`step_io.rs`) against the same
//! three calls made one by one: equal reports, outputs, FMI states, call counts and errors
//! for every way a call can end (warnings, an event flag, an early return the master
//! accepts or not, a discarded step, errors in each call), with one engine crossing per
//! plain macro-step. The engine is the counting one of `sandbox_tests`, which makes a
//! sequence as the browser's engine does.

use super::sandbox::set_sandbox;
use super::sandbox_tests::{crossings, Counting};
use super::tests::{fmu, WAT, XML};
use super::{BinaryModule, RuntimeLimits};
use crate::module::step_io::one_by_one;
use crate::module::{InstantiateOptions, StepIo, StepIoResult, Subsystem, ValueRef};
use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::string::{String, ToString};

/// The lag of `tests.rs`, whose calls end otherwise for some inputs `u`: set warns at 3
/// and fails at 9; the step flags an event at 4, returns early at 5, discards at 7,
/// warns at 8 and fails at 11; get warns at 6 and fails at 13.
fn wat() -> String {
    let set_end = "    (i32.const 0))\n  (func (export \"fmi3GetFloat64\")";
    let get_end = "    (i32.const 0))\n  (func (export \"fmi3DoStep\")";
    let step_end = "    (i32.const 0))\n  (func (export \"fmi3Terminate\")";
    let status = |name: &str, cases: &[(f64, i32)]| {
        let mut f = alloc::format!("  (func ${name} (result i32)\n");
        for (u, code) in cases {
            f += &alloc::format!(
                "    (if (f64.eq (f64.load (i32.const 80)) (f64.const {u})) (then (return (i32.const {code}))))\n"
            );
        }
        f + "    (i32.const 0))\n"
    };
    let step = r#"(if (f64.eq (f64.load (i32.const 80)) (f64.const 7)) (then (return (i32.const 2))))
    (if (f64.eq (f64.load (i32.const 80)) (f64.const 11)) (then (return (i32.const 3))))
    (if (f64.eq (f64.load (i32.const 80)) (f64.const 4)) (then (i32.store8 (local.get $ev) (i32.const 1))))
    (if (f64.eq (f64.load (i32.const 80)) (f64.const 5)) (then
      (i32.store8 (local.get $early) (i32.const 1))
      (f64.store (local.get $last) (f64.add (local.get $t) (f64.mul (local.get $h) (f64.const 0.5))))
      (return (i32.const 0))))"#;
    let mut w = WAT
        .replace(
            set_end,
            &set_end.replace("(i32.const 0))", "(call $set_status))"),
        )
        .replace(
            get_end,
            &get_end.replace("(i32.const 0))", "(call $get_status))"),
        )
        .replace(
            step_end,
            &step_end.replace("(i32.const 0))", "(call $step_status))"),
        )
        .replace(";;STEP;;", step);
    let end = w.rfind(')').expect("a module");
    w.truncate(end);
    w + &status("set_status", &[(3.0, 1), (9.0, 3)])
        + &status("get_status", &[(6.0, 1), (13.0, 3)])
        + &status("step_status", &[(8.0, 1)])
        + ")"
}

fn subsystem() -> Subsystem {
    set_sandbox(&Counting);
    let bytes = fmu(XML, &wat());
    let m = BinaryModule::from_fmu(&bytes, &BTreeMap::new(), RuntimeLimits::default()).unwrap();
    let mut s = Subsystem::instantiate(Box::new(m), InstantiateOptions::default()).unwrap();
    s.enter_initialization_mode(None, 0.0, Some(100.0)).unwrap();
    s.exit_initialization_mode().unwrap();
    s
}

/// One macro-step of input `u` from `t`, as one request or one by one: its result, the
/// output and the engine crossings it took.
fn step(
    s: &mut Subsystem,
    t: f64,
    u: f64,
    early_ok: bool,
    at_once: bool,
) -> (StepIoResult, f64, usize) {
    let mut y = [f64::NAN];
    let inputs = [u];
    let mut io = StepIo {
        inputs: Some((&[ValueRef(2)], &inputs)),
        t,
        h: 0.1,
        no_set_state_prior: true,
        output_vrs: &[ValueRef(1)],
        outputs: &mut y,
        early_return_allowed: early_ok,
    };
    let before = crossings();
    let r = match at_once {
        true => s.step_with_io(&mut io),
        false => one_by_one(s, &mut io),
    };
    (r, y[0], crossings() - before)
}

#[test]
fn a_sequence_ends_every_way_the_calls_one_by_one_end() {
    let (mut at_once, mut alone) = (subsystem(), subsystem());
    let inputs = [
        1.0, 1.0, 3.0, 1.0, 4.0, 5.0, 5.0, 6.0, 8.0, 7.0, 2.0, 1.0, 1.0,
    ];
    for (k, u) in inputs.iter().enumerate() {
        // The first early return is accepted, the second is not.
        let early_ok = k != 6;
        let t = k as f64 * 0.1;
        let (a, ya, crossed) = step(&mut at_once, t, *u, early_ok, true);
        let (b, yb, one_by_one_crossed) = step(&mut alone, t, *u, early_ok, false);
        let (a, b) = (a.unwrap(), b.unwrap());
        assert_eq!(
            a, b,
            "step {k} (u = {u}): report and whether the outputs were read"
        );
        assert_eq!(ya.to_bits(), yb.to_bits(), "step {k}: output");
        assert_eq!(at_once.state(), alone.state());
        assert_eq!(at_once.counts(), alone.counts());
        // From the second step on the scratch buffer fits: a plain step is one crossing.
        if k > 0 && *u == 1.0 {
            assert_eq!((crossed, one_by_one_crossed), (1, 3), "step {k}");
        }
    }
    // The discarded step read nothing; the steps after it went on from the same state.
    assert_eq!(at_once.counts().do_step, inputs.len() as u64);
}

#[test]
fn a_failed_call_in_a_sequence_is_the_error_of_that_call_alone() {
    for u in [9.0, 11.0, 13.0] {
        let (mut at_once, mut alone) = (subsystem(), subsystem());
        // A plain step first, so that the scratch buffer fits and the sequence is taken.
        for s in [&mut at_once, &mut alone] {
            step(s, 0.0, 1.0, true, false).0.unwrap();
        }
        let (a, ya, _) = step(&mut at_once, 0.1, u, true, true);
        let (b, yb, _) = step(&mut alone, 0.1, u, true, false);
        let (a, b) = (a.unwrap_err(), b.unwrap_err());
        assert_eq!(
            (a.stage, &a.error, a.report),
            (b.stage, &b.error, b.report),
            "u = {u}"
        );
        assert!(a.error.to_string().contains("fmi3"), "{}", a.error);
        assert_eq!(
            ya.to_bits(),
            yb.to_bits(),
            "u = {u}: a failed get stores nothing"
        );
        assert_eq!(at_once.state(), alone.state());
        assert_eq!(at_once.counts(), alone.counts());
    }
}
