//! Jacobians by forward-mode AD: exactly the analytic `A, B, C, D` of the linear
//! two-mass oscillator, and equal to central differences for a nonlinear module; exact
//! first output derivatives; feedthrough and linearity read from the expressions.

use super::super::{EquationModule, EXAMPLE_SOURCE};
use super::{module, vr, MASS2_SOURCE, VAN_DER_POL};
use crate::analysis::LinearBlock;
use crate::models::tests::jacobian_value_refs;
use crate::models::two_mass_oscillator::{
    mass1_matrices, mass1_ode, mass2_matrices, Mass1Params, Mass2Params,
};
use crate::module::{
    DependencyKind, Derivatives, InstantiateOptions, Module, OutputDerivatives, Subsystem,
};
use crate::solvers::{Integrator, Rk4};
use alloc::boxed::Box;
use alloc::vec;
use nalgebra::DMatrix;

fn block(m: Box<dyn Module>) -> LinearBlock {
    let mut sub = Subsystem::instantiate(m, InstantiateOptions::default()).expect("instantiates");
    sub.enter_initialization_mode(None, 0.0, None)
        .expect("init");
    sub.exit_initialization_mode().expect("exit init");
    LinearBlock::from_subsystem(&mut sub).expect("Jacobians")
}

/// Largest `|a − b| / max(1, |b|)`.
fn rel_diff(a: &DMatrix<f64>, b: &DMatrix<f64>) -> f64 {
    assert_eq!(a.shape(), b.shape());
    a.iter()
        .zip(b.iter())
        .map(|(x, y)| libm::fabs(x - y) / libm::fabs(*y).max(1.0))
        .fold(0.0, f64::max)
}

#[test]
fn linear_two_mass_jacobians_equal_the_analytic_matrices() {
    let b1 = block(Box::new(module(EXAMPLE_SOURCE)));
    let (a, b, c, d) = mass1_matrices(&Mass1Params::default());
    for (got, want) in [(&b1.a, &a), (&b1.b, &b), (&b1.c, &c), (&b1.d, &d)] {
        assert!(rel_diff(got, want) <= 1e-12, "mass 1: {got} vs {want}");
    }
    let b2 = block(Box::new(module(MASS2_SOURCE)));
    let (a, b, c, d) = mass2_matrices(&Mass2Params::default());
    for (got, want) in [(&b2.a, &a), (&b2.b, &b), (&b2.c, &c), (&b2.d, &d)] {
        assert!(rel_diff(got, want) <= 1e-12, "mass 2: {got} vs {want}");
    }
    // The built-in ODE module differentiates numerically; AD agrees to 1e-6.
    let fd = block(Box::new(
        mass1_ode(
            &Mass1Params::default(),
            Integrator::Rk4(Rk4 { max_step: 1e-5 }),
        )
        .expect("ode"),
    ));
    for (got, want) in [
        (&b1.a, &fd.a),
        (&b1.b, &fd.b),
        (&b1.c, &fd.c),
        (&b1.d, &fd.d),
    ] {
        assert!(
            rel_diff(got, want) <= 1e-6,
            "AD {got} vs finite differences {want}"
        );
    }
}

/// Central-difference Jacobian `[∂(der, y)/∂(x, u)]` at the module's current point,
/// perturbing states and inputs through `set_float64` (Initialization Mode semantics).
fn finite_difference_jacobian(m: &mut EquationModule) -> DMatrix<f64> {
    let (knowns, unknowns) = jacobian_value_refs(m.description());
    let mut base = vec![0.0; knowns.len()];
    m.get_float64(&knowns, &mut base).expect("get");
    let mut jac = DMatrix::zeros(unknowns.len(), knowns.len());
    let (mut plus, mut minus) = (vec![0.0; unknowns.len()], vec![0.0; unknowns.len()]);
    for j in 0..knowns.len() {
        let e = 1e-6 * libm::fabs(base[j]).max(1.0);
        m.set_float64(&[knowns[j]], &[base[j] + e]).expect("set");
        m.get_float64(&unknowns, &mut plus).expect("get");
        m.set_float64(&[knowns[j]], &[base[j] - e]).expect("set");
        m.get_float64(&unknowns, &mut minus).expect("get");
        m.set_float64(&[knowns[j]], &[base[j]]).expect("set");
        for i in 0..unknowns.len() {
            jac[(i, j)] = (plus[i] - minus[i]) / (2.0 * e);
        }
    }
    jac
}

