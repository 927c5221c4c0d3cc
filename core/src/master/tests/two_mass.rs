//! The paper's example (docs/methods.md §11.1) with the built-in exact linear modules:
//! Jacobi with order-p extrapolation and exact start-up history converges to the
//! monolithic reference with global order p + 1 (docs/methods.md §10.6 Q3, plain curves), and
//! Gauss-Seidel runs on the same system. This checks the master against real modules that
//! take input derivatives, not only against mocks.

use super::two_mass_with_reference;
use crate::master::{ExplicitCoupling, Run, TimeSeriesRecorder};
use crate::time::FixedGrid;
use alloc::boxed::Box;
use alloc::vec;
use alloc::vec::Vec;

/// Horizon: about half a period of the fast mode (ω ≈ 1000 rad/s).
const T_END: f64 = 3e-3;

/// Largest error over the run, per signal relative to its largest reference magnitude.
fn global_error(algorithm: ExplicitCoupling, p: u32, steps: u32) -> f64 {
    let (sys, reference) = two_mass_with_reference(T_END);
    let grid = FixedGrid::covering(0.0, T_END, T_END / f64::from(steps));
    let history = reference.history(0.0, grid.h, p).unwrap();
    let exact = reference.outputs_at_offsets(grid.h, grid.steps).unwrap();
    let mut run = Run::new(sys, Box::new(algorithm), grid, Some(history)).unwrap();
    let mut rec = TimeSeriesRecorder::new();
    assert!(run.advance(u32::MAX, &mut rec).unwrap());
    let mut worst: f64 = 0.0;
    for (j, column) in rec.columns.iter().enumerate() {
        let scale = exact.iter().map(|r| r[j].abs()).fold(0.0, f64::max);
        for (k, y) in column.iter().enumerate() {
            worst = worst.max((y - exact[k][j]).abs() / scale);
        }
    }
    worst
}

#[test]
fn jacobi_on_the_two_mass_oscillator_converges_with_order_p_plus_1() {
    let steps = [40u32, 80, 160, 320];
    for p in 0..=4u32 {
        let errors: Vec<f64> = steps
            .iter()
            .map(|&n| global_error(ExplicitCoupling::jacobi(p), p, n))
            .collect();
        // Slope between the two finest grids (halving h).
        let order = libm::log2(errors[2] / errors[3]);
        assert!(
            (order - f64::from(p + 1)).abs() < 0.2,
            "p = {p}: errors {errors:?}, order {order}"
        );
    }
}

#[test]
fn gauss_seidel_on_the_two_mass_oscillator_beats_jacobi() {
    for p in 0..=2u32 {
        let e = global_error(ExplicitCoupling::gauss_seidel(vec![0, 1], p), p, 320);
        let jacobi = global_error(ExplicitCoupling::jacobi(p), p, 320);
        // Mass 2 steps on mass 1's new outputs, which here cuts the error by 10x or more.
        assert!(e < 0.5 * jacobi, "p = {p}: GS {e}, Jacobi {jacobi}");
    }
}
