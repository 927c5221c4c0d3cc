//! The rotational slaves: the Euler slave against hand computation (one step, the midpoint
//! on the same line, derivative samples of the step taken), the exact slave against an
//! independent solution, declared capabilities and defaults, and the coupled pair against
//! the 4-state monolithic model.

use super::*;
use crate::analysis::{LinearBlock, MonolithicReference};
use crate::master::CoupledSystem;
use crate::models::{catalog, instantiate};
use crate::module::{Derivatives, Module, ModuleErrorKind, ValueRef};
use crate::solvers::expm;
use alloc::collections::BTreeMap;
use alloc::string::{String, ToString};
use nalgebra::{DMatrix, DVector};

fn vr(m: &dyn Module, name: &str) -> ValueRef {
    m.description()
        .variable(name)
        .map(|v| v.value_ref)
        .expect("variable exists")
}

/// Sets the module's single input to the polynomial with coefficients `u` (value first).
fn set_input(m: &mut dyn Module, name: &str, u: &[f64]) {
    let v = vr(m, name);
    m.set_float64(&[v], &u[..1]).expect("set");
    if u.len() > 1 {
        let vrs = alloc::vec![v; u.len() - 1];
        let orders: alloc::vec::Vec<u32> = (1..u.len() as u32).collect();
        let d = Derivatives::of_inputs(&vrs, &orders, &u[1..]).expect("derivatives");
        m.input_derivatives()
            .expect("input derivatives")
            .set_input_derivatives(d)
            .expect("set derivatives");
    }
}

/// `[y, y′, y″]` of output `name` at the current point.
fn output_samples(m: &mut dyn Module, name: &str) -> [f64; 3] {
    let v = vr(m, name);
    let mut y = [0.0];
    m.get_float64(&[v], &mut y).expect("get");
    let mut d = [0.0; 2];
    let (vrs, orders) = ([v, v], [1, 2]);
    let outs = Derivatives::of_outputs(&vrs, &orders, &mut d).expect("args");
    m.output_derivatives()
        .expect("output derivatives")
        .get_output_derivatives(outs)
        .expect("derivatives");
    [y[0], d[0], d[1]]
}

fn midpoint(m: &mut dyn Module, name: &str) -> f64 {
    let v = vr(m, name);
    let mut y = [0.0];
    m.midpoint_outputs()
        .expect("midpoint outputs")
        .get_midpoint_outputs(&[v], &mut y)
        .expect("midpoint");
    y[0]
}

/// A slave with defaults, in Step Mode at t = 0.
fn slave(id: &str, method: Method) -> alloc::boxed::Box<dyn Module> {
    let solver = match method {
        Method::Exact => SolverSpec::Exact,
        Method::Euler => SolverSpec::Euler,
    };
    let mut m = instantiate(id, &BTreeMap::new(), &solver).expect("defaults instantiate");
    m.enter_initialization_mode(None, 0.0, None).expect("init");
    m.exit_initialization_mode().expect("exit");
    m
}

fn assert_close(got: f64, want: f64, tol: f64, what: &str) {
    assert!(
        libm::fabs(got - want) <= tol,
        "{what}: got {got:e}, want {want:e} (difference {:e})",
        got - want
    );
}

fn state(m: &mut dyn Module, names: &[&str]) -> alloc::vec::Vec<f64> {
    let vrs: alloc::vec::Vec<ValueRef> = names.iter().map(|n| vr(m, n)).collect();
    let mut x = alloc::vec![0.0; names.len()];
    m.get_float64(&vrs, &mut x).expect("states");
    x
}

