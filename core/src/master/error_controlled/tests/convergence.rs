//! The explicit estimators converge as seed 002 §4 says (with the errata's one-higher
//! orders): from an exact state and an exact coupling history at `T_N`, one macro-step of
//! size `H` has the true local error `e` of order `k + 3` (positions), `k + 2` (velocities)
//! and, for ExSLocal, `k + 1` (the predicted coupling variables); the estimate `ε` differs
//! from `e` by one order more: `k + 4`, `k + 3`, `k + 2`. Both on a uniform grid and on a
//! non-uniform one, where the uniform grid's Milne constants would lose the extra order.

use super::support::{
    check_slopes, norm, prepared_on_exact_history, resolved_slope, steps, NON_UNIFORM, UNIFORM,
};
use crate::master::error_control::lagrange::evaluate;
use crate::master::error_control::{EstimatorKind, StepConstants};
use crate::master::{ErrorControlledCoupling, MacroStepOutcome, MasterAlgorithm};
use alloc::vec::Vec;

/// Past step sizes relative to `H` (newest first): uniform, and an irregular grid.

/// 2-norms of the true local errors and of the estimators' own errors, per group.
#[derive(Debug, Clone, Copy)]
pub(super) struct StepErrors {
    pub e_pos: f64,
    pub e_vel: f64,
    pub e_u: f64,
    pub d_pos: f64,
    pub d_vel: f64,
    pub d_u: f64,
    /// `|ε − e|` had ExMilne used the uniform grid's constants `C^k`, `C^{k+1}` on this grid
    /// (the other estimators: `d_pos`, `d_vel`).
    pub d_pos_uniform: f64,
    pub d_vel_uniform: f64,
}

/// One step of `h` from `T_N = 0` at fixed degree `k` with an exact history on `grid`.
pub(super) fn one_step(estimator: EstimatorKind, k: usize, h: f64, grid: &[f64]) -> StepErrors {
    // k + 2 past points: what ExLocal and ExMilne need at degree k.
    let (mut sys, mut alg, solution) =
        prepared_on_exact_history(estimator, k, k + 2, h, grid, ErrorControlledCoupling::new);
    assert_eq!(alg.bookkeeping().map(|b| b.degree()), Some(k));
    let out = alg.step(&mut sys, 0.0, h).unwrap();
    assert!(matches!(out, MacroStepOutcome::Accepted { .. }));
    let exact = solution.state(h);
    // Stacked states: mass 1 (s1, v1), mass 2 (s2, v2).
    let (q_exact, v_exact) = ([exact[0], exact[2]], [exact[1], exact[3]]);
    let (eps_pos, eps_vel, eps_u) = alg.bookkeeping().unwrap().last_estimate();
    let mut errors = StepErrors {
        e_pos: 0.0,
        e_vel: 0.0,
        e_u: 0.0,
        d_pos: 0.0,
        d_vel: 0.0,
        d_u: 0.0,
        d_pos_uniform: 0.0,
        d_vel_uniform: 0.0,
    };
    if estimator.on_states() {
        let s = alg.bookkeeping().unwrap().states().unwrap();
        let e_pos: Vec<f64> = s
            .positions
            .iter()
            .zip(q_exact)
            .map(|(q, x)| (q - x).abs())
            .collect();
        let e_vel: Vec<f64> = s
            .velocities
            .iter()
            .zip(v_exact)
            .map(|(v, x)| (v - x).abs())
            .collect();
        errors.e_pos = norm(e_pos.iter().copied());
        errors.e_vel = norm(e_vel.iter().copied());
        errors.d_pos = norm(eps_pos.iter().zip(&e_pos).map(|(a, b)| a - b));
        errors.d_vel = norm(eps_vel.iter().zip(&e_vel).map(|(a, b)| a - b));
        let (to_pos, to_vel) = uniform_over_grid_factors(estimator, k, grid);
        let d = |eps: &[f64], e: &[f64], to: f64| norm(eps.iter().zip(e).map(|(a, b)| to * a - b));
        errors.d_pos_uniform = d(eps_pos, &e_pos, to_pos);
        errors.d_vel_uniform = d(eps_vel, &e_vel, to_vel);
    } else {
        // The error of the predicted coupling variables: p^ext(T_{N+1}) against the exact
        // coupling variables (the sources of mass1.Fk, mass2.s1, mass2.v1).
        let cv = alg.bookkeeping().unwrap().coupling_variables();
        let mut predicted = alloc::vec![0.0; cv.len()];
        // The history now holds exactly the start points: evaluate P^k at T_{N+1}.
        evaluate(cv.history(), k, h, &mut predicted);
        let y = solution.outputs(h);
        let graph = sys.graph();
        let e_u: Vec<f64> = cv
            .input_indices()
            .iter()
            .zip(&predicted)
            .map(|(&i, p)| (p - y[graph.source_of_input(i)]).abs())
            .collect();
        errors.e_u = norm(e_u.iter().copied());
        errors.d_u = norm(eps_u.iter().zip(&e_u).map(|(a, b)| a - b));
    }
    errors
}

