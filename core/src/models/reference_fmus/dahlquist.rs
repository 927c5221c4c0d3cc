//! `ReferenceFMU.Dahlquist`: the Dahlquist test equation `der(x) = −k·x`, `x(0) = 1`,
//! `k = 1` (Reference FMUs `Dahlquist/model.c`). Exact solution `x = e^{−k t}`; the
//! forward-Euler wrapper with `FIXED_SOLVER_STEP = 0.1` gives `x(n·0.1) = 0.9ⁿ`, which is
//! what `Dahlquist_out.csv` holds. No events, no inputs.
//!
//! Value references: time 0, x 1 (output), der(x) 2, k 3 (fixed parameter).

use super::engine::RefModel;
use super::VarRow;
use crate::module::{Causality::*, Variability::*};

const X: usize = 1;
const DER_X: usize = 2;
const K: usize = 3;

/// The Dahlquist model.
pub(super) struct Dahlquist;

impl RefModel for Dahlquist {
    const FIXED_SOLVER_STEP: f64 = 0.1;
    const NX: usize = 1;

    const MODEL_NAME: &'static str = super::DAHLQUIST_ID;
    const EXPOSES_EQUATIONS: bool = true;
    #[rustfmt::skip] // a table: one variable a row
    const VARIABLES: &'static [VarRow] = &[
        ("x",      1, Output,    Continuous, Some(1.0), "",    "the only state"),
        ("der(x)", 2, Local,     Continuous, None,      "1/s", "der(x) = -k x"),
        ("k",      3, Parameter, Fixed,      Some(1.0), "1/s", "decay rate"),
    ];

    /// `calculateValues`: `der_x = -k * x`.
    fn calculate(v: &mut [f64]) {
        v[DER_X] = -v[K] * v[X];
    }

    fn states(v: &[f64], x: &mut [f64]) {
        x[0] = v[X];
    }

    fn set_states(v: &mut [f64], x: &[f64]) {
        v[X] = x[0];
    }

    fn derivatives(v: &mut [f64], dx: &mut [f64]) {
        Self::calculate(v);
        dx[0] = v[DER_X];
    }
}
