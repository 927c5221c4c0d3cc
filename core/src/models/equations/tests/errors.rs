//! Every kind of source error is reported at the right line and column with a clear
//! message, and a scenario reports it at `modules[i].source`.

use super::super::{describe_equations, SourceError, EXAMPLE_SOURCE};
use crate::scenario::{preset, Scenario};
use alloc::string::String;

fn err(src: &str) -> SourceError {
    match describe_equations(src) {
        Ok(_) => panic!("expected an error in:\n{src}"),
        Err(e) => e,
    }
}

fn at(src: &str, line: u32, column: u32, message: &str) {
    let e = err(src);
    assert_eq!(
        (e.line, e.column, e.message.as_str()),
        (line, column, message),
        "{src}"
    );
}

#[test]
fn syntax_errors_point_at_the_offending_token() {
    at(
        "state x = 1\nder(x) = (x + )\n",
        2,
        15,
        "expected a number, a name or `(`, found `)`",
    );
    at(
        "state x\nder(x) = 2 x\n",
        2,
        12,
        "expected the end of the line, found a name",
    );
    at(
        "state x\nder x = 1\n",
        2,
        5,
        "expected `=` after `der`, found a name; a statement is a declaration \
        (`parameter`, `input`, `state`, `var`, `output`), `der(x) = ...` or `name = ...`",
    );
    at(
        "output y = (1 +\n 2\n",
        3,
        1,
        "expected `)` to close `(`, found the end of the source",
    );
    at(
        "parameter = 3",
        1,
        11,
        "expected a name after `parameter`, found `=`",
    );
    at("output y \"m\" = 1 \"m\"", 1, 18, "`y` has two units");
    at(
        "x = 1e+",
        1,
        6,
        "malformed number: expected digits after the exponent `e`",
    );
}

#[test]
fn unknown_names_suggest_the_closest_declared_one() {
    let src = EXAMPLE_SOURCE.replace("+ Fk)", "+ Fx)");
    at(&src, 9, 26, "unknown name `Fx`; did you mean `Fk`?");
    at(
        "state x\nder(x) = -omega*x\n",
        2,
        11,
        "unknown name `omega`",
    );
    at(
        "state x\nder(x) = tme\n",
        2,
        10,
        "unknown name `tme`; did you mean `time`?",
    );
    at(
        "state x\nder(y) = 1\n",
        2,
        5,
        "unknown state `y`; did you mean `x`?",
    );
    // No suggestion equal to the name itself (it once said "did you mean `time`?").
    at(
        "state x\nder(time) = 1\n",
        2,
        5,
        "`time` is built in, not a state; der() applies to states",
    );
    at(
        "state x\nder(x) = sinn(x)\n",
        2,
        10,
        "unknown function `sinn`; did you mean `sin`?",
    );
    at("state x\nder(x) = x(2)\n", 2, 10, "`x` is not a function");
    at(
        "state x\nder(x) = sin\n",
        2,
        10,
        "`sin` is a function; call it as `sin(...)`",
    );
    at(
        "state x\nder(x) = der(x)\n",
        2,
        10,
        "der() can only stand on the left of `=`",
    );
    at(
        "parameter k = 2\nstate x = k\nder(x) = 0\n",
        2,
        11,
        "start values must be constant: `k` cannot be used here",
    );
}

#[test]
fn wrong_number_of_arguments() {
    at(
        "state y\nder(y) = atan2(y)\n",
        2,
        10,
        "`atan2` takes 2 arguments, got 1",
    );
    at(
        "state y\nder(y) = 1 + sin(y, 2)\n",
        2,
        14,
        "`sin` takes 1 argument, got 2",
    );
    at(
        "state y\nder(y) = max()\n",
        2,
        10,
        "`max` takes 2 arguments, got 0",
    );
}

#[test]
fn duplicate_definitions() {
    at(
        "parameter m = 1\nstate x\nparameter m = 2\nder(x) = -m*x\n",
        3,
        11,
        "`m` is already declared on line 1",
    );
    at(
        "state x\nder(x) = 1\nder(x) = 2\n",
        3,
        1,
        "der(x) is already defined on line 2",
    );
    at(
        "output y = 1\ny = 2\n",
        2,
        1,
        "`y` is already defined on line 1",
    );
    at(
        "state sin\n",
        1,
        7,
        "`sin` is a built-in function and cannot name a variable",
    );
    at(
        "input time\n",
        1,
        7,
        "`time` is a reserved word and cannot name a variable",
    );
    at(
        "state x\nder(x) = 1\nx = 2\n",
        3,
        1,
        "`x` is a state; define it with `der(x) = ...`",
    );
}

#[test]
fn missing_equations() {
    at(
        "state x \"m\"\nstate v\nder(x) = v\n",
        2,
        7,
        "state `v` has no equation; add `der(v) = ...`",
    );
    at(
        "output y \"m\"\n",
        1,
        8,
        "output `y` has no value; write `output y = ...` or `y = ...`",
    );
    at(
        "parameter m\n",
        1,
        11,
        "parameter `m` needs a value, e.g. `parameter m = 1`",
    );
}

#[test]
fn algebraic_cycles_name_their_members() {
    let src = "input u\nstate x\nder(x) = -x\nvar a = b + u\nvar b = 2*c\noutput c = a - x\n";
    at(src, 4, 5, "algebraic cycle: `a` -> `b` -> `c` -> `a` (each needs the other's value; break the cycle with a state)");
    at(
        "output y = y + 1\n",
        1,
        8,
        "algebraic cycle: `y` -> `y` (each needs the other's value; break the cycle with a state)",
    );
}

#[test]
fn a_scenario_reports_source_errors_at_the_source_field() {
    let mut s: Scenario = preset("two-mass-rk4").expect("preset exists");
    s.modules[0].model = "Equations".into();
    s.modules[0].source = Some(EXAMPLE_SOURCE.replace("+ Fk)", "+ Fx)"));
    let e = s.validate().expect_err("unknown name");
    assert_eq!(e.path, "modules[0].source");
    assert_eq!(
        e.message,
        "line 9, column 26: unknown name `Fx`; did you mean `Fk`?"
    );
    s.modules[0].source = None;
    assert_eq!(
        s.validate().expect_err("no source").path,
        "modules[0].source"
    );
    s.modules[0].source = Some(EXAMPLE_SOURCE.into());
    s.modules[0].parameters.insert("c9".into(), 1.0);
    assert_eq!(
        s.validate().expect_err("unknown parameter").path,
        "modules[0].parameters.c9"
    );
    s.modules[0].parameters.clear();
    s.modules[1].source = Some(String::from("state x"));
    assert_eq!(
        s.validate().expect_err("source on a built-in").path,
        "modules[1].source"
    );
    s.modules[1].source = None;
    s.modules[0].solver = crate::scenario::SolverSpec::Exact;
    let e = s.validate().expect_err("exact is refused");
    assert_eq!(e.path, "modules[0].solver", "{e}");
}
