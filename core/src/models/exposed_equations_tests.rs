//! `x-exposesEquations` of every built-in model: the exposed `f` and `g` agree with what
//! the module itself reports (`der(x)` and outputs through `fmi3GetFloat64`) at the same
//! point, the calls are checked by the `Subsystem`, and only the models with events or
//! discrete states do without.

use super::reference_fmus::{BOUNCING_BALL_ID, STAIR_ID};
use super::*;
use crate::module::{
    Causality, FmiState, InstantiateOptions, ModuleErrorKind, Subsystem, ValueRef,
};
use crate::solvers::SolverSpec;
use alloc::collections::BTreeMap;
use alloc::vec;
use alloc::vec::Vec;

/// Every catalog model with every solver, initialised as a subsystem with its inputs set
/// to distinct non-zero values: `(id, subsystem, inputs)`.
fn initialised_models() -> Vec<(&'static str, Subsystem, Vec<f64>)> {
    let mut out = Vec::new();
    for info in catalog() {
        for solver in &info.solvers {
            let m = instantiate(info.id, &BTreeMap::new(), solver).expect("defaults");
            let mut s = Subsystem::instantiate(m, InstantiateOptions::default()).expect("inst");
            s.enter_initialization_mode(None, 0.0, Some(1.0))
                .expect("enter");
            let inputs: Vec<ValueRef> = s
                .description()
                .with_causality(Causality::Input)
                .map(|v| v.value_ref)
                .collect();
            let u: Vec<f64> = (0..inputs.len()).map(|i| 0.5 + i as f64).collect();
            s.set_float64(&inputs, &u).expect("inputs");
            s.exit_initialization_mode().expect("exit");
            out.push((info.id, s, u));
        }
    }
    out
}

#[test]
fn exposed_equations_equal_the_modules_own_derivatives_and_outputs() {
    let mut exposing = 0;
    for (id, mut s, u) in initialised_models() {
        let desc = s.description().clone();
        if !desc.capabilities.x_exposes_equations {
            assert!(
                [BOUNCING_BALL_ID, STAIR_ID].contains(&id),
                "{id} should expose"
            );
            continue;
        }
        exposing += 1;
        let n = s.equation_state_count().expect("count");
        assert_eq!(n, desc.states().len(), "{id}");
        let mut x = vec![0.0; n];
        s.equation_states(&mut x).expect("states");
        let der: Vec<ValueRef> = desc.states().iter().map(|(_, d)| d.value_ref).collect();
        let outs: Vec<ValueRef> = desc.outputs().iter().map(|v| v.value_ref).collect();
        let (mut own_dx, mut own_y) = (vec![0.0; n], vec![0.0; outs.len()]);
        s.get_float64(&der, &mut own_dx).expect("der");
        s.get_float64(&outs, &mut own_y).expect("outputs");
        let (mut dx, mut y) = (vec![0.0; n], vec![0.0; outs.len()]);
        s.equation_rhs(0.0, &x, &u, &mut dx).expect("rhs");
        s.equation_outputs(0.0, &x, &u, &mut y).expect("outputs");
        assert_eq!(dx, own_dx, "{id}: f");
        assert_eq!(y, own_y, "{id}: g");
        // Evaluating elsewhere does not move the module.
        let far: Vec<f64> = x.iter().map(|v| v + 1.0).collect();
        s.equation_rhs(0.5, &far, &u, &mut dx)
            .expect("rhs elsewhere");
        let mut again = vec![0.0; n];
        s.equation_states(&mut again).expect("states");
        assert_eq!(again, x, "{id}: states unchanged");
    }
    assert!(exposing >= 10, "{exposing} models expose their equations");
}

#[test]
fn exposed_equation_calls_are_checked_by_the_subsystem() {
    for (id, mut s, u) in initialised_models() {
        let exposes = s.description().capabilities.x_exposes_equations;
        let n = if exposes {
            s.equation_state_count().expect("count")
        } else {
            0
        };
        let mut dx = vec![0.0; n + 1];
        let x = vec![0.0; n];
        let e = s
            .equation_rhs(0.0, &x, &u, &mut dx)
            .expect_err("wrong length or unsupported");
        let expected = match exposes {
            true => matches!(e.kind, ModuleErrorKind::InvalidArgument(_)),
            false => matches!(e.kind, ModuleErrorKind::Unsupported("x-exposesEquations")),
        };
        assert!(expected, "{id}: {e:?}");
        assert_eq!(
            s.state(),
            FmiState::Terminated,
            "{id}: an error ends the instance"
        );
    }
}

#[test]
fn exposed_equations_are_refused_before_initialisation() {
    let m = instantiate(
        "TwoMassOscillator.Mass1",
        &BTreeMap::new(),
        &SolverSpec::Exact,
    )
    .expect("mass 1");
    let mut s = Subsystem::instantiate(m, InstantiateOptions::default()).expect("inst");
    let e = s.equation_state_count().expect_err("not yet initialised");
    assert!(
        matches!(e.kind, ModuleErrorKind::IllegalCall { .. }),
        "{e:?}"
    );
}
