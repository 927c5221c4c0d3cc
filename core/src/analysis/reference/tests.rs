//! The monolithic references against closed forms: the linear two-mass oscillator through
//! the integrator (to the exact solution at irregular times), the exact walk sampled on
//! and off its grid, a nonlinear chain through direct feedthrough, and the refusals.

use super::*;
use crate::analysis::{LinearBlock, MonolithicReference};
use crate::master::CoupledSystem;
use crate::models::equations::EquationModule;
use crate::models::two_mass_oscillator::{
    exact_outputs, Mass1Params, Mass2Params, MASS1_ID, MASS2_ID,
};
use crate::models::{instantiate, reference_fmus::STAIR_ID};
use crate::module::Module;
use crate::solvers::{Dopri45, Integrator, SolverSpec};
use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

fn builtin(id: &str, solver: &SolverSpec) -> Box<dyn Module> {
    instantiate(id, &BTreeMap::new(), solver).expect("model")
}

fn equations(source: &str) -> Box<dyn Module> {
    let integrator = Integrator::Dopri45(Dopri45 {
        rtol: 1e-8,
        atol: 1e-10,
    });
    Box::new(EquationModule::new(source, &BTreeMap::new(), integrator).expect("source"))
}

fn connections(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

const TWO_MASS: [(&str, &str); 3] = [
    ("mass2.Fk", "mass1.Fk"),
    ("mass1.s1", "mass2.s1"),
    ("mass1.v1", "mass2.v1"),
];

fn two_mass_modules(solver: &SolverSpec) -> Vec<(String, Box<dyn Module>)> {
    alloc::vec![
        ("mass1".into(), builtin(MASS1_ID, solver)),
        ("mass2".into(), builtin(MASS2_ID, solver)),
    ]
}

/// Increasing times with uneven gaps (some repeated), as a variable-step run records them.
fn irregular_times(t_end: f64, n: u32) -> Vec<f64> {
    let mut times: Vec<f64> = (0..=n)
        .map(|k| t_end * libm::pow(f64::from(k) / f64::from(n), 1.5))
        .collect();
    times.insert(n as usize / 2, times[n as usize / 2]);
    times
}

/// Largest error of `got` against `want`, relative to each signal's largest magnitude.
fn worst_relative(got: &[[f64; 3]], want: &[[f64; 3]]) -> f64 {
    let mut worst = 0.0f64;
    for j in 0..3 {
        let scale = want.iter().fold(0.0f64, |m, y| m.max(libm::fabs(y[j])));
        for (g, w) in got.iter().zip(want) {
            worst = worst.max(libm::fabs(g[j] - w[j]) / scale);
        }
    }
    worst
}

#[test]
fn integrated_reference_of_the_linear_two_mass_oscillator_is_the_closed_form_at_irregular_times() {
    // RK4 modules: not declared linear, so only the integrated reference applies; their
    // exposed equations are the exact ones.
    let modules = two_mass_modules(&SolverSpec::Rk4 { step: 1e-5 });
    let eq = CoupledEquations::build(modules, &connections(&TWO_MASS), 0.0, 0.1).expect("eq");
    assert_eq!((eq.n_states(), eq.n_outputs()), (4, 3));
    let integrator = Box::new(TightDopri45::new(eq.n_states()));
    let mut r = IntegratedReference::new(eq, integrator).expect("reference");
    let (p1, p2) = (Mass1Params::default(), Mass2Params::default());
    let (mut got, mut want) = (Vec::new(), Vec::new());
    for t in irregular_times(0.1, 700) {
        let y = r.advance_to(t).expect("advance");
        got.push([y[0], y[1], y[2]]);
        want.push(exact_outputs(&p1, &p2, t).expect("closed form"));
    }
    let e = worst_relative(&got, &want);
    assert!(
        e <= 1e-8,
        "integrated reference off the closed form by {e:e}"
    );
    assert!(r.integrator().starts_with("dopri45 rtol 1e-10"));
}

/// The exact reference of the two-mass oscillator from its modules' Jacobians.
fn exact_two_mass() -> MonolithicReference {
    let modules = two_mass_modules(&SolverSpec::Exact);
    let mut system = CoupledSystem::new(modules, &connections(&TWO_MASS)).expect("system");
    system.initialize(0.0, 1.0).expect("init");
    let l = system.graph().coupling_matrix();
    let blocks: Vec<LinearBlock> = system
        .modules_mut()
        .map(|(_, s)| LinearBlock::from_subsystem(s).expect("block"))
        .collect();
    MonolithicReference::new(&blocks, &l).expect("reference")
}

#[test]
fn sampled_linear_reference_is_the_walk_on_its_grid_and_the_closed_form_between() {
    let exact = exact_two_mass();
    let (h, n) = (1e-4, 300);
    let rows = exact.outputs_at_offsets(h, n).expect("rows");
    let mut sampled = SampledLinearReference::new(exact, 0.0, h).expect("sampled");
    let (p1, p2) = (Mass1Params::default(), Mass2Params::default());
    for (k, row) in rows.iter().enumerate() {
        let t_k = f64::from(k as u32) * h;
        if k % 7 == 3 {
            // An event point between grid points does not disturb the walk.
            let t = t_k - 0.37 * h;
            let y = sampled.advance_to(t).expect("off grid").to_vec();
            let w = exact_outputs(&p1, &p2, t).expect("closed form");
            let e = worst_relative(&[[y[0], y[1], y[2]]], &[w]);
            assert!(e <= 1e-9, "off-grid t = {t}: {e:e}");
        }
        let y = sampled.advance_to(t_k).expect("on grid");
        assert_eq!(
            y,
            row.as_slice(),
            "grid point {k}: the same bits as the walk"
        );
    }
}

#[test]
fn linear_scenario_through_the_integrator_equals_the_exact_reference() {
    let mut exact = SampledLinearReference::new(exact_two_mass(), 0.0, 1e-4).expect("exact");
    let modules = two_mass_modules(&SolverSpec::Exact);
    let eq = CoupledEquations::build(modules, &connections(&TWO_MASS), 0.0, 0.05).expect("eq");
    let integrator = Box::new(TightDopri45::new(eq.n_states()));
    let mut integrated = IntegratedReference::new(eq, integrator).expect("integrated");
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for t in irregular_times(0.05, 333) {
        let y = integrated.advance_to(t).expect("integrated");
        a.push([y[0], y[1], y[2]]);
        let y = exact.advance_to(t).expect("exact");
        b.push([y[0], y[1], y[2]]);
    }
    let e = worst_relative(&a, &b);
    assert!(e <= 1e-9, "integrated against exact: {e:e}");
}

/// `x' = w`, `y = x` (a), `q = 2 p` (c, direct feedthrough), `w = −y²` (b, direct
/// feedthrough), stacked b, c, a so the stacking order is not the evaluation order:
/// `x' = −4 x²`, `x(0) = 1`, so `x = 1 / (1 + 4 t)`.
fn feedthrough_chain() -> CoupledEquations {
    let modules = alloc::vec![
        ("b".into(), equations("input y\noutput w = -y*y\n")),
        ("c".into(), equations("input p\noutput q = 2*p\n")),
        (
            "a".into(),
            equations("input w\nstate x = 1\nder(x) = w\noutput y = x\n")
        ),
    ];
    let wiring = [("a.y", "c.p"), ("c.q", "b.y"), ("b.w", "a.w")];
    CoupledEquations::build(modules, &connections(&wiring), 0.0, 2.0).expect("chain")
}

#[test]
fn direct_feedthrough_is_resolved_in_propagation_order() {
    let mut eq = feedthrough_chain();
    // Outputs stacked b.w, c.q, a.y at x = 1: w = −(2·1)², q = 2, y = 1, in one pass.
    assert_eq!(eq.outputs(0.0, &[1.0]).expect("outputs"), &[-4.0, 2.0, 1.0]);
    assert_eq!(eq.inputs(), &[2.0, 1.0, -4.0], "b.y, c.p, a.w");
    let mut dx = [0.0];
    eq.rhs(0.0, &[0.5], &mut dx).expect("rhs");
    assert_eq!(dx, [-1.0]);
    let integrator = Box::new(TightDopri45::new(eq.n_states()));
    let mut r = IntegratedReference::new(eq, integrator).expect("reference");
    for t in irregular_times(2.0, 40) {
        let y = r.advance_to(t).expect("advance");
        let x = 1.0 / (1.0 + 4.0 * t);
        assert!(libm::fabs(y[2] - x) <= 1e-9 * x, "t = {t}: {} vs {x}", y[2]);
        assert!(libm::fabs(y[0] + 4.0 * x * x) <= 1e-8 * x * x, "t = {t}");
    }
}

#[test]
fn an_algebraic_loop_is_refused_with_its_ports() {
    let modules = alloc::vec![
        ("f".into(), equations("input p\noutput q = 0.5*p\n")),
        ("g".into(), equations("input p\noutput q = 0.5*p\n")),
    ];
    let wiring = [("f.q", "g.p"), ("g.q", "f.p")];
    let e = CoupledEquations::build(modules, &connections(&wiring), 0.0, 1.0)
        .err()
        .expect("a loop");
    assert!(matches!(e, ReferenceError::AlgebraicLoop(_)), "{e:?}");
    let message = e.to_string();
    assert!(message.starts_with("algebraic loop through direct feedthrough"));
    assert!(
        message.contains("f.q") && message.contains("g.p"),
        "{message}"
    );
}

#[test]
fn a_module_without_exposed_equations_is_refused_by_name() {
    let modules = alloc::vec![("stair".into(), builtin(STAIR_ID, &SolverSpec::Default))];
    let e = CoupledEquations::build(modules, &[], 0.0, 10.0)
        .err()
        .expect("refused");
    assert_eq!(
        e.to_string(),
        "module `stair` does not expose its equations"
    );
}

#[test]
fn the_reference_only_advances_and_repeats_the_time_reached() {
    let eq = feedthrough_chain();
    let integrator = Box::new(TightDopri45::new(eq.n_states()));
    let mut r = IntegratedReference::new(eq, integrator).expect("reference");
    let y = r.advance_to(0.5).expect("advance").to_vec();
    assert_eq!(r.advance_to(0.5).expect("again"), y.as_slice());
    let e = r.advance_to(0.25).err().expect("backwards");
    assert_eq!(
        e,
        ReferenceError::TimeBackwards {
            t: 0.25,
            reached: 0.5
        }
    );
}
