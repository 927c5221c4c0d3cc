//! `ReferenceFMU.StateSpace`: `der(x) = A·x + B·u`, `y = C·x + D·u` with
//! `A = B = C = D = I₃`, `x0 = 0`, `u = [1, 2, 3]` (Reference FMUs `StateSpace/model.c`).
//! Forward Euler with `FIXED_SOLVER_STEP = 1e-3` (`config.h`), so with constant `u` each
//! component is `y = (1 + 1e−3)^{1000 t}·u`, e.g. 2.7169239322358925 at `t = 1` for
//! `u = 1`, as in `StateSpace_out.csv`. (An earlier summary listed the internal step as 1;
//! the model's `config.h` and the published output say 1e-3.)
//!
//! The Reference FMU has array variables and structural parameters `m, n, r` (default 3,
//! at most 5). Here the sizes are fixed at 3 and the arrays are flattened into scalars
//! `A[i,j]`, `x0[i]`, `u[i]`, `y[i]`, `x[i]`, `der(x[i])` (1-based). An element's value
//! reference is `100·vr + k`, with `vr` the array's value reference in the Reference FMU
//! (A 4, B 5, C 6, D 7, x0 8, u 9, y 10, x 11, der(x) 12) and `k` the 1-based row-major
//! element index. `x0` is applied when Initialization Mode is left (the C
//! `setStartValues` overwrites `x` with 0 instead, which only matters for `x0 ≠ 0`).
//! The sums are accumulated in the C code's order, so the outputs match bit for bit.
//! (`model.c` runs the `B·u` loop to `r` instead of `m`; both are 3 here.)

use super::engine::RefModel;
use super::{var, variables_of};
use crate::module::{Causality, Causality::*, Variability, Variability::*, Variable};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// States, inputs and outputs.
const N: usize = 3;
/// Slot of the first element of A, B, C, D (row-major, `N·N` each), x0, u, y, x, der(x).
const A: usize = 1;
const B: usize = A + N * N;
const C: usize = B + N * N;
const D: usize = C + N * N;
const X0: usize = D + N * N;
const U: usize = X0 + N;
const Y: usize = U + N;
const X: usize = Y + N;
const DER_X: usize = X + N;

/// The state-space model.
pub(super) struct StateSpace;

/// Value reference of element `k` (0-based, row-major) of the array with value reference
/// `array_vr` in the Reference FMU.
const fn vr(array_vr: u32, k: usize) -> u32 {
    100 * array_vr + k as u32 + 1
}

/// Every `(y[i], u[j])`: y depends on u through D, a parameter, so every pair is declared.
const EVERY_OUTPUT_ON_EVERY_INPUT: [(u32, u32); N * N] = {
    let mut pairs = [(0, 0); N * N];
    let mut k = 0;
    while k < N * N {
        pairs[k] = (vr(10, k / N), vr(9, k % N));
        k += 1;
    }
    pairs
};

/// A vector of the Reference FMU flattened to `N` scalars: its name with `[i]` (1-based),
/// value reference, causality, variability, start value of element `i`, description.
type VectorRow = (
    fn(usize) -> String,
    u32,
    Causality,
    Variability,
    fn(usize) -> Option<f64>,
    &'static str,
);

impl RefModel for StateSpace {
    const FIXED_SOLVER_STEP: f64 = 1e-3;
    const NX: usize = N;
    const MODEL_NAME: &'static str = super::STATE_SPACE_ID;
    const EXPOSES_EQUATIONS: bool = true;
    const FEEDTHROUGH: &'static [(u32, u32)] = &EVERY_OUTPUT_ON_EVERY_INPUT;

    fn variables() -> Vec<Variable> {
        let mut variables = variables_of(&[]);
        for (name, array_vr) in [("A", 4), ("B", 5), ("C", 6), ("D", 7)] {
            for k in 0..N * N {
                let (i, j) = (k / N + 1, k % N + 1);
                let start = if i == j { 1.0 } else { 0.0 };
                let what = format!("element ({i},{j}) of matrix {name}");
                variables.push(var(
                    &format!("{name}[{i},{j}]"),
                    vr(array_vr, k),
                    Parameter,
                    Fixed,
                    Some(start),
                    "",
                    &what,
                ));
            }
        }
        #[rustfmt::skip] // a table: one vector a row
        let vectors: [VectorRow; 5] = [
            (|i| format!("x0[{i}]"),     8,  Parameter, Fixed,      |_| Some(0.0),      "initial state"),
            (|i| format!("u[{i}]"),      9,  Input,     Continuous, |i| Some(i as f64), "input"),
            (|i| format!("y[{i}]"),      10, Output,    Continuous, |_| None,           "y = C x + D u"),
            (|i| format!("x[{i}]"),      11, Local,     Continuous, |_| Some(0.0),      "state"),
            (|i| format!("der(x[{i}])"), 12, Local,     Continuous, |_| None,           "A x + B u"),
        ];
        for (name, array_vr, causality, variability, start, what) in vectors {
            for k in 0..N {
                let i = k + 1;
                let v = vr(array_vr, k);
                variables.push(var(&name(i), v, causality, variability, start(i), "", what));
            }
        }
        variables
    }

    fn initialize(v: &mut [f64]) {
        for i in 0..N {
            v[X + i] = v[X0 + i];
        }
    }

    /// `calculateValues`, loop by loop in the C order.
    fn calculate(v: &mut [f64]) {
        v[DER_X..DER_X + N].fill(0.0);
        add_product(v, DER_X, A, X);
        add_product(v, DER_X, B, U);
        v[Y..Y + N].fill(0.0);
        add_product(v, Y, C, X);
        add_product(v, Y, D, U);
    }

    fn states(v: &[f64], x: &mut [f64]) {
        x.copy_from_slice(&v[X..X + N]);
    }

    fn set_states(v: &mut [f64], x: &[f64]) {
        v[X..X + N].copy_from_slice(x);
    }

    fn derivatives(v: &mut [f64], dx: &mut [f64]) {
        Self::calculate(v);
        dx.copy_from_slice(&v[DER_X..DER_X + N]);
    }
}

/// `v[to..to + N] += M·v[from..from + N]` for the row-major `N × N` matrix `M` at slot
/// `matrix`, summed row by row and left to right as `model.c` does.
fn add_product(v: &mut [f64], to: usize, matrix: usize, from: usize) {
    for i in 0..N {
        for j in 0..N {
            v[to + i] += v[matrix + N * i + j] * v[from + j];
        }
    }
}