/// ExMilne's factors `C^{k+1}/C^k` of the uniform grid over those of `grid` (positions,
/// velocities): what turns its estimate into the one with the uniform grid's constants.
/// 1 for the other estimators.
fn uniform_over_grid_factors(estimator: EstimatorKind, k: usize, grid: &[f64]) -> (f64, f64) {
    if estimator != EstimatorKind::ExMilne {
        return (1.0, 1.0);
    }
    // σ_j = (T_N − T_{N−j})/H: the past steps summed.
    let sigma = |steps: &[f64]| -> Vec<f64> { (0..=k).map(|j| steps[..j].iter().sum()).collect() };
    let factors = |steps: &[f64]| {
        StepConstants::from_sigma(&sigma(steps))
            .unwrap()
            .explicit_milne()
    };
    let (uniform, actual) = (factors(&UNIFORM), factors(grid));
    (uniform.pos / actual.pos, uniform.vel / actual.vel)
}

/// Values below these are rounding (states ≈ 1e-2 m, 10 m/s; forces ≈ 1e3 N, each with
/// ≈ 1e-16 relative rounding), kept a factor 1000 away from it.
const FLOOR_POS: f64 = 2e-17;
const FLOOR_VEL: f64 = 2e-14;
const FLOOR_U: f64 = 4e-12;
/// The extrapolated `u` itself carries rounding magnified by the Lagrange weights.
const FLOOR_PREDICTED_U: f64 = 1e-9;

/// Measured slopes of one estimator at degree `k` on `grid`: `[(measured, expected)]` for
/// e and |ε − e| of each group it estimates (None where f64 cannot resolve the rate).
pub(super) fn slopes(estimator: EstimatorKind, k: usize, grid: &[f64]) -> Vec<(Option<f64>, f64)> {
    let h = steps();
    let errs: Vec<StepErrors> = h.iter().map(|&h| one_step(estimator, k, h, grid)).collect();
    let col = |f: fn(&StepErrors) -> f64| -> Vec<f64> { errs.iter().map(f).collect() };
    let k = k as f64;
    if estimator.on_states() {
        alloc::vec![
            (resolved_slope(&h, &col(|e| e.e_pos), FLOOR_POS), k + 3.0),
            (resolved_slope(&h, &col(|e| e.d_pos), FLOOR_POS), k + 4.0),
            (resolved_slope(&h, &col(|e| e.e_vel), FLOOR_VEL), k + 2.0),
            (resolved_slope(&h, &col(|e| e.d_vel), FLOOR_VEL), k + 3.0),
        ]
    } else {
        alloc::vec![
            (
                resolved_slope(&h, &col(|e| e.e_u), FLOOR_PREDICTED_U),
                k + 1.0
            ),
            (resolved_slope(&h, &col(|e| e.d_u), FLOOR_U), k + 2.0),
        ]
    }
}

