//! Sweeps on the two-mass preset against the acceptance numbers of docs/methods.md §10.6
//! (Q2, Q4, Q5, Q6) and the no-silent-NaN rule at ill-conditioned corners.

use super::*;
use crate::scenario::{preset, AxisSpec, CorrectionSpec, JacobianSource, RunSpec, Scenario};
use alloc::string::String;
use alloc::vec::Vec;

/// The two-mass oscillator (exact modules, Jacobi, exact start-up) over about 0.3 s.
pub(crate) fn two_mass(order: u32, alpha: Option<f64>, h: f64, ck: f64, dk: f64) -> LinearAnalysis {
    let mut s: Scenario = preset("two-mass-oscillator").expect("preset");
    s.master.extrapolation_order = order;
    s.master.macro_step = h;
    s.master.correction = alpha.map(|alpha| CorrectionSpec {
        alpha,
        jacobians: JacobianSource::Auto,
    });
    // The whole number of macro-steps nearest to 0.3 s: the analysis needs whole steps.
    s.run = RunSpec {
        start: 0.0,
        stop: crate::time::FixedGrid::nearest(0.0, 0.3, h).t_stop,
    };
    s.modules[1].parameters.insert("ck".into(), ck);
    s.modules[1].parameters.insert("dk".into(), dk);
    LinearAnalysis::new(&s.validate().expect("valid")).expect("linear analysis")
}

fn axis(parameter: &str, from: f64, to: f64, points: u32) -> AxisSpec {
    AxisSpec {
        parameter: String::from(parameter),
        from,
        to,
        points,
        log: true,
    }
}

fn within(got: f64, want: f64, rel: f64) -> bool {
    libm::fabs(got / want - 1.0) <= rel
}

/// Q2/Q4: upper end of the stable interval that contains ΔT → 0, scanning 10⁻⁵…10⁻²·⁵.
#[test]
fn high_order_holds_lose_stability_at_the_documented_macro_steps() {
    let cases = [
        (4, None, 1.772e-4),
        (3, None, 7.453e-4),
        (3, Some(1.0), 1.927e-3),
        (4, Some(1.0), 1.366e-3),
    ];
    for (p, alpha, want) in cases {
        let a = two_mass(p, alpha, 1e-4, 2e5, 5e2);
        let c = stability_crossings(
            &a,
            &axis("master.macro_step", 1e-5, libm::pow(10.0, -2.5), 60),
        )
        .expect("scan");
        let first = c.first().expect("a crossing");
        assert!(first.stable_below, "p = {p}, {alpha:?}: {c:?}");
        assert!(
            within(first.value, want, 0.01),
            "p = {p}, {alpha:?}: crossing at {:e}, documented {want:e}",
            first.value
        );
    }
}

/// Q5 (Fig. 5): FOH without correction at c_k = 1e9, d_k = 3.6e5 is stable below
/// 1.3105e-5, unstable after, stable again in [1.3701e-4, 3.0611e-4].
#[test]
fn foh_spectral_radius_is_non_monotone_with_a_stable_window() {
    let a = two_mass(1, None, 1e-4, 1e9, 3.6e5);
    let c = stability_crossings(
        &a,
        &axis("master.macro_step", 1e-6, libm::pow(10.0, -2.5), 90),
    )
    .expect("scan");
    let got: Vec<(f64, bool)> = c.iter().map(|k| (k.value, k.stable_below)).collect();
    assert_eq!(got.len(), 3, "{got:?}");
    let want = [(1.3105e-5, true), (1.3701e-4, false), (3.0611e-4, true)];
    for ((v, s), (w, ws)) in got.iter().zip(want) {
        assert_eq!(*s, ws, "{got:?}");
        assert!(within(*v, w, 0.01), "{v:e} vs {w:e}");
    }
}

/// Q6: at ΔT = 10^-3.5 plain ZOH has no accurate point (e_g ≤ 0.01) on the c_k × d_k
/// map; ZOH with correction has a substantial region (docs/methods.md §10.6 Q6: 0 vs 91 on 21 × 15).
#[test]
fn correction_creates_an_accuracy_region_for_zoh() {
    let h = libm::pow(10.0, -3.5);
    let count = |alpha| {
        let map = ParameterMap::new(
            two_mass(0, alpha, h, 2e5, 5e2),
            &axis("mass2.ck", 1.0, 1e10, 21),
            &axis("mass2.dk", 1.0, 1e7, 15),
            MapMetric::GlobalError,
        )
        .expect("map");
        let tile = map.compute_rows(0..15);
        assert_eq!(tile.values.len(), 315);
        assert!(tile.values.iter().all(|v| !v.is_nan()), "no NaN cells");
        tile.values.iter().filter(|&&e| e <= 0.01).count()
    };
    let (plain, corrected) = (count(None), count(Some(1.0)));
    assert_eq!(plain, 0);
    assert!(
        (88..=94).contains(&corrected),
        "corrected ZOH: {corrected} accurate cells (docs/methods.md §10.6 Q6: 91)"
    );
}

