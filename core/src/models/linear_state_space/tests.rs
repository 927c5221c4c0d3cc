//! Tests of [`LinearStateSpace`] against closed-form solutions.

use super::*;
use crate::module::{
    Derivatives, InputDerivatives, JacobianProduct, Module, StateSnapshot, ValueRef,
};
use crate::solvers::scalar_gamma;
use alloc::vec;

fn names(prefix: &str, n: usize) -> Vec<String> {
    (1..=n).map(|i| format!("{prefix}{i}")).collect()
}

pub(crate) fn spec(
    a: DMatrix<f64>,
    b: DMatrix<f64>,
    c: DMatrix<f64>,
    d: DMatrix<f64>,
    x0: DVector<f64>,
) -> LinearSpec {
    let (n, m, q) = (a.nrows(), b.ncols(), c.nrows());
    LinearSpec {
        model_name: "Test".into(),
        a,
        b,
        c,
        d,
        x0,
        state_names: names("x", n),
        state_units: vec![String::new(); n],
        input_names: names("u", m),
        input_units: vec![String::new(); m],
        output_names: names("y", q),
        output_units: vec![String::new(); q],
        parameters: Vec::new(),
        matrices_of: None,
    }
}

fn vr(m: &LinearStateSpace, name: &str) -> ValueRef {
    m.description()
        .variable(name)
        .map(|v| v.value_ref)
        .expect("variable exists")
}

/// Sets input value and derivatives `coeffs[i][k]` (k = 0..) on a module.
fn set_poly(m: &mut LinearStateSpace, coeffs: &[Vec<f64>]) {
    for (i, c) in coeffs.iter().enumerate() {
        let r = vr(m, &format!("u{}", i + 1));
        m.set_float64(&[r], &[c[0]]).expect("set input");
        for (k, v) in c.iter().enumerate().skip(1) {
            m.set_input_derivatives(
                Derivatives::of_inputs(&[r], &[k as u32], &[*v]).expect("lengths"),
            )
            .expect("set derivative");
        }
    }
}

fn started(s: LinearSpec) -> LinearStateSpace {
    let mut m = LinearStateSpace::new(s).expect("valid spec");
    m.enter_initialization_mode(None, 0.0, None).expect("init");
    m.exit_initialization_mode().expect("exit init");
    m
}

#[test]
fn scalar_step_matches_closed_form_for_input_orders_0_to_4() {
    let (a, b, c, d, h) = (-1.4, 1.3, 0.9, 0.4, 0.5); // a·h = −0.7
    let x0 = 0.3;
    for p in 0..=4 {
        // Full polynomial of order p, and the top coefficient alone with x0 = 0.
        let full: Vec<f64> = (0..=p).map(|k| 0.5 * (k + 1) as f64).collect();
        let mut top = vec![0.0; p + 1];
        top[p] = 0.8;
        for (coeffs, x_start) in [(full, x0), (top, 0.0)] {
            let m1 = |v: f64| DMatrix::from_element(1, 1, v);
            let mut m = started(spec(
                m1(a),
                m1(b),
                m1(c),
                m1(d),
                DVector::from_element(1, x_start),
            ));
            set_poly(&mut m, core::slice::from_ref(&coeffs));
            m.do_step(0.0, h, true).expect("step");
            let mut want = libm::exp(a * h) * x_start;
            let mut u_end = 0.0;
            let mut hk = 1.0;
            for (k, ck) in coeffs.iter().enumerate() {
                want += b * ck * scalar_gamma(a, h, k);
                u_end += ck * hk;
                hk *= h / (k + 1) as f64;
            }
            let got = m.state()[0];
            assert!(
                libm::fabs(got - want) <= 1e-12 * libm::fabs(want),
                "p = {p}: {got} vs {want}"
            );
            let mut y = [0.0];
            m.get_float64(&[vr(&m, "y1")], &mut y).expect("get");
            let y_want = c * want + d * u_end;
            assert!(
                libm::fabs(y[0] - y_want) <= 1e-12 * libm::fabs(y_want),
                "p = {p}: output"
            );
        }
    }
}

