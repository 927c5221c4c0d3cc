//! Cross-model tests: capability flags, catalog and instantiation, the two-mass oscillator
//! in both forms.

use super::two_mass_oscillator::*;
use super::*;
use crate::module::{Derivatives, JacobianProduct, Module, ModuleErrorKind, ValueRef};
use crate::solvers::SolverSpec;
use crate::solvers::{Dopri45, Integrator};
use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

fn vr(m: &dyn Module, name: &str) -> ValueRef {
    m.description()
        .variable(name)
        .map(|v| v.value_ref)
        .expect("variable exists")
}

/// The value references of a Jacobian `∂(der(x), y)/∂(x, u)`: `(knowns, unknowns)`, states
/// in [`crate::module::ModuleDescription::states`] order.
pub(crate) fn jacobian_value_refs(
    desc: &crate::module::ModuleDescription,
) -> (Vec<ValueRef>, Vec<ValueRef>) {
    let states = desc.states();
    let knowns = states.iter().map(|(x, _)| x.value_ref);
    let unknowns = states.iter().map(|(_, d)| d.value_ref);
    (
        knowns
            .chain(desc.inputs().iter().map(|v| v.value_ref))
            .collect(),
        unknowns
            .chain(desc.outputs().iter().map(|v| v.value_ref))
            .collect(),
    )
}

fn message(e: crate::module::ModuleError) -> String {
    match e.kind {
        ModuleErrorKind::InvalidArgument(m) => m,
        other => alloc::format!("{other:?}"),
    }
}

fn map(entries: &[(&str, f64)]) -> BTreeMap<String, f64> {
    entries
        .iter()
        .map(|(k, v)| (String::from(*k), *v))
        .collect()
}

#[test]
fn capability_flags_agree_with_accessors_for_every_builtin_model() {
    for info in catalog() {
        for solver in &info.solvers {
            let mut m =
                instantiate(info.id, &BTreeMap::new(), solver).expect("defaults instantiate");
            let caps = m.description().capabilities.clone();
            let ctx = alloc::format!("{} with {solver:?}", info.id);
            assert_eq!(
                caps.can_get_and_set_fmu_state,
                m.state_snapshot().is_some(),
                "{ctx}"
            );
            assert_eq!(
                caps.provides_directional_derivatives,
                m.directional_derivatives().is_some(),
                "{ctx}"
            );
            assert_eq!(
                caps.max_output_derivative_order > 0,
                m.output_derivatives().is_some(),
                "{ctx}"
            );
            assert_eq!(
                caps.x_max_input_derivative_order > 0,
                m.input_derivatives().is_some(),
                "{ctx}"
            );
            assert_eq!(caps.has_event_mode, m.event_mode().is_some(), "{ctx}");
            assert_eq!(
                caps.x_provides_midpoint_outputs,
                m.midpoint_outputs().is_some(),
                "{ctx}"
            );
            assert_eq!(
                caps.x_exposes_equations,
                m.exposed_equations().is_some(),
                "{ctx}"
            );
            assert!(
                !caps.can_serialize_fmu_state || caps.can_get_and_set_fmu_state,
                "{ctx}"
            );
            // `x-reportsEnergy` promises a Float64 output `E` in J (docs/methods.md §13).
            let energy = m
                .description()
                .variable("E")
                .filter(|v| v.causality == crate::module::Causality::Output && v.unit == "J");
            assert_eq!(caps.x_reports_energy, energy.is_some(), "{ctx}");
            // A stateless built-in (an algebraic element) exposes its empty state vector:
            // its Jacobian is its D, given by directional derivatives (models/layout.rs).
            let stateless = m.description().states().is_empty();
            assert!(
                caps.x_exposes_states == !stateless
                    || (stateless && caps.provides_directional_derivatives),
                "{ctx}"
            );
            assert_eq!(m.description().model_name, info.id);
            for p in &info.parameters {
                let v = m
                    .description()
                    .variable(&p.name)
                    .expect("catalog names exist in the module");
                assert_eq!(v.unit, p.unit, "{ctx}: {}", p.name);
                assert_eq!(v.start, p.start, "{ctx}: {}", p.name);
            }
        }
    }
}

#[test]
fn instantiate_applies_parameters_and_state_start_values() {
    for solver in [SolverSpec::Exact, SolverSpec::Rk4 { step: 1e-5 }] {
        let mut m =
            instantiate(MASS2_ID, &map(&[("ck", 3e5), ("x1", 0.02)]), &solver).expect("valid");
        let mut v = [0.0; 2];
        m.get_float64(&[vr(&*m, "ck"), vr(&*m, "x1")], &mut v)
            .expect("get");
        assert_eq!(v, [3e5, 0.02]);
        // Fk = ck (x1 − s1) + dk (x2 − v1) with zero inputs.
        let mut fk = [0.0];
        m.get_float64(&[vr(&*m, "Fk")], &mut fk).expect("get");
        assert_eq!(fk[0], 3e5 * 0.02);
    }
}