#[test]
fn defaults_are_the_experiments_values_not_the_c_defaults() {
    let defaults = |id: &str| -> BTreeMap<String, f64> {
        let info = catalog().into_iter().find(|m| m.id == id).expect("listed");
        info.parameters
            .iter()
            .map(|v| (v.name.clone(), v.start.expect("start")))
            .collect()
    };
    let t2o = defaults(TAU2OMEGA_ID);
    let want = [
        ("J1", 10.0),
        ("c1", 1.0),
        ("d1", 2.0),
        ("phi1", 0.2),
        ("omega1", 0.1),
    ];
    assert_eq!(t2o.len(), want.len());
    for (k, v) in want {
        assert_eq!(t2o[k], v, "tau2omega {k}");
    }
    let o2t = defaults(OMEGA2TAU_ID);
    let want = [
        ("J2", 10.0),
        ("c2", 1.0),
        ("d2", 1.0),
        ("ck", 1.0),
        ("dk", 2.0),
        ("phi2", 0.1),
        ("omega2", 0.1),
        ("phi_o", 0.2),
    ];
    assert_eq!(o2t.len(), want.len());
    for (k, v) in want {
        assert_eq!(o2t[k], v, "omega2tau {k}");
    }
}

#[test]
fn capabilities_feedthrough_and_solvers_are_declared() {
    for method in [Method::Exact, Method::Euler] {
        for id in [TAU2OMEGA_ID, OMEGA2TAU_ID] {
            let mut m = slave(id, method);
            let caps = m.description().capabilities.clone();
            assert!(caps.can_handle_variable_communication_step_size, "{id}");
            assert_eq!(caps.max_output_derivative_order, 2, "{id}");
            assert_eq!(caps.x_max_input_derivative_order, 2, "{id}");
            assert!(caps.x_provides_midpoint_outputs && m.midpoint_outputs().is_some());
            assert!(
                caps.x_linear_time_invariant && caps.x_exposes_states,
                "{id}"
            );
            assert!(caps.can_get_and_set_fmu_state && m.state_snapshot().is_some());
        }
    }
    let o2t = slave(OMEGA2TAU_ID, Method::Euler);
    let (tau, omega_in) = (vr(&*o2t, "tau"), vr(&*o2t, "omega_in"));
    assert!(o2t.description().has_feedthrough(tau, omega_in));
    let t2o = slave(TAU2OMEGA_ID, Method::Euler);
    let (omega, tau_in) = (vr(&*t2o, "omega"), vr(&*t2o, "tau"));
    assert!(!t2o.description().has_feedthrough(omega, tau_in));

    let info = catalog()
        .into_iter()
        .find(|m| m.id == OMEGA2TAU_ID)
        .expect("listed");
    assert_eq!(
        info.solvers,
        [SolverSpec::Default, SolverSpec::Exact, SolverSpec::Euler]
    );
    let rk4 = SolverSpec::Rk4 { step: 1e-3 };
    let e = instantiate(TAU2OMEGA_ID, &BTreeMap::new(), &rk4)
        .err()
        .expect("rk4 refused");
    assert!(e.to_string().contains(TAU2OMEGA_ID), "{e}");
    let e = instantiate(
        "TwoMassOscillator.Mass1",
        &BTreeMap::new(),
        &SolverSpec::Euler,
    )
    .err()
    .expect("euler refused elsewhere");
    assert!(e.to_string().contains("euler"), "{e}");
}

#[test]
fn euler_tau2omega_takes_one_euler_step_with_the_input_value_at_the_start() {
    let mut m = slave(TAU2OMEGA_ID, Method::Euler);
    // The derivatives must not enter the slope: only τ(t_k) = −0.1 does.
    set_input(&mut *m, "tau", &[-0.1, 0.3, -0.4]);
    m.do_step(0.0, 0.5, true).expect("step");
    // By hand: k_f = [ω, (−c φ − d ω + τ)/J] = [0.1, (−0.2 − 0.2 − 0.1)/10] = [0.1, −0.05].
    let x = state(&mut *m, &["phi1", "omega1"]);
    assert_close(x[0], 0.2 + 0.5 * 0.1, 1e-16, "phi1");
    assert_close(x[1], 0.1 + 0.5 * -0.05, 1e-16, "omega1");
    let [y, dy, ddy] = output_samples(&mut *m, "omega");
    assert_close(y, 0.075, 1e-16, "omega");
    assert_close(dy, -0.05, 1e-16, "x′ := k_f (eqn 46)");
    assert_eq!(ddy, 0.0, "x″ := 0 (eqn 46)");
    // The midpoint on the same line: halfway between the step's end points.
    assert_close(midpoint(&mut *m, "omega"), 0.0875, 1e-16, "midpoint");
}