#[test]
fn ill_conditioned_corners_never_give_a_silent_nan() {
    for (p, alpha) in [(2, Some(1.0)), (1, Some(1.0)), (4, None)] {
        for metric in [MapMetric::SpectralRadius, MapMetric::GlobalError] {
            let map = ParameterMap::new(
                two_mass(p, alpha, 1e-6, 2e5, 5e2),
                &axis("mass2.ck", 1.0, 1e10, 2),
                &axis("mass2.dk", 1e6, 1e7, 2),
                metric,
            )
            .expect("map");
            let tile = map.compute_rows(0..2);
            for (v, s) in tile.values.iter().zip(&tile.status) {
                assert!(
                    v.is_nan() == matches!(s, CellStatus::Failed(_)),
                    "{v} with {s:?}"
                );
                assert!(*s != CellStatus::Ok || v.is_finite(), "{v} with {s:?}");
            }
        }
    }
}

#[test]
fn bad_parameters_name_the_axis_field() {
    let a = two_mass(0, None, 1e-4, 2e5, 5e2);
    let err = |p: &str| {
        ParameterMap::new(
            a.clone(),
            &axis(p, 1.0, 2.0, 2),
            &axis("mass2.dk", 1.0, 2.0, 2),
            MapMetric::SpectralRadius,
        )
        .expect_err(p)
    };
    assert_eq!(err("mass3.ck").path, "analysis.x.parameter");
    assert!(err("mass2.zz").message.contains("zz"));
    assert!(err("master.extrapolation_order")
        .message
        .contains("macro_step"));
    assert!(err("master.correction.alpha")
        .message
        .contains("correction"));
    let e = ParameterMap::new(
        a.clone(),
        &axis("mass2.ck", -1.0, 2.0, 2),
        &axis("mass2.dk", 1.0, 2.0, 2),
        MapMetric::SpectralRadius,
    )
    .expect_err("negative log axis");
    assert_eq!(e.path, "analysis.x.from");
}

/// Fig. 5 and Fig. 7 as one-parameter sweeps: the FOH ρ dips to ≈ 0.9938 near
/// ΔT ≈ 2.3e-4 (docs/methods.md §10.6 Q5); SOH with correction at d_k = 40, ΔT = 10^-3.5 is accurate at
/// low c_k and unstable above c_k ≈ 10^7.7 (docs/methods.md §10.6 Q7).
#[test]
fn one_parameter_sweeps_give_the_fig5_and_fig7_curves() {
    let a = two_mass(1, None, 1e-4, 1e9, 3.6e5);
    let rho = sweep(
        &a,
        &axis("master.macro_step", 1.8e-4, 2.8e-4, 21),
        MapMetric::SpectralRadius,
    )
    .expect("sweep");
    let (h_min, min) = rho
        .iter()
        .map(|(h, c)| (*h, c.value))
        .fold((0.0, f64::INFINITY), |a, b| if b.1 < a.1 { b } else { a });
    assert!(within(min, 0.9938, 2e-4), "min ρ {min} at {h_min:e}");
    assert!(within(h_min, 2.3e-4, 0.05), "min ρ {min} at {h_min:e}");

    let a = two_mass(2, Some(1.0), libm::pow(10.0, -3.5), 2e5, 40.0);
    let eg = sweep(&a, &axis("mass2.ck", 1e4, 1e9, 6), MapMetric::GlobalError).expect("sweep");
    assert!(eg[0].1.value < 1e-3, "{eg:?}");
    assert!(
        eg.windows(2).take(3).all(|w| w[1].1.value > w[0].1.value),
        "rising: {eg:?}"
    );
    let last = &eg[5].1;
    assert!(
        last.status == CellStatus::Diverged || last.value > 0.01,
        "{eg:?}"
    );
    let rho_last = a.evaluate_at(
        MapMetric::SpectralRadius,
        &[(
            &Parameter::Module {
                module: 1,
                name: "ck".into(),
            },
            1e9,
        )],
    );
    assert!(rho_last.value > 1.0, "{rho_last:?}");
}

/// A map reads mass 2 through one kept instance (reset, set c_k and d_k, read); every
/// cell must equal a point built from the spec, and a point whose value the module
/// rejects fails with the same message, without spoiling the cells after it.
#[test]
fn kept_instances_give_the_same_cells_as_rebuilt_modules() {
    let a = two_mass(0, Some(1.0), 10f64.powf(-3.5), 2e5, 5e2);
    let x = AxisSpec {
        parameter: String::from("mass2.ck"),
        from: -1e9,
        to: 1e10,
        points: 12,
        log: false,
    };
    let map = ParameterMap::new(
        a.clone(),
        &x,
        &axis("mass2.dk", 1.0, 1e7, 3),
        MapMetric::SpectralRadius,
    )
    .expect("map");
    let tile = map.compute_rows(0..3);
    let ck = a.parameter("mass2.ck", "x").expect("ck");
    let dk = a.parameter("mass2.dk", "y").expect("dk");
    let mut failed = 0;
    for (r, &yv) in map.y_values().iter().enumerate() {
        for (i, &xv) in map.x_values().iter().enumerate() {
            let want = a.evaluate_at(MapMetric::SpectralRadius, &[(&ck, xv), (&dk, yv)]);
            let k = r * map.x_values().len() + i;
            assert_eq!(tile.status[k], want.status, "c_k = {xv}, d_k = {yv}");
            if let CellStatus::Failed(e) = &want.status {
                assert!(alloc::format!("{e}").contains("ck"), "{e}");
                failed += 1;
            } else {
                assert_eq!(tile.values[k].to_bits(), want.value.to_bits());
            }
        }
    }
    assert_eq!(failed, 3, "one negative c_k per row");
}