#[test]
fn nonlinear_jacobians_match_central_differences() {
    let mut m = module(VAN_DER_POL);
    m.enter_initialization_mode(None, 0.25, None).expect("init");
    let fd = finite_difference_jacobian(&mut m);
    let b = block(Box::new(m.clone()));
    let mut ad = DMatrix::zeros(fd.nrows(), fd.ncols());
    ad.view_mut((0, 0), (2, 2)).copy_from(&b.a);
    ad.view_mut((0, 2), (2, 1)).copy_from(&b.b);
    ad.view_mut((2, 0), (2, 2)).copy_from(&b.c);
    ad.view_mut((2, 2), (2, 1)).copy_from(&b.d);
    assert!(rel_diff(&ad, &fd) <= 1e-6, "AD {ad} vs FD {fd}");
    // Spot check against the hand-derived Van der Pol row: ∂der(y)/∂x = −2μxy − 1.
    let (mu, x, y) = (1.5, 2.0, -0.5);
    assert!(libm::fabs(ad[(1, 0)] - (-2.0 * mu * x * y - 1.0)) < 1e-14);
    assert!(libm::fabs(ad[(1, 1)] - mu * (1.0 - x * x)) < 1e-14);
}

#[test]
fn first_output_derivative_is_exact() {
    let mut m = module(VAN_DER_POL);
    // e = (x² + y²)/2, so de/dt = x·y + y·(μ(1 − x²)y − x + F) along the trajectory.
    let (mu, x, y, f) = (1.5, 2.0, -0.5, 0.3);
    let mut de = [0.0];
    let e = vr(&m, "e");
    m.get_output_derivatives(Derivatives::of_outputs(&[e], &[1], &mut de).expect("lengths"))
        .expect("order 1");
    let exact = x * y + y * (mu * (1.0 - x * x) * y - x + f);
    assert!(libm::fabs(de[0] - exact) < 1e-14, "{} vs {exact}", de[0]);
    assert!(m
        .get_output_derivatives(Derivatives::of_outputs(&[e], &[2], &mut de).expect("lengths"))
        .is_err());
    // Mass 2: dFk/dt = ck (v − v1') ... with v1' set as an input derivative.
    let mut m2 = module(MASS2_SOURCE);
    let v1 = vr(&m2, "v1");
    let s1 = vr(&m2, "s1");
    m2.set_float64(&[v1], &[0.5]).expect("set");
    crate::module::InputDerivatives::set_input_derivatives(
        &mut m2,
        Derivatives::of_inputs(&[s1, v1], &[1, 1], &[0.5, 3.0]).expect("lengths"),
    )
    .expect("u'");
    let mut dfk = [0.0];
    m2.get_output_derivatives(
        Derivatives::of_outputs(&[vr(&m2, "Fk")], &[1], &mut dfk).expect("lengths"),
    )
    .expect("order 1");
    // x = v = 0: dFk/dt = ck (0 − s1') + dk (der(v) − v1'), der(v) = −Fk/m2, Fk = −dk·v1.
    let fk = -5e2 * 0.5;
    let exact = 2e5 * (0.0 - 0.5) + 5e2 * (-fk / 10.0 - 3.0);
    assert!(
        libm::fabs(dfk[0] - exact) <= 1e-12 * libm::fabs(exact),
        "{} vs {exact}",
        dfk[0]
    );
}

#[test]
fn feedthrough_and_linearity_come_from_the_expressions() {
    let m1 = module(EXAMPLE_SOURCE);
    let d = m1.description();
    assert!(d.capabilities.x_linear_time_invariant);
    assert!(d.output_dependencies.iter().all(|o| o.inputs.is_empty()));
    let m2 = module(MASS2_SOURCE);
    let d = m2.description();
    assert!(d.capabilities.x_linear_time_invariant);
    let fk = vr(&m2, "Fk");
    assert!(d.has_feedthrough(fk, vr(&m2, "s1")) && d.has_feedthrough(fk, vr(&m2, "v1")));
    let dep = d
        .output_dependencies
        .iter()
        .find(|o| o.output == fk)
        .expect("Fk");
    assert!(dep
        .inputs
        .iter()
        .all(|(_, k)| *k == DependencyKind::Constant));
    let v = module(VAN_DER_POL);
    let d = v.description();
    assert!(!d.capabilities.x_linear_time_invariant);
    assert!(!d.has_feedthrough(vr(&v, "e"), vr(&v, "F")));
    let dep = d
        .output_dependencies
        .iter()
        .find(|o| o.output == vr(&v, "p"))
        .expect("p");
    assert_eq!(dep.inputs, vec![(vr(&v, "F"), DependencyKind::Dependent)]);
    // An offset or a product of states is not LTI; a zero offset and scaling are.
    let lti = |src: &str| {
        module(src)
            .description()
            .capabilities
            .x_linear_time_invariant
    };
    assert!(!lti("input u\nstate x\nder(x) = -x + 1\noutput y = x\n"));
    assert!(!lti("input u\nstate x\nder(x) = -x*x\noutput y = x\n"));
    assert!(!lti("state x\nder(x) = -x\noutput y = x*time\n"));
    assert!(lti(
        "parameter k = 3\ninput u\nstate x\nder(x) = -k*x/2 + 0 + u\noutput y = (x - u)*k\n"
    ));
    assert!(lti("state x\nder(x) = 0\noutput y = x\n"));
}