#[test]
fn four_state_modal_step_matches_closed_form_for_input_orders_0_to_4() {
    let lambda = [-1.0, -2.0, -3.0, -5.0];
    let h = 0.7;
    let v = DMatrix::from_row_slice(
        4,
        4,
        &[
            1.0, 0.5, 0.0, 0.2, //
            0.0, 1.0, 0.3, 0.0, //
            0.4, 0.0, 1.0, 0.1, //
            0.0, 0.2, 0.0, 1.0,
        ],
    );
    let v_inv = v.clone().try_inverse().expect("invertible");
    let a = &v * DMatrix::from_diagonal(&DVector::from_row_slice(&lambda)) * &v_inv;
    let b = DMatrix::from_row_slice(4, 2, &[1.0, 0.0, 0.5, -1.0, 0.0, 2.0, -0.3, 0.7]);
    let c = DMatrix::from_row_slice(1, 4, &[1.0, -1.0, 0.5, 2.0]);
    let d = DMatrix::from_row_slice(1, 2, &[0.0, 0.3]);
    let x0 = DVector::from_row_slice(&[0.2, -0.1, 0.4, 0.3]);
    for p in 0..=4 {
        let coeffs: Vec<Vec<f64>> = (0..2)
            .map(|i| {
                (0..=p)
                    .map(|k| (1.0 + k as f64) * (1.0 - 2.0 * i as f64))
                    .collect()
            })
            .collect();
        let mut m = started(spec(a.clone(), b.clone(), c.clone(), d.clone(), x0.clone()));
        set_poly(&mut m, &coeffs);
        m.do_step(0.0, h, true).expect("step");
        // Modal closed form: z = V⁻¹ x, z_i(h) = e^{λ_i h} z_i + Σ_k (V⁻¹ B u^(k))_i γ_k(λ_i).
        let z0 = &v_inv * &x0;
        let vb = &v_inv * &b;
        let mut z = DVector::zeros(4);
        for i in 0..4 {
            z[i] = libm::exp(lambda[i] * h) * z0[i];
            for (k, (c0, c1)) in coeffs[0].iter().zip(&coeffs[1]).enumerate() {
                let uk = DVector::from_row_slice(&[*c0, *c1]);
                z[i] += (vb.row(i) * uk)[0] * scalar_gamma(lambda[i], h, k);
            }
        }
        let want = &v * z;
        let err = (m.state() - &want).norm() / want.norm();
        assert!(err <= 1e-12, "p = {p}: relative error {err}");
    }
}

#[test]
fn input_derivatives_hold_for_one_step_then_reset() {
    let m1 = |v: f64| DMatrix::from_element(1, 1, v);
    let mut m = started(spec(
        m1(0.0),
        m1(1.0),
        m1(1.0),
        m1(1.0),
        DVector::from_element(1, 0.0),
    ));
    set_poly(&mut m, &[vec![1.0, 2.0]]);
    m.do_step(0.0, 0.5, true).expect("step");
    // x = ∫_0^0.5 (1 + 2s) ds = 0.75; stored input = ũ(0.5) = 2.
    assert!(libm::fabs(m.state()[0] - 0.75) < 1e-15);
    let mut u = [0.0];
    m.get_float64(&[vr(&m, "u1")], &mut u).expect("get");
    assert_eq!(u[0], 2.0);
    m.do_step(0.5, 0.5, true).expect("step");
    assert!(
        libm::fabs(m.state()[0] - 1.75) < 1e-15,
        "constant input after reset of derivatives"
    );
}

fn oscillator() -> LinearStateSpace {
    let a = DMatrix::from_row_slice(2, 2, &[0.0, 1.0, -4.0, -0.1]);
    let b = DMatrix::from_row_slice(2, 1, &[0.0, 1.0]);
    let c = DMatrix::from_row_slice(2, 2, &[1.0, 0.0, 2.0, 3.0]);
    let d = DMatrix::from_row_slice(2, 1, &[0.0, 0.5]);
    started(spec(a, b, c, d, DVector::from_row_slice(&[1.0, 0.0])))
}

