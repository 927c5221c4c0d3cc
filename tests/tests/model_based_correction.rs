//! Issue 3: seed 000's model-based corrector in the time-domain master, driven through
//! scenarios (`master.correction`).
//!
//! - On the linear two-mass oscillator at ΔT = 10^-3.5 s the corrected ZOH is far more
//!   accurate than plain ZOH (docs/methods.md §10.6 Q6 says plain ZOH has no accurate point there).
//! - The nonlinear subsystem with n_d = 1 reproduces the linear one.
//! - With n_d = 2 and mass 1 starting at 0.1 m, ΔT = 1e-3 s (docs/methods.md §11.2; the paper's
//!   initial conditions are unknown), plain ZOH and FOH blow up and the corrected ones stay
//!   bounded; SOH blows up with and without correction. This is the paper's Sect. 5 claim,
//!   not independently checked (docs/methods.md §10.6 Q11); the numbers asserted are what these
//!   runs measure. With s₁(0) = 0.01 m plain ZOH stays bounded as well: the damping grows
//!   with the relative velocity, so the instability depends on the amplitude.

use cosim_core::scenario::{self, CorrectionSpec, JacobianSource, Scenario, SolverSpec};
use cosim_core::simulation::Simulation;

fn run(s: &Scenario) -> Simulation {
    let v = s.validate().expect("valid scenario");
    let mut sim = Simulation::new(&v).expect("builds");
    sim.run_to_end().expect("runs");
    sim
}

fn s1(sim: &Simulation) -> &[f64] {
    &sim.result().signals[0].cosim
}

fn max_abs(v: &[f64]) -> f64 {
    v.iter().fold(0.0, |m, x| m.max(x.abs()))
}

fn nonlinear(order: u32, corrected: bool) -> Scenario {
    let mut s = scenario::preset(if corrected {
        "nonlinear-zoh-corrected"
    } else {
        "nonlinear-zoh"
    })
    .expect("preset exists");
    s.master.extrapolation_order = order;
    s
}

#[test]
fn corrected_zoh_is_accurate_where_plain_zoh_is_not() {
    let corrected = scenario::preset("two-mass-corrected").expect("preset exists");
    let mut plain = corrected.clone();
    plain.master.correction = None;
    let (ec, ep) = (
        run(&corrected).global_nrmse().unwrap(),
        run(&plain).global_nrmse().unwrap(),
    );
    println!("global NRMSE at 10^-3.5 s: corrected ZOH {ec:.3e}, plain ZOH {ep:.3e}");
    assert!(ec < 0.01, "corrected {ec}");
    assert!(ep > 10.0 * ec, "plain {ep}, corrected {ec}");
    assert_eq!(
        run(&corrected).jacobian_source(),
        Some("directional_derivatives")
    );
    assert_eq!(run(&plain).jacobian_source(), None);
}

#[test]
fn nonlinear_damper_with_nd_1_is_the_linear_model() {
    for corrected in [false, true] {
        let mut nl = nonlinear(0, corrected);
        nl.modules[1].parameters.insert("nd".into(), 1.0);
        nl.run.stop = 0.05;
        let mut linear = nl.clone();
        linear.modules[1].model = "TwoMassOscillator.Mass2".into();
        linear.modules[1].parameters.remove("nd");
        linear.modules[1].solver = SolverSpec::Rk4 {
            step: cosim_core::models::DEFAULT_RK4_STEP,
        };
        let (a, b) = (run(&nl), run(&linear));
        for (sa, sb) in a.result().signals.iter().zip(&b.result().signals) {
            let scale = max_abs(&sb.cosim);
            let diff = sa
                .cosim
                .iter()
                .zip(&sb.cosim)
                .fold(0.0f64, |m, (x, y)| m.max((x - y).abs()));
            println!(
                "n_d = 1, corrected {corrected}, {}: max difference {:.3e} of {scale:.3e}",
                sa.name, diff
            );
            assert!(diff <= 1e-9 * scale, "{}: {diff} of {scale}", sa.name);
        }
    }
}

#[test]
fn correction_keeps_the_nonlinear_oscillator_bounded_where_zoh_and_foh_blow_up() {
    for order in 0..=2u32 {
        let plain = run(&nonlinear(order, false));
        let corrected = run(&nonlinear(order, true));
        let (ap, ac) = (max_abs(s1(&plain)), max_abs(s1(&corrected)));
        let tail = |sim: &Simulation| max_abs(&s1(sim)[s1(sim).len() - 50..]);
        println!(
            "n_d = 2, order {order}: max |s1| plain {ap:.3e}, corrected {ac:.3e} (last 50 ms: {:.3e})",
            tail(&corrected)
        );
        assert_eq!(corrected.jacobian_source(), Some("directional_derivatives"));
        // Measured: plain ZOH 4.1e12, FOH 1.5e15, SOH 4.4e81 (metres!).
        assert!(ap > 1e6, "order {order}: plain stayed at {ap}");
        if order < 2 {
            // Measured: corrected ZOH ends at 4.6e-5 m, FOH at 5.3e-4 m; never above s1(0).
            assert!(
                ac <= 0.1 * (1.0 + 1e-9),
                "order {order}: corrected reached {ac}"
            );
            assert!(
                tail(&corrected) < 2e-3,
                "order {order}: corrected tail {}",
                tail(&corrected)
            );
        } else {
            // Measured: 9.4e28; the correction stabilises higher orders only up to a point.
            assert!(ac > 1e6, "SOH with correction stayed at {ac}");
        }
    }
}

#[test]
fn finite_difference_jacobians_also_stabilise_the_nonlinear_oscillator() {
    // The step-map sensitivity (rollback) instead of the tangent at T_{n+1}.
    let mut s = nonlinear(0, true);
    s.master.correction = Some(CorrectionSpec {
        alpha: 1.0,
        jacobians: JacobianSource::FiniteDifferences,
    });
    let fd = run(&s);
    let dd = run(&nonlinear(0, true));
    let a = max_abs(s1(&fd));
    let diff = s1(&fd)
        .iter()
        .zip(s1(&dd))
        .fold(0.0f64, |m, (x, y)| m.max((x - y).abs()));
    println!(
        "n_d = 2 ZOH corrected, FD vs DD Jacobians: max |s1| {a:.3e}, max difference {diff:.3e}"
    );
    assert_eq!(fd.jacobian_source(), Some("finite_differences"));
    assert!(a <= 0.1 * (1.0 + 1e-9), "{a}");
}
