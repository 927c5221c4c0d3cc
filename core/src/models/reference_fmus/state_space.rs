//! `ReferenceFMU.StateSpace`: `der(x) = A·x + B·u`, `y = C·x + D·u` with
//! `A = B = C = D = I₃`, `x0 = 0`, `u = [1, 2, 3]` (Reference FMUs `StateSpace/model.c`).
//! Forward Euler with `FIXED_SOLVER_STEP = 1e-3` (`config.h`), so with constant `u` each
//! component is `y = (1 + 1e−3)^{1000 t}·u`, e.g. 2.7169239322358925 at `t = 1` for
//! `u = 1`, as in `StateSpace_out.csv`. (Landscape note §6 lists the internal step as 1;
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
use super::{base_capabilities, var};
use crate::module::{
    Causality::*, DependencyKind, ModuleDescription, OutputDependency, ValueRef, Variability::*,
    Variable,
};
use alloc::format;
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

fn vr(array_vr: u32, k: usize) -> u32 {
    100 * array_vr + k as u32 + 1
}

impl RefModel for StateSpace {
    const FIXED_SOLVER_STEP: f64 = 1e-3;
    const NX: usize = N;

    fn description() -> ModuleDescription {
        let mut variables: Vec<Variable> = Vec::with_capacity(DER_X + N);
        variables.push(var(
            "time",
            0,
            Independent,
            Continuous,
            None,
            "s",
            "simulation time",
        ));
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
        for k in 0..N {
            let i = k + 1;
            variables.push(var(
                &format!("x0[{i}]"),
                vr(8, k),
                Parameter,
                Fixed,
                Some(0.0),
                "",
                "initial state",
            ));
        }
        for k in 0..N {
            let i = k + 1;
            variables.push(var(
                &format!("u[{i}]"),
                vr(9, k),
                Input,
                Continuous,
                Some(i as f64),
                "",
                "input",
            ));
        }
        for k in 0..N {
            variables.push(var(
                &format!("y[{}]", k + 1),
                vr(10, k),
                Output,
                Continuous,
                None,
                "",
                "y = C x + D u",
            ));
        }
        for k in 0..N {
            variables.push(var(
                &format!("x[{}]", k + 1),
                vr(11, k),
                Local,
                Continuous,
                Some(0.0),
                "",
                "state",
            ));
        }
        for k in 0..N {
            let i = k + 1;
            variables.push(var(
                &format!("der(x[{i}])"),
                vr(12, k),
                Local,
                Continuous,
                None,
                "",
                "A x + B u",
            ));
        }
        // y depends on u through D, a parameter: declared for every pair.
        let output_dependencies = (0..N)
            .map(|k| OutputDependency {
                output: ValueRef(vr(10, k)),
                inputs: (0..N)
                    .map(|j| (ValueRef(vr(9, j)), DependencyKind::Constant))
                    .collect(),
            })
            .collect();
        ModuleDescription {
            model_name: super::STATE_SPACE_ID.into(),
            variables,
            capabilities: base_capabilities(Self::FIXED_SOLVER_STEP),
            output_dependencies,
        }
    }

    fn initialize(v: &mut [f64]) {
        for i in 0..N {
            v[X + i] = v[X0 + i];
        }
    }

    /// `calculateValues`, loop by loop in the C order.
    fn calculate(v: &mut [f64]) {
        for i in 0..N {
            v[DER_X + i] = 0.0;
            for j in 0..N {
                v[DER_X + i] += v[A + N * i + j] * v[X + j];
            }
        }
        for i in 0..N {
            for j in 0..N {
                v[DER_X + i] += v[B + N * i + j] * v[U + j];
            }
        }
        for i in 0..N {
            v[Y + i] = 0.0;
            for j in 0..N {
                v[Y + i] += v[C + N * i + j] * v[X + j];
            }
        }
        for i in 0..N {
            for j in 0..N {
                v[Y + i] += v[D + N * i + j] * v[U + j];
            }
        }
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