#[test]
fn instantiate_refuses_bad_names_values_and_solvers() {
    let exact = SolverSpec::Exact;
    let e = instantiate(MASS2_ID, &map(&[("ck", -3.0)]), &exact)
        .err()
        .expect("negative ck");
    assert_eq!(
        message(e),
        "parameter `ck`: expected a non-negative number, got -3"
    );
    let e = instantiate(MASS1_ID, &map(&[("m1", 0.0)]), &exact)
        .err()
        .expect("zero mass");
    assert_eq!(
        message(e),
        "parameter `m1`: expected a positive number, got 0"
    );
    let e = instantiate(MASS1_ID, &map(&[("x2", f64::NAN)]), &exact)
        .err()
        .expect("NaN");
    assert!(message(e).starts_with("parameter `x2`"));
    let e = instantiate(MASS1_ID, &map(&[("ck", 1.0)]), &exact)
        .err()
        .expect("Mass1 has no ck");
    assert!(message(e).starts_with("parameter `ck`"));
    assert!(instantiate("Nope", &BTreeMap::new(), &exact).is_err());
    let e = instantiate(MASS1_ID, &BTreeMap::new(), &SolverSpec::Rk4 { step: 0.0 })
        .err()
        .expect("zero step");
    assert!(message(e).contains("`step`"));
    assert!(instantiate(
        MASS1_ID,
        &BTreeMap::new(),
        &SolverSpec::Dopri45 {
            rtol: 0.0,
            atol: 0.0
        }
    )
    .is_err());
    assert!(instantiate(
        MASS1_ID,
        &BTreeMap::new(),
        &SolverSpec::Dopri45 {
            rtol: -1.0,
            atol: 1.0
        }
    )
    .is_err());
}

fn start(m: &mut dyn Module) {
    m.enter_initialization_mode(None, 0.0, None).expect("init");
    m.exit_initialization_mode().expect("exit");
}

/// Sets a fresh polynomial input (as a master's extrapolation would) and steps.
fn step_with(m: &mut dyn Module, inputs: &[(&str, [f64; 3])], n: u32, h: f64) {
    for (name, c) in inputs {
        let r = vr(m, name);
        let shift = 1.0 + 0.1 * f64::from(n);
        m.set_float64(&[r], &[c[0] * shift]).expect("value");
        let d = m.input_derivatives().expect("input derivatives");
        d.set_input_derivatives(
            Derivatives::of_inputs(&[r, r], &[1, 2], &[c[1], c[2]]).expect("lengths"),
        )
        .expect("derivatives");
    }
    m.do_step(f64::from(n) * h, h, true).expect("step");
}

/// Drives two modules with the same polynomial inputs for a few steps; returns the largest
/// state difference relative to the state scale.
fn compare_steps(
    a: &mut dyn Module,
    b: &mut dyn Module,
    inputs: &[(&str, [f64; 3])],
    h: f64,
    steps: u32,
) -> f64 {
    start(a);
    start(b);
    let states = [vr(a, "x1"), vr(a, "x2")];
    let mut worst = 0.0f64;
    for n in 0..steps {
        step_with(a, inputs, n, h);
        step_with(b, inputs, n, h);
        let (mut xa, mut xb) = ([0.0; 2], [0.0; 2]);
        a.get_float64(&states, &mut xa).expect("get");
        b.get_float64(&states, &mut xb).expect("get");
        let scale = xa.iter().fold(1e-3f64, |s, v| s.max(libm::fabs(*v) * 1e-3));
        for i in 0..2 {
            worst = worst.max(libm::fabs(xa[i] - xb[i]) / (libm::fabs(xa[i]) + scale));
        }
    }
    worst
}

#[test]
fn two_mass_linear_and_dopri_modules_agree_over_a_few_steps() {
    let tight = Integrator::Dopri45(Dopri45 {
        rtol: 1e-12,
        atol: 1e-16,
    });
    let p1 = Mass1Params::default();
    let (mut lin, mut ode) = (
        mass1_linear(&p1).expect("lin"),
        mass1_ode(&p1, tight.clone()).expect("ode"),
    );
    let err = compare_steps(&mut lin, &mut ode, &[("Fk", [100.0, 2e4, -3e6])], 2e-4, 8);
    assert!(err < 1e-9, "Mass1: {err}");
    let p2 = Mass2Params::default();
    let (mut lin, mut ode) = (
        mass2_linear(&p2).expect("lin"),
        mass2_ode(&p2, tight).expect("ode"),
    );
    let inputs = [("s1", [0.01, 0.5, -30.0]), ("v1", [0.5, -30.0, 100.0])];
    let err = compare_steps(&mut lin, &mut ode, &inputs, 2e-4, 8);
    assert!(err < 1e-9, "Mass2: {err}");
}