#[test]
fn state_round_trip_reproduces_a_step_bit_for_bit() {
    let mut m = oscillator();
    let y = [vr(&m, "y1"), vr(&m, "y2")];
    set_poly(&mut m, &[vec![0.3, -1.0, 2.0]]);
    m.do_step(0.0, 0.1, true).expect("step");
    set_poly(&mut m, &[vec![0.7, 0.5]]);
    let saved = m.get_state().expect("save");
    let bytes = m.serialize_state(&saved).expect("serialize");
    m.do_step(0.1, 0.1, true).expect("step");
    let mut first = [0.0; 2];
    m.get_float64(&y, &mut first).expect("get");
    m.do_step(0.2, 0.1, true).expect("step further");
    m.set_state(&saved).expect("restore");
    m.do_step(0.1, 0.1, true).expect("step again");
    let mut again = [0.0; 2];
    m.get_float64(&y, &mut again).expect("get");
    assert_eq!(first.map(f64::to_bits), again.map(f64::to_bits));
    let restored = m.deserialize_state(&bytes).expect("deserialize");
    m.set_state(&restored).expect("restore from bytes");
    m.do_step(0.1, 0.1, true).expect("step from bytes");
    m.get_float64(&y, &mut again).expect("get");
    assert_eq!(first.map(f64::to_bits), again.map(f64::to_bits));
    assert!(m.deserialize_state(&bytes[1..]).is_err());
}

#[test]
fn directional_derivatives_equal_a_b_c_d() {
    let mut m = oscillator();
    let (a, b, c, d) = {
        let (a, b, c, d) = m.matrices();
        (a.clone(), b.clone(), c.clone(), d.clone())
    };
    let unknowns = [
        vr(&m, "der(x1)"),
        vr(&m, "der(x2)"),
        vr(&m, "y1"),
        vr(&m, "y2"),
    ];
    let knowns = [vr(&m, "x1"), vr(&m, "x2"), vr(&m, "u1")];
    let mut full = DMatrix::zeros(2, 3);
    full.view_mut((0, 0), (2, 2)).copy_from(&a);
    full.view_mut((0, 2), (2, 1)).copy_from(&b);
    let mut lower = DMatrix::zeros(2, 3);
    lower.view_mut((0, 0), (2, 2)).copy_from(&c);
    lower.view_mut((0, 2), (2, 1)).copy_from(&d);
    for j in 0..3 {
        let mut seed = [0.0; 3];
        seed[j] = 1.0;
        let mut sens = [0.0; 4];
        m.directional_derivative(
            JacobianProduct::new(&unknowns, &knowns, &seed, &mut sens).expect("lengths"),
        )
        .expect("derivative");
        assert_eq!(&sens[..2], &[full[(0, j)], full[(1, j)]]);
        assert_eq!(&sens[2..], &[lower[(0, j)], lower[(1, j)]]);
    }
    let mut s = [0.0];
    assert!(m
        .directional_derivative(
            JacobianProduct::new(&[vr(&m, "u1")], &knowns[..1], &[1.0], &mut s).expect("lengths")
        )
        .is_err());
}

#[test]
fn first_output_derivative_is_c_times_state_derivative_plus_d_times_input_slope() {
    let mut m = oscillator();
    set_poly(&mut m, &[vec![0.4, 1.5]]);
    let mut got = [0.0; 2];
    let y = [vr(&m, "y1"), vr(&m, "y2")];
    m.get_output_derivatives(Derivatives::of_outputs(&y, &[1, 1], &mut got).expect("lengths"))
        .expect("derivatives");
    // x = (1, 0): x' = (0, −4 + 0.4); y' = C x' + D u' = (0, 3·(−3.6)) + (0, 0.5·1.5).
    assert!(libm::fabs(got[0] - 0.0) < 1e-15);
    assert!(libm::fabs(got[1] - (3.0 * -3.6 + 0.75)) < 1e-14);
    assert!(m
        .get_output_derivatives(
            Derivatives::of_outputs(&y[..1], &[0], &mut got[..1]).expect("lengths")
        )
        .is_err());
}

