//! The correction's clamp: it limits the correction to the cap and never switches it off
//! when the velocity is small or zero; the cap's fraction, absolute floor and both.

use super::{Bond, Cap, CorrectionSettings, EnergyCorrection};
use alloc::vec;

fn correction(cap: Cap, nu: f64) -> EnergyCorrection {
    let bond = Bond {
        name: "m2.F".into(),
        effort_output: 0,
        effort_input: 0,
        flow_output: 1,
        mu: 0.5,
    };
    EnergyCorrection::new(vec![bond], CorrectionSettings { nu, cap })
}

#[test]
fn the_cap_clamps_and_never_zeroes_the_correction() {
    let ten_percent = Cap {
        fraction: Some(0.1),
        absolute: None,
    };
    let mut c = correction(ten_percent, 0.0);
    c.start(0, 10.0, 1.0);
    // δP = 10·v − 12·1 < 0 with v small: energy was lost, the correction adds energy
    // (f_corr·v > 0) and is clamped at 10 % of |f| = 1.2 N.
    let f = c.update(0, 12.0, 1e-9, 1e-3, 1e-3);
    assert!(libm::fabs(f - 1.2) < 1e-12, "{f}");
    // v = 0 exactly: the wanted force is infinite; the clamp keeps the limit.
    let f = c.update(0, 12.0, 0.0, 1e-3, 1e-3);
    assert!(libm::fabs(libm::fabs(f) - 1.2) < 1e-12, "{f}");
    // Within the cap the force is −ς/(v·H) = −μ·H·δP/(v·H).
    let mut c = correction(ten_percent, 0.0);
    c.start(0, 10.0, 1.0);
    let f = c.update(0, 10.0, 1.0 + 1e-4, 1e-3, 1e-3);
    let dp = 10.0 * (1.0 + 1e-4) - 10.0;
    assert!(libm::fabs(f - (-0.5 * dp / (1.0 + 1e-4))) < 1e-15, "{f}");
}

#[test]
fn fraction_and_absolute_caps_combine_as_the_larger_limit() {
    let both = Cap {
        fraction: Some(0.1),
        absolute: Some(100.0),
    };
    assert_eq!(both.limit(0.0), 100.0);
    assert_eq!(both.limit(-5000.0), 500.0);
    let fraction = Cap {
        fraction: Some(1.0),
        absolute: None,
    };
    assert_eq!(fraction.limit(-3.0), 3.0);
    // The absolute floor keeps a correction alive where the effort crosses zero.
    // f = 0 now: δP = 1000·1e-3 = 1 W, ς = 5e-4 J, wanted −500 N, limit max(0, 100 N).
    let mut c = correction(both, 0.0);
    c.start(0, 1000.0, 1.0);
    assert_eq!(c.update(0, 0.0, 1e-3, 1e-3, 1e-3), -100.0);
}

#[test]
fn the_integral_term_removes_what_the_last_correction_left() {
    // ν = 1: the backlog 𝒰 left by a clamped correction is asked for in the next step.
    let cap = Cap {
        fraction: Some(1e-3),
        absolute: None,
    };
    let (mut with_nu, mut without) = (correction(cap, 1.0), correction(cap, 0.0));
    for c in [&mut with_nu, &mut without] {
        c.start(0, 10.0, 1.0);
        c.update(0, 12.0, 1.0, 1e-3, 1e-3);
    }
    let cap_off = Cap {
        fraction: None,
        absolute: None,
    };
    with_nu.settings.cap = cap_off;
    without.settings.cap = cap_off;
    let (a, b) = (
        with_nu.update(0, 12.0, 1.0, 1e-3, 1e-3),
        without.update(0, 12.0, 1.0, 1e-3, 1e-3),
    );
    assert!(a > b, "ν = 1 asks for more: {a} vs {b}");
}