#[test]
fn finite_difference_derivatives_of_ode_modules_match_the_exact_linear_ones() {
    let pairs: [(Box<dyn Module>, Box<dyn Module>); 2] = [
        (
            instantiate(MASS1_ID, &map(&[("x2", 0.3)]), &SolverSpec::Exact).expect("lin"),
            instantiate(
                MASS1_ID,
                &map(&[("x2", 0.3)]),
                &SolverSpec::Rk4 { step: 1e-5 },
            )
            .expect("ode"),
        ),
        (
            instantiate(MASS2_ID, &map(&[("x1", 0.01)]), &SolverSpec::Exact).expect("lin"),
            instantiate(
                MASS2_ID,
                &map(&[("x1", 0.01)]),
                &SolverSpec::Dopri45 {
                    rtol: 1e-6,
                    atol: 1e-9,
                },
            )
            .expect("ode"),
        ),
    ];
    for (mut lin, mut ode) in pairs {
        let desc = lin.description().clone();
        let (knowns, unknowns) = jacobian_value_refs(&desc);
        for m in [&mut lin, &mut ode] {
            m.enter_initialization_mode(None, 0.0, None).expect("init");
        }
        for j in 0..knowns.len() {
            let mut seed = alloc::vec![0.0; knowns.len()];
            seed[j] = 1.0;
            let (mut exact, mut fd) = (
                alloc::vec![0.0; unknowns.len()],
                alloc::vec![0.0; unknowns.len()],
            );
            lin.directional_derivatives()
                .expect("dd")
                .directional_derivative(
                    JacobianProduct::new(&unknowns, &knowns, &seed, &mut exact).expect("lengths"),
                )
                .expect("exact");
            ode.directional_derivatives()
                .expect("dd")
                .directional_derivative(
                    JacobianProduct::new(&unknowns, &knowns, &seed, &mut fd).expect("lengths"),
                )
                .expect("fd");
            for (e, f) in exact.iter().zip(&fd) {
                assert!(
                    libm::fabs(e - f) <= 1e-6 * libm::fabs(*e).max(1.0),
                    "{}: column {j}: {e} vs {f}",
                    desc.model_name
                );
            }
        }
    }
}

/// Parameters of the exact two-mass modules are settable before Step Mode (FMI `fixed`):
/// the matrices follow, `reset` restores the built values and a saved state its own, bad
/// values are refused with the parameter's name, and a value that would add an undeclared feedthrough is refused.
#[test]
fn exact_two_mass_parameters_are_settable_before_step_mode() {
    use crate::module::{InstantiateOptions, Subsystem};
    fn jacobian_of_fk(sub: &mut Subsystem) -> Vec<f64> {
        let d = sub.description();
        let fk = vr_of(d, "Fk");
        let knowns = [
            vr_of(d, "x1"),
            vr_of(d, "x2"),
            vr_of(d, "s1"),
            vr_of(d, "v1"),
        ];
        (0..4)
            .map(|j| {
                let mut seed = [0.0; 4];
                seed[j] = 1.0;
                let mut out = [0.0];
                sub.directional_derivative(&[fk], &knowns, &seed, &mut out)
                    .expect("derivative");
                out[0]
            })
            .collect()
    }
    fn vr_of(d: &crate::module::ModuleDescription, name: &str) -> ValueRef {
        d.variable(name).map(|v| v.value_ref).expect("variable")
    }
    let solver = SolverSpec::default();
    let built = |ck: f64, dk: f64| {
        let m = instantiate(MASS2_ID, &map(&[("ck", ck), ("dk", dk)]), &solver).expect("built");
        let mut sub = Subsystem::instantiate(m, InstantiateOptions::default()).expect("sub");
        sub.enter_initialization_mode(None, 0.0, None)
            .expect("init");
        jacobian_of_fk(&mut sub)
    };
    let m = instantiate(MASS2_ID, &BTreeMap::new(), &solver).expect("defaults");
    let mut sub = Subsystem::instantiate(m, InstantiateOptions::default()).expect("sub");
    let (ck, dk) = (
        vr_of(sub.description(), "ck"),
        vr_of(sub.description(), "dk"),
    );
    sub.set_float64(&[ck, dk], &[3e7, 40.0]).expect("settable");
    sub.enter_initialization_mode(None, 0.0, None)
        .expect("init");
    assert_eq!(jacobian_of_fk(&mut sub), built(3e7, 40.0));
    assert_eq!(jacobian_of_fk(&mut sub), [3e7, 40.0, -3e7, -40.0]);
    // A saved state carries the parameters: restoring it after a reset brings them back.
    let saved = sub.get_state().expect("state");
    sub.reset().expect("reset");
    sub.enter_initialization_mode(None, 0.0, None)
        .expect("init");
    assert_eq!(jacobian_of_fk(&mut sub), built(2e5, 5e2));
    sub.set_state(&saved).expect("restore");
    assert_eq!(jacobian_of_fk(&mut sub), built(3e7, 40.0));
    sub.reset().expect("reset");
    let e = sub.set_float64(&[ck], &[-1.0]).expect_err("negative c_k");
    assert!(message(e).contains("`ck`"));
    // Without coupling there is no declared feedthrough: adding one is refused.
    let m = instantiate(MASS2_ID, &map(&[("ck", 0.0), ("dk", 0.0)]), &solver).expect("built");
    let mut sub = Subsystem::instantiate(m, InstantiateOptions::default()).expect("sub");
    let e = sub.set_float64(&[ck], &[1.0]).expect_err("new feedthrough");
    assert!(message(e).contains("feedthrough"));
}