#[test]
fn euler_omega2tau_samples_follow_eqns_46_and_47() {
    let mut m = slave(OMEGA2TAU_ID, Method::Euler);
    let u = [0.1, -0.05, 0.02];
    set_input(&mut *m, "omega_in", &u);
    let h = 0.5;
    m.do_step(0.0, h, true).expect("step");
    // By hand: k_f = [ω₂, (−2 φ₂ − 3 ω₂ + φ_o + 2 ω_in)/10, ω_in] = [0.1, −0.01, 0.1].
    let x = state(&mut *m, &["phi2", "omega2", "phi_o"]);
    for (got, want) in x.iter().zip([0.15, 0.095, 0.25]) {
        assert_close(*got, want, 1e-16, "state");
    }
    // ũ(h) = 0.0775, ũ′(h) = −0.04, ũ″(h) = 0.02 (the input polynomial shifted to t_{k+1}).
    let [tau, dtau, ddtau] = output_samples(&mut *m, "tau");
    assert_close(tau, 0.15 + 0.19 - 0.25 - 2.0 * 0.0775, 1e-15, "tau");
    assert_close(
        dtau,
        0.1 - 0.02 - 0.1 - 2.0 * -0.04,
        1e-15,
        "tau′ = C k_f + D ũ′",
    );
    assert_close(ddtau, -2.0 * 0.02, 1e-16, "tau″ = D ũ″");
    // x_mid = [0.125, 0.0975, 0.225], ũ(h/2) = 0.088125.
    let mid = 0.125 + 2.0 * 0.0975 - 0.225 - 2.0 * 0.088125;
    assert_close(midpoint(&mut *m, "tau"), mid, 1e-15, "midpoint");

    // R2 on one step: the order-2 output polynomial at t_{k+1}, used backwards, is the
    // slave's own output C x̃ + D ũ along the Euler line, so the output defect is zero.
    let k_f = [0.1, -0.01, 0.1];
    let x0 = [0.1, 0.1, 0.2];
    for s in [0.0, 0.1, 0.25, 0.4] {
        let xs: alloc::vec::Vec<f64> = (0..3).map(|i| x0[i] + s * k_f[i]).collect();
        let us = u[0] + u[1] * s + u[2] * s * s / 2.0;
        let own = xs[0] + 2.0 * xs[1] - xs[2] - 2.0 * us;
        let d = s - h;
        let poly = tau + dtau * d + ddtau * d * d / 2.0;
        assert_close(poly, own, 1e-16, "output polynomial on the Euler line");
    }
}

/// The slave's equations with the input chain appended, `z = [x; u; u′; u″]`,
/// `z′ = [[A, B, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1], [0, 0, 0, 0]] z`: one exponential gives
/// the state and the input polynomial at any time, independently of the slave's stepping.
fn augmented(a: &DMatrix<f64>, b: &DMatrix<f64>, x0: &[f64], u: &[f64; 3], s: f64) -> DVector<f64> {
    let n = a.nrows();
    let mut m = DMatrix::zeros(n + 3, n + 3);
    m.view_mut((0, 0), (n, n)).copy_from(a);
    m.view_mut((0, n), (n, 1)).copy_from(b);
    m[(n, n + 1)] = 1.0;
    m[(n + 1, n + 2)] = 1.0;
    let z0 = DVector::from_iterator(n + 3, x0.iter().chain(u.iter()).copied());
    expm(&(m * s)).expect("expm") * z0
}