#[test]
fn bad_specs_and_settings_are_errors() {
    let m1 = |v: f64| DMatrix::from_element(1, 1, v);
    let bad = spec(
        m1(1.0),
        DMatrix::zeros(2, 1),
        m1(1.0),
        m1(0.0),
        DVector::zeros(1),
    );
    assert!(LinearStateSpace::new(bad).is_err());
    let nan = spec(m1(f64::NAN), m1(1.0), m1(1.0), m1(0.0), DVector::zeros(1));
    assert!(LinearStateSpace::new(nan).is_err());
    let mut m = oscillator();
    assert!(m.set_float64(&[vr(&m, "der(x1)")], &[1.0]).is_err());
    assert!(m.set_float64(&[vr(&m, "u1")], &[f64::INFINITY]).is_err());
    assert!(m.set_float64(&[ValueRef(999)], &[1.0]).is_err());
    assert!(m
        .set_input_derivatives(
            Derivatives::of_inputs(&[vr(&m, "u1")], &[5], &[1.0]).expect("lengths")
        )
        .is_err());
}

/// Without `matrices_of` the parameters are informational: readable, never settable.
#[test]
fn parameters_without_matrices_of_are_fixed() {
    let mut s = spec(
        DMatrix::from_element(1, 1, -1.0),
        DMatrix::from_element(1, 1, 1.0),
        DMatrix::from_element(1, 1, 1.0),
        DMatrix::zeros(1, 1),
        DVector::zeros(1),
    );
    s.parameters = vec![Variable::new(
        "k",
        0,
        Causality::Parameter,
        crate::module::Variability::Fixed,
        Some(1.0),
        "",
    )];
    let mut m = LinearStateSpace::new(s).expect("module");
    let k = m
        .description()
        .variable("k")
        .map(|v| v.value_ref)
        .expect("k");
    let mut v = [0.0];
    m.get_float64(&[k], &mut v).expect("readable");
    assert_eq!(v, [1.0]);
    let e = m.set_float64(&[k], &[2.0]).expect_err("fixed");
    assert!(alloc::format!("{e}").contains("`k`"), "{e}");
}

/// Parameters of a failed `set_float64` call are not applied, then or by a later call.
#[test]
fn parameters_of_a_failed_set_are_dropped() {
    let one = || DMatrix::from_element(1, 1, 1.0);
    let mut s = spec(one(), one(), one(), DMatrix::zeros(1, 1), DVector::zeros(1));
    let param = |name, vr| {
        let fixed = crate::module::Variability::Fixed;
        Variable::new(name, vr, Causality::Parameter, fixed, Some(1.0), "")
    };
    s.parameters = vec![param("k1", 0), param("k2", 1)];
    s.matrices_of = Some(|p: &[f64]| {
        let one = DMatrix::from_element(1, 1, 1.0);
        let a = DMatrix::from_element(1, 1, -p[0] - p[1]);
        Ok((a, one.clone(), one, DMatrix::zeros(1, 1)))
    });
    let mut m = LinearStateSpace::new(s).expect("module");
    let (k1, k2) = (vr(&m, "k1"), vr(&m, "k2"));
    assert!(m.set_float64(&[k1, ValueRef(999)], &[5.0, 1.0]).is_err());
    m.set_float64(&[k2], &[3.0]).expect("k2");
    let mut v = [0.0; 2];
    m.get_float64(&[k1, k2], &mut v).expect("read");
    assert_eq!(v, [1.0, 3.0]);
    assert_eq!(m.matrices().0[(0, 0)], -4.0);
}
