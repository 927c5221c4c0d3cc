//! Two integrators in a feedback loop (x1' = x2, x2' = −x1) make the masters' recurrences
//! known in closed form, an independent check of the whole chain (weights → input
//! polynomial → exact integration in the module):
//! - Jacobi with order-p extrapolation is the (p+1)-step Adams-Bashforth method;
//! - Gauss-Seidel with zero-order hold is symplectic Euler.

use super::{run_all, system};
use crate::master::ExplicitCoupling;
use crate::testing::mock::{integrator, MockModule};
use crate::time::FixedGrid;
use alloc::vec;
use alloc::vec::Vec;

const H: f64 = 0.05;
const STEPS: u32 = 40;

/// `x' = −u`, `y = x`: the second integrator of the loop.
fn negative_integrator(x0: f64, order: u32) -> MockModule {
    let plus = integrator(-x0, order);
    // y = −(∫u) with the state of `plus` starting at −x0.
    plus.output(|c, y| y[0] = -c.x[0])
}

fn oscillator(order: u32) -> crate::master::CoupledSystem {
    system(
        vec![
            ("I1", integrator(1.0, order)),
            ("I2", negative_integrator(0.0, order)),
        ],
        &[("I2.y", "I1.u"), ("I1.y", "I2.u")],
    )
}

/// Adams-Bashforth coefficients for k = 1..=5 steps (newest first).
fn adams_bashforth(k: usize) -> Vec<f64> {
    match k {
        1 => vec![1.0],
        2 => vec![1.5, -0.5],
        3 => vec![23.0 / 12.0, -16.0 / 12.0, 5.0 / 12.0],
        4 => vec![55.0 / 24.0, -59.0 / 24.0, 37.0 / 24.0, -9.0 / 24.0],
        _ => vec![
            1901.0 / 720.0,
            -2774.0 / 720.0,
            2616.0 / 720.0,
            -1274.0 / 720.0,
            251.0 / 720.0,
        ],
    }
}

#[test]
fn jacobi_on_integrators_is_adams_bashforth() {
    for p in 0..=4usize {
        // Exact past: x1 = cos t, x2 = −sin t at t = −j h.
        let exact = |t: f64| [libm::cos(t), -libm::sin(t)];
        let history: Vec<(f64, Vec<f64>)> = (1..=p)
            .rev()
            .map(|j| (-(j as f64) * H, exact(-(j as f64) * H).to_vec()))
            .collect();
        let grid = FixedGrid::uniform(0.0, H, STEPS);
        let (_, rec) = run_all(
            oscillator(p as u32),
            ExplicitCoupling::jacobi(p as u32),
            grid,
            Some(history),
        )
        .unwrap();
        // The same recurrence by hand: x_{n+1} = x_n + h Σ_j b_j f(x_{n−j}), f(x) = (x2, −x1).
        let b = adams_bashforth(p + 1);
        let mut xs: Vec<[f64; 2]> = (0..=p).rev().map(|j| exact(-(j as f64) * H)).collect();
        for _ in 0..STEPS {
            let n = xs.len() - 1;
            let mut next = xs[n];
            for (j, bj) in b.iter().enumerate() {
                let x = xs[n - j];
                next[0] += H * bj * x[1];
                next[1] -= H * bj * x[0];
            }
            xs.push(next);
        }
        for (k, x) in xs[p..].iter().enumerate() {
            for (i, want) in x.iter().enumerate() {
                let got = rec.columns[i][k];
                assert!(
                    (got - want).abs() < 1e-13,
                    "p = {p}, step {k}, x{}: {got} vs {want}",
                    i + 1
                );
            }
        }
    }
}

#[test]
fn gauss_seidel_zoh_on_integrators_is_symplectic_euler() {
    let grid = FixedGrid::uniform(0.0, H, STEPS);
    let (_, rec) = run_all(
        oscillator(0),
        ExplicitCoupling::gauss_seidel(vec![0, 1], 0),
        grid,
        None,
    )
    .unwrap();
    let (mut x1, mut x2) = (1.0, 0.0);
    for k in 1..=STEPS as usize {
        x1 += H * x2;
        x2 -= H * x1;
        assert!(
            (rec.columns[0][k] - x1).abs() < 1e-14 && (rec.columns[1][k] - x2).abs() < 1e-14,
            "step {k}"
        );
    }
    // Jacobi ZOH is explicit Euler: the amplitude grows by exactly √(1 + h²) per step.
    let (_, rec) = run_all(oscillator(0), ExplicitCoupling::jacobi(0), grid, None).unwrap();
    let n = STEPS as usize;
    let r = libm::hypot(rec.columns[0][n], rec.columns[1][n]);
    assert!((r - libm::pow(1.0 + H * H, n as f64 / 2.0)).abs() < 1e-13);
}