/// `[y, y′, y″]` from state and input chain `z` at one time.
fn outputs_of(
    mats: &(DMatrix<f64>, DMatrix<f64>, DMatrix<f64>, DMatrix<f64>),
    z: &DVector<f64>,
) -> [f64; 3] {
    let (a, b, c, d) = mats;
    let n = a.nrows();
    let x = z.rows(0, n).into_owned();
    let x1 = a * &x + b * z[n];
    let x2 = a * &x1 + b * z[n + 1];
    let y = |xx: &DVector<f64>, k: usize| (c * xx)[0] + d[(0, 0)] * z[n + k];
    [y(&x, 0), y(&x1, 1), y(&x2, 2)]
}

/// Fourth-order Runge–Kutta for `x′ = A x + B ũ(s)` with `steps` steps: a cross-check that
/// shares nothing with the exponential.
fn rk4(
    a: &DMatrix<f64>,
    b: &DMatrix<f64>,
    x0: &[f64],
    u: &[f64; 3],
    h: f64,
    steps: u32,
) -> DVector<f64> {
    let ut = |s: f64| u[0] + u[1] * s + u[2] * s * s / 2.0;
    let f = |s: f64, x: &DVector<f64>| a * x + b * ut(s);
    let dt = h / f64::from(steps);
    let mut x = DVector::from_row_slice(x0);
    for i in 0..steps {
        let s = f64::from(i) * dt;
        let k1 = f(s, &x);
        let k2 = f(s + dt / 2.0, &(&x + &k1 * (dt / 2.0)));
        let k3 = f(s + dt / 2.0, &(&x + &k2 * (dt / 2.0)));
        let k4 = f(s + dt, &(&x + &k3 * dt));
        x += (k1 + k2 * 2.0 + k3 * 2.0 + k4) * (dt / 6.0);
    }
    x
}

#[test]
fn exact_slaves_match_an_independent_solution_for_polynomial_inputs() {
    let cases = [
        (TAU2OMEGA_ID, "tau", "omega", &["phi1", "omega1"][..]),
        (
            OMEGA2TAU_ID,
            "omega_in",
            "tau",
            &["phi2", "omega2", "phi_o"][..],
        ),
    ];
    let inputs = [[-0.1, 0.0, 0.0], [-0.1, 0.3, 0.0], [0.1, -0.05, 0.4]];
    for (id, input, output, states) in cases {
        let mats = match id {
            TAU2OMEGA_ID => tau2omega_matrices(&Tau2OmegaParams::default()),
            _ => omega2tau_matrices(&Omega2TauParams::default()),
        };
        for u in &inputs {
            let h = 0.7;
            let mut m = slave(id, Method::Exact);
            let x0 = state(&mut *m, states);
            set_input(&mut *m, input, u);
            m.do_step(0.0, h, true).expect("step");
            let ctx = alloc::format!("{id}, input {u:?}");
            let z_end = augmented(&mats.0, &mats.1, &x0, u, h);
            let x = state(&mut *m, states);
            for (i, xi) in x.iter().enumerate() {
                assert_close(*xi, z_end[i], 1e-12, &alloc::format!("{ctx}: state {i}"));
            }
            let by_rk4 = rk4(&mats.0, &mats.1, &x0, u, h, 200);
            for (i, xi) in x.iter().enumerate() {
                assert_close(
                    *xi,
                    by_rk4[i],
                    1e-11,
                    &alloc::format!("{ctx}: state {i} (RK4)"),
                );
            }
            let want = outputs_of(&mats, &z_end);
            let got = output_samples(&mut *m, output);
            for k in 0..3 {
                assert_close(got[k], want[k], 1e-12, &alloc::format!("{ctx}: y^({k})"));
            }
            let z_mid = augmented(&mats.0, &mats.1, &x0, u, h / 2.0);
            let want_mid = outputs_of(&mats, &z_mid)[0];
            assert_close(
                midpoint(&mut *m, output),
                want_mid,
                1e-12,
                &alloc::format!("{ctx}: midpoint"),
            );
        }
    }
}

