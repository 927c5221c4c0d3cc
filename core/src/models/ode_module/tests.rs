//! Tests of [`OdeModule`]: polynomial inputs, rollback, finite-difference derivatives.

use super::*;
use crate::models::parameters::{Range, Slot};
use crate::module::{
    Derivatives, InputDerivatives, JacobianProduct, Module, StateSnapshot, ValueRef,
};
use crate::solvers::{Dopri45, Rk4};

/// `x' = u + a·x²`, `y = x + 2u`, `x(0) = x0`, no parameters.
#[derive(Clone, Debug, Default)]
struct Quadratic {
    a: f64,
    x0: f64,
}

/// `a = 0`: exact integrals of polynomial inputs.
const INTEGRATOR: Quadratic = Quadratic { a: 0.0, x0: 0.0 };
/// `a = 1`, `x0 = 1`: with `u = 0`, blows up at t = 1.
const BLOWUP: Quadratic = Quadratic { a: 1.0, x0: 1.0 };

impl ParameterSet for Quadratic {
    const MODEL_ID: &'static str = "Quadratic";
    const PARAMETERS: usize = 0;

    fn with_slots<R>(&mut self, f: impl FnOnce(&mut [Slot<'_>]) -> R) -> R {
        f(&mut [("x", Range::Finite, "", "", &mut self.x0)])
    }
}

impl OdeModel for Quadratic {
    fn inputs(&self) -> Vec<PortSpec> {
        vec![PortSpec::new("u", "", 0.0, "")]
    }
    fn outputs(&self) -> Vec<PortSpec> {
        vec![PortSpec::new("y", "", 0.0, "")]
    }
    fn feedthrough(&self) -> Vec<(usize, usize, DependencyKind)> {
        vec![(0, 0, DependencyKind::Constant)]
    }
    fn rhs(&self, _t: f64, x: &[f64], u: &[f64], dx: &mut [f64]) {
        dx[0] = u[0] + self.a * x[0] * x[0];
    }
    fn output(&self, _t: f64, x: &[f64], u: &[f64], y: &mut [f64]) {
        y[0] = x[0] + 2.0 * u[0];
    }
}

fn vr<M: OdeModel>(m: &OdeModule<M>, name: &str) -> ValueRef {
    m.description()
        .variable(name)
        .map(|v| v.value_ref)
        .expect("variable exists")
}

fn started<M: OdeModel>(model: M, integrator: Integrator) -> OdeModule<M> {
    let mut m = OdeModule::new(model, integrator).expect("valid model");
    m.enter_initialization_mode(None, 0.0, None).expect("init");
    m.exit_initialization_mode().expect("exit");
    m
}

#[test]
fn rk4_integrates_cubic_polynomial_input_exactly() {
    // One RK4 step is Simpson's rule for x' = u(t): exact for cubic u.
    let h = 0.4;
    let mut m = started(INTEGRATOR, Integrator::Rk4(Rk4 { max_step: h }));
    let u = vr(&m, "u");
    let c = [0.5, -1.0, 3.0, 2.0];
    m.set_float64(&[u], &[c[0]]).expect("value");
    m.set_input_derivatives(
        Derivatives::of_inputs(&[u, u, u], &[1, 2, 3], &c[1..]).expect("lengths"),
    )
    .expect("derivatives");
    m.do_step(0.0, h, true).expect("step");
    let want = c[0] * h + c[1] * h * h / 2.0 + c[2] * h * h * h / 6.0 + c[3] * h * h * h * h / 24.0;
    assert!(
        libm::fabs(m.state()[0] - want) < 1e-15,
        "{} vs {want}",
        m.state()[0]
    );
    // Output uses ũ(t + h) and the derivatives are reset.
    let u_end = c[0] + c[1] * h + c[2] * h * h / 2.0 + c[3] * h * h * h / 6.0;
    let mut y = [0.0];
    m.get_float64(&[vr(&m, "y")], &mut y).expect("get");
    assert!(libm::fabs(y[0] - (want + 2.0 * u_end)) < 1e-14);
    m.do_step(h, h, true).expect("second step");
    assert!(libm::fabs(m.state()[0] - (want + u_end * h)) < 1e-14);
}

#[test]
fn dopri_module_state_round_trip_reproduces_a_step_bit_for_bit() {
    let mut m = started(
        INTEGRATOR,
        Integrator::Dopri45(Dopri45 {
            rtol: 1e-9,
            atol: 1e-12,
        }),
    );
    let u = vr(&m, "u");
    let y = vr(&m, "y");
    m.set_float64(&[u], &[1.0]).expect("value");
    m.set_input_derivatives(Derivatives::of_inputs(&[u], &[4], &[50.0]).expect("lengths"))
        .expect("derivative");
    m.do_step(0.0, 0.3, true).expect("step");
    m.set_input_derivatives(Derivatives::of_inputs(&[u], &[2], &[-7.0]).expect("lengths"))
        .expect("derivative");
    let saved = m.get_state().expect("save");
    let bytes = m.serialize_state(&saved).expect("serialize");
    m.do_step(0.3, 0.3, true).expect("step");
    let mut first = [0.0];
    m.get_float64(&[y], &mut first).expect("get");
    m.do_step(0.6, 0.3, true).expect("another");
    m.set_state(&saved).expect("restore");
    m.do_step(0.3, 0.3, true).expect("repeat");
    let mut again = [0.0];
    m.get_float64(&[y], &mut again).expect("get");
    assert_eq!(first[0].to_bits(), again[0].to_bits());
    let from_bytes = m.deserialize_state(&bytes).expect("deserialize");
    m.set_state(&from_bytes).expect("restore bytes");
    m.do_step(0.3, 0.3, true).expect("repeat from bytes");
    m.get_float64(&[y], &mut again).expect("get");
    assert_eq!(first[0].to_bits(), again[0].to_bits());
}

#[test]
fn reset_restores_start_parameters_states_and_inputs() {
    use crate::models::two_mass_oscillator::{mass2_ode, Mass2Params};
    let mut m = mass2_ode(
        &Mass2Params::default(),
        Integrator::Rk4(Rk4 { max_step: 1e-5 }),
    )
    .expect("model");
    let (ck, x1, s1) = (vr(&m, "ck"), vr(&m, "x1"), vr(&m, "s1"));
    m.set_float64(&[ck, x1], &[1.0, 0.5])
        .expect("set before init");
    assert!(
        m.set_float64(&[ck], &[-1.0]).is_err(),
        "negative ck refused"
    );
    m.enter_initialization_mode(None, 0.0, None).expect("init");
    m.exit_initialization_mode().expect("exit");
    m.set_float64(&[s1], &[0.1]).expect("input");
    m.do_step(0.0, 1e-4, true).expect("step");
    m.reset().expect("reset");
    let mut v = [0.0; 3];
    m.get_float64(&[ck, x1, s1], &mut v).expect("get");
    assert_eq!(v, [2e5, 0.0, 0.0]);
}

#[test]
fn failed_step_is_an_error_and_leaves_the_state_unchanged() {
    for integrator in [
        Integrator::Rk4(Rk4 { max_step: 0.5 }),
        Integrator::Dopri45(Dopri45 {
            rtol: 1e-6,
            atol: 1e-6,
        }),
    ] {
        let mut m = started(BLOWUP, integrator.clone());
        let r = m.do_step(0.0, 3.0, true);
        assert!(r.is_err(), "{integrator:?}");
        assert_eq!(m.state(), &[1.0]);
    }
}

#[test]
fn finite_difference_jacobian_of_a_linear_model_is_exact_to_rounding() {
    let mut m = started(INTEGRATOR, Integrator::Rk4(Rk4 { max_step: 0.1 }));
    let (x, u, y, dx) = (vr(&m, "x"), vr(&m, "u"), vr(&m, "y"), vr(&m, "der(x)"));
    m.set_float64(&[u, x], &[3.0, -2.0]).expect("set");
    let mut s = [0.0; 2];
    m.directional_derivative(
        JacobianProduct::new(&[dx, y], &[x, u], &[1.0, 0.0], &mut s).expect("lengths"),
    )
    .expect("d/dx");
    assert!(
        libm::fabs(s[0]) < 1e-9 && libm::fabs(s[1] - 1.0) < 1e-9,
        "{s:?}"
    );
    m.directional_derivative(
        JacobianProduct::new(&[dx, y], &[x, u], &[0.0, 1.0], &mut s).expect("lengths"),
    )
    .expect("d/du");
    assert!(
        libm::fabs(s[0] - 1.0) < 1e-9 && libm::fabs(s[1] - 2.0) < 1e-9,
        "{s:?}"
    );
    m.directional_derivative(
        JacobianProduct::new(&[dx, y], &[x, u], &[0.0, 0.0], &mut s).expect("lengths"),
    )
    .expect("zero seed");
    assert_eq!(s, [0.0, 0.0]);
    assert!(m
        .directional_derivative(
            JacobianProduct::new(&[x], &[u], &[1.0], &mut s[..1]).expect("lengths")
        )
        .is_err());
    // y' = x' + 2 u' = u + 2 u'.
    m.set_input_derivatives(Derivatives::of_inputs(&[u], &[1], &[0.5]).expect("lengths"))
        .expect("slope");
    let mut yd = [0.0];
    m.get_output_derivatives(Derivatives::of_outputs(&[y], &[1], &mut yd).expect("lengths"))
        .expect("output derivative");
    assert!(libm::fabs(yd[0] - 4.0) < 1e-8, "{yd:?}");
}