/// The slopes of `k = 0..=k_top` are within 0.2 of the seed's for every degree listed in
/// `resolved[column]`: those whose rate f64 resolves. For the others the values sink into
/// rounding while the next-order terms still add 0.3 or more to the local slope (positions
/// at `k = 3` and their estimate at `k = 2`: local slopes 6.54, 6.35, 6.22 before the floor),
/// or no three points lie above it. The table is printed with `--nocapture`.
fn check(estimator: EstimatorKind, k_top: usize, resolved: &[&[usize]]) {
    let label = alloc::format!("{estimator:?}");
    check_slopes(&label, k_top, resolved, |k, grid| {
        slopes(estimator, k, grid)
    });
}

#[test]
fn ex_local_errors_converge_at_k_plus_3_and_2_and_its_own_error_one_order_higher() {
    // ExLocal's comparative run needs input derivatives up to k + 1 ≤ 4.
    check(
        EstimatorKind::ExLocal,
        3,
        &[&[0, 1, 2], &[0, 1, 3], &[0, 1, 2, 3], &[0, 1, 2, 3]],
    );
}

#[test]
fn ex_milne_errors_converge_at_k_plus_3_and_2_and_its_own_error_one_order_higher() {
    check(
        EstimatorKind::ExMilne,
        4,
        &[&[0, 1, 2, 4], &[0, 1, 3], &[0, 1, 2, 3, 4], &[0, 1, 2, 3]],
    );
}

#[test]
fn ex_s_local_predicted_coupling_error_converges_at_k_plus_1_and_its_own_error_at_k_plus_2() {
    check(
        EstimatorKind::ExSLocal,
        4,
        &[&[0, 1, 2, 3, 4], &[0, 1, 2, 3, 4]],
    );
}

/// The grid-dependent constants are needed: ExMilne's estimate with the uniform grid's
/// `C^k`, `C^{k+1}` on the non-uniform grid loses the extra order (its own error falls only
/// like `e` itself, `k + 3` / `k + 2`), while the grid's constants keep `k + 4` / `k + 3`.
/// `k = 0` is left out: `L^0 = 1` and `L^1 = s` on every grid, so its constants do not depend
/// on the grid. Measured at `k = 1` (grid's / uniform constants): positions 5.00 / 4.03,
/// velocities 4.00 / 3.01. (At `k = 2` the velocity factors of the two grids are too close
/// for the lost order to show within the resolved range: 5.13 / 5.03.)
#[test]
fn ex_milne_with_the_uniform_constants_on_a_non_uniform_grid_loses_the_extra_order() {
    let h = steps();
    for (k, positions) in [(1, true)] {
        let errs: Vec<StepErrors> = h
            .iter()
            .map(|&h| one_step(EstimatorKind::ExMilne, k, h, &NON_UNIFORM))
            .collect();
        let col = |f: fn(&StepErrors) -> f64| -> Vec<f64> { errs.iter().map(f).collect() };
        let mut cases = alloc::vec![(
            "velocities",
            col(|e| e.d_vel),
            col(|e| e.d_vel_uniform),
            FLOOR_VEL,
            k as f64 + 3.0
        )];
        if positions {
            cases.push((
                "positions",
                col(|e| e.d_pos),
                col(|e| e.d_pos_uniform),
                FLOOR_POS,
                k as f64 + 4.0,
            ));
        }
        for (group, grid_constants, uniform_constants, floor, order) in cases {
            let right = resolved_slope(&h, &grid_constants, floor).unwrap();
            let wrong = resolved_slope(&h, &uniform_constants, floor).unwrap();
            std::println!(
                "ExMilne k = {k} {group}: |ε − e| slope {right:.2} (grid's constants), \
                 {wrong:.2} (uniform constants), expected {order}"
            );
            assert!((right - order).abs() < 0.2, "k = {k} {group}: {right}");
            assert!(
                wrong < order - 0.8,
                "k = {k} {group}: {wrong} with uniform constants"
            );
        }
    }
}