#[test]
fn an_input_set_after_the_step_replaces_the_shifted_polynomial_in_the_outputs() {
    let mut m = slave(OMEGA2TAU_ID, Method::Exact);
    set_input(&mut *m, "omega_in", &[0.1, -0.05, 0.02]);
    m.do_step(0.0, 0.5, true).expect("step");
    let before = output_samples(&mut *m, "tau");
    // The master sets the next step's input: only the D terms change (D = −d_k = −2).
    set_input(&mut *m, "omega_in", &[0.08, 0.01]);
    let after = output_samples(&mut *m, "tau");
    let shifted = [0.0775, -0.04, 0.02];
    let set = [0.08, 0.01, 0.0];
    for k in 0..3 {
        assert_close(
            after[k] - before[k],
            -2.0 * (set[k] - shifted[k]),
            1e-15,
            "D term",
        );
    }
}

#[test]
fn midpoint_needs_a_step_and_state_restore_repeats_the_step() {
    let mut m = slave(TAU2OMEGA_ID, Method::Euler);
    let v = vr(&*m, "omega");
    let mut y = [0.0];
    let mp = m
        .midpoint_outputs()
        .expect("midpoint")
        .get_midpoint_outputs(&[v], &mut y);
    assert!(matches!(
        mp.map_err(|e| e.kind),
        Err(ModuleErrorKind::InvalidArgument(_))
    ));
    let saved = m
        .state_snapshot()
        .expect("snapshot")
        .get_state()
        .expect("save");
    set_input(&mut *m, "tau", &[-0.1]);
    m.do_step(0.0, 0.5, true).expect("step");
    let first = output_samples(&mut *m, "omega");
    m.state_snapshot()
        .expect("snapshot")
        .set_state(&saved)
        .expect("restore");
    set_input(&mut *m, "tau", &[-0.1]);
    m.do_step(0.0, 0.5, true).expect("step again");
    assert_eq!(output_samples(&mut *m, "omega"), first);
}

#[test]
fn coupled_slaves_give_the_four_state_monolithic_reference() {
    for method in [Method::Exact, Method::Euler] {
        let modules: alloc::vec::Vec<(String, alloc::boxed::Box<dyn Module>)> =
            [("t2o", TAU2OMEGA_ID), ("o2t", OMEGA2TAU_ID)]
                .iter()
                .map(|(n, id)| {
                    let solver = if method == Method::Exact {
                        SolverSpec::Exact
                    } else {
                        SolverSpec::Euler
                    };
                    (
                        n.to_string(),
                        instantiate(id, &BTreeMap::new(), &solver).expect("model"),
                    )
                })
                .collect();
        let connections = [
            ("o2t.tau".to_string(), "t2o.tau".to_string()),
            ("t2o.omega".to_string(), "o2t.omega_in".to_string()),
        ];
        let mut sys = CoupledSystem::new(modules, &connections).expect("system");
        sys.initialize(0.0, 1.0).expect("initialize");
        let blocks: alloc::vec::Vec<LinearBlock> = sys
            .modules_mut()
            .map(|(_, s)| LinearBlock::from_subsystem(s).expect("block"))
            .collect();
        let reference =
            MonolithicReference::new(&blocks, &sys.graph().coupling_matrix()).expect("reference");
        let (p1, p2) = (Tau2OmegaParams::default(), Omega2TauParams::default());
        let h = 0.25;
        let rows = reference.outputs_at_offsets(h, 40).expect("outputs");
        for (k, row) in rows.iter().enumerate() {
            let want = monolithic_outputs(&p1, &p2, k as f64 * h).expect("monolithic");
            // Stacked outputs in module order: [t2o.omega, o2t.tau].
            assert_close(
                row[0],
                want[0],
                1e-13,
                &alloc::format!("omega1 at step {k}"),
            );
            assert_close(row[1], want[1], 1e-13, &alloc::format!("tau at step {k}"));
        }
        // The consistent values at t = 0 (digest §3.4): τ(0) = −0.1, ω₁(0) = 0.1.
        assert_close(rows[0][1], -0.1, 1e-16, "tau(0)");
        assert_close(rows[0][0], 0.1, 1e-16, "omega1(0)");
    }
}
