//! A macro-step's calls in one engine call (`step_io.rs`, `runtime/deferred.rs`): what the
//! module and the master see must be what separate calls gave, failures included.

use super::tests::{load, started, WAT, XML};
use super::RuntimeLimits;
use crate::module::{Status, ValueRef};
use alloc::string::ToString;

const X: ValueRef = ValueRef(1);
const U: ValueRef = ValueRef(2);

/// The lag whose `fmi3SetFloat64` refuses a negative value with fmi3Error.
fn refusing_negative_inputs() -> alloc::string::String {
    let set = r#"(func (export "fmi3SetFloat64") (param $inst i32) (param $vrs i32) (param $n i32) (param $vals i32) (param $nv i32) (result i32)"#;
    let refuse =
        "(if (f64.lt (f64.load (local.get $vals)) (f64.const 0)) (then (return (i32.const 3))))";
    let head = alloc::format!("{set}\n    (local $i i32)");
    WAT.replace(&head, &alloc::format!("{head}\n    {refuse}"))
}

#[test]
fn a_set_the_module_refuses_is_reported_by_the_step_naming_the_set() {
    let module = load(XML, &refusing_negative_inputs(), RuntimeLimits::default()).unwrap();
    let mut s = started(module);
    s.set_float64(&[U], &[2.0]).unwrap();
    s.do_step(0.0, 0.1, true).unwrap();
    // Kept until the step: that is where the module's answer arrives.
    s.set_float64(&[U], &[-1.0]).unwrap();
    s.will_read_after_step(&[X]);
    let e = s.do_step(0.1, 0.1, true).unwrap_err();
    assert_eq!(e.status, Status::Error);
    assert_eq!(e.to_string(), "fmi3SetFloat64 returned fmi3Error");
}

#[test]
fn the_read_made_with_the_step_is_what_a_separate_read_gives() {
    let mut announced = started(load(XML, WAT, RuntimeLimits::default()).unwrap());
    let mut separate = started(load(XML, WAT, RuntimeLimits::default()).unwrap());
    for n in 0..5 {
        let t = f64::from(n) * 0.1;
        let (mut a, mut b) = ([0.0], [0.0]);
        announced.set_float64(&[U], &[1.0 + t]).unwrap();
        announced.will_read_after_step(&[X]);
        announced.do_step(t, 0.1, true).unwrap();
        announced.get_float64(&[X], &mut a).unwrap();
        separate.set_float64(&[U], &[1.0 + t]).unwrap();
        separate.do_step(t, 0.1, true).unwrap();
        separate.get_float64(&[X], &mut b).unwrap();
        assert_eq!(a, b);
        // A second read is a call of its own, and reads the same.
        let mut again = [0.0];
        announced.get_float64(&[X], &mut again).unwrap();
        assert_eq!(again, a);
        // A read of other variables is not served by the step's.
        let mut both = [0.0, 0.0];
        announced.get_float64(&[X, U], &mut both).unwrap();
        assert_eq!(both, [a[0], 1.0 + t]);
    }
}

#[test]
fn a_discarded_step_reads_nothing_and_its_retry_reads_afresh() {
    // The lag discards steps longer than 0.15.
    let discarding = WAT.replace(
        ";;STEP;;",
        "(if (f64.gt (local.get $h) (f64.const 0.15)) (then (return (i32.const 2))))",
    );
    let mut s = started(load(XML, &discarding, RuntimeLimits::default()).unwrap());
    s.set_float64(&[U], &[5.0]).unwrap();
    s.will_read_after_step(&[X]);
    assert_eq!(s.do_step(0.0, 0.2, true).unwrap().status, Status::Discard);
    s.set_float64(&[U], &[5.0]).unwrap();
    s.will_read_after_step(&[X]);
    assert_eq!(s.do_step(0.0, 0.1, true).unwrap().status, Status::Ok);
    let mut x = [0.0];
    s.get_float64(&[X], &mut x).unwrap();
    assert_eq!(
        x,
        [1.0 + 0.1 * (5.0 - 1.0) / 0.5],
        "one step of the lag from its start"
    );
}
