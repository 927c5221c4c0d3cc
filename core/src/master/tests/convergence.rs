//! Global error order p + 1 of Jacobi with order-p extrapolation: a source emitting sin t
//! feeds an integrator that integrates its input polynomial exactly, so the only error is
//! the extrapolation's (local O(h^(p+2)), summed over 1/h steps).

use super::{run_all, system};
use crate::master::ExplicitCoupling;
use crate::testing::mock::{integrator, source};
use crate::time::FixedGrid;
use alloc::vec;
use alloc::vec::Vec;

const T_END: f64 = 1.0;

/// |x(T) − (1 − cos T)| for Jacobi order `p` with macro-step `h`.
fn error(p: u32, h: f64, exact_history: bool) -> f64 {
    let sys = system(
        vec![("src", source(libm::sin)), ("int", integrator(0.0, p))],
        &[("src.y", "int.u")],
    );
    let grid = FixedGrid::covering(0.0, T_END, h);
    // Exact past outputs at t = −j h: sin t and ∫_0^t sin = 1 − cos t.
    let history = exact_history.then(|| {
        (1..=p)
            .rev()
            .map(|j| {
                let t = -(j as f64) * h;
                (t, vec![libm::sin(t), 1.0 - libm::cos(t)])
            })
            .collect::<Vec<_>>()
    });
    let (run, rec) = match run_all(sys, ExplicitCoupling::jacobi(p), grid, history) {
        Ok(r) => r,
        Err(e) => panic!("p = {p}, h = {h}: {e}"),
    };
    assert_eq!(rec.time.len(), grid.steps as usize + 1);
    let x_end = run.system().outputs()[1];
    assert_eq!(rec.columns[1].last().copied(), Some(x_end));
    (x_end - (1.0 - libm::cos(T_END))).abs()
}

/// Least-squares slope of log(error) over log(h).
fn fitted_order(p: u32, exact_history: bool) -> f64 {
    let hs = [1.0 / 20.0, 1.0 / 40.0, 1.0 / 80.0, 1.0 / 160.0];
    let pts: Vec<(f64, f64)> = hs
        .iter()
        .map(|&h| (libm::log(h), libm::log(error(p, h, exact_history))))
        .collect();
    let n = pts.len() as f64;
    let mx = pts.iter().map(|p| p.0).sum::<f64>() / n;
    let my = pts.iter().map(|p| p.1).sum::<f64>() / n;
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx) * (p.0 - mx)).sum();
    sxy / sxx
}

#[test]
fn jacobi_with_exact_history_converges_with_order_p_plus_1() {
    for p in 0..=4 {
        let order = fitted_order(p, true);
        assert!(
            (order - (p as f64 + 1.0)).abs() < 0.15,
            "p = {p}: fitted order {order}"
        );
    }
}

#[test]
fn ramp_up_start_runs_and_its_first_zoh_step_limits_the_order_to_two() {
    // The first step is a zero-order hold (local error h²/2 here), so from p = 1 on the
    // global order is min(p + 1, 2) (docs/methods.md §4.4).
    for p in 0..=4u32 {
        let order = fitted_order(p, false);
        let expected = (p as f64 + 1.0).min(2.0);
        assert!(
            (order - expected).abs() < 0.15,
            "p = {p}: fitted order {order}"
        );
    }
    // Still better than ZOH throughout.
    assert!(error(2, 0.05, false) < 0.1 * error(0, 0.05, false));
}

#[test]
fn linear_signal_is_extrapolated_exactly_from_the_second_step() {
    // Source y = t, p = 1: step 0 holds y(0) = 0 (loses h²/2), later steps are exact.
    let h = 0.1;
    let grid = FixedGrid::covering(0.0, 1.0, h);
    let make = || {
        system(
            vec![("src", source(|t| t)), ("int", integrator(0.0, 1))],
            &[("src.y", "int.u")],
        )
    };
    let (run, _) = run_all(make(), ExplicitCoupling::jacobi(1), grid, None).unwrap();
    assert!((run.system().outputs()[1] - (0.5 - 0.5 * h * h)).abs() < 1e-14);
    // With the exact sample at −h the whole run is exact.
    let history = Some(vec![(-h, vec![-h, 0.5 * h * h])]);
    let (run, _) = run_all(make(), ExplicitCoupling::jacobi(1), grid, history).unwrap();
    assert!((run.system().outputs()[1] - 0.5).abs() < 1e-14);
}
