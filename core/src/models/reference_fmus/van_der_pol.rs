//! `ReferenceFMU.VanDerPol`: the Van der Pol oscillator (Reference FMUs
//! `VanDerPol/model.c`)
//!
//! `der(x0) = x1`, `der(x1) = mu·((1 − x0²)·x1) − x0`, `x0(0) = 2`, `x1(0) = 0`, `mu = 1`,
//! forward Euler with `FIXED_SOLVER_STEP = 1e-2`. It provides exact directional
//! derivatives (`getPartialDerivative`): `∂der(x0)/∂x = [0, 1]`,
//! `∂der(x1)/∂x = [−2·x0·x1·mu − 1, mu·(1 − x0²)]`, i.e. `[[0, 1], [−1, −3]]` at the start
//! (asserted by the Reference FMUs' `examples/jacobian.c`); also `∂der(x1)/∂mu =
//! (1 − x0²)·x1` and `∂xi/∂xj = δij` (the C code returns 0 for pairs it does not list).
//!
//! Value references: time 0, x0 1 (output), der(x0) 2, x1 3 (output), der(x1) 4, mu 5.

use super::engine::RefModel;
use super::{base_capabilities, VarRow};
use crate::module::{Capabilities, Causality::*, ValueRef, Variability::*};

const X0: usize = 1;
const DER_X0: usize = 2;
const X1: usize = 3;
const DER_X1: usize = 4;
const MU: usize = 5;

/// The Van der Pol model.
pub(super) struct VanDerPol;

impl RefModel for VanDerPol {
    const FIXED_SOLVER_STEP: f64 = 1e-2;
    const NX: usize = 2;

    const MODEL_NAME: &'static str = super::VAN_DER_POL_ID;
    const EXPOSES_EQUATIONS: bool = true;
    #[rustfmt::skip] // a table: one variable a row
    const VARIABLES: &'static [VarRow] = &[
        ("x0",      1, Output,    Continuous, Some(2.0), "", "the first state"),
        ("der(x0)", 2, Local,     Continuous, None,      "", "der(x0) = x1"),
        ("x1",      3, Output,    Continuous, Some(0.0), "", "the second state"),
        ("der(x1)", 4, Local,     Continuous, None,      "", "der(x1) = mu ((1 - x0^2) x1) - x0"),
        ("mu",      5, Parameter, Fixed,      Some(1.0), "", "damping (nonlinearity) parameter"),
    ];

    fn capabilities() -> Capabilities {
        Capabilities {
            provides_directional_derivatives: true,
            ..base_capabilities(Self::FIXED_SOLVER_STEP)
        }
    }

    fn calculate(v: &mut [f64]) {
        v[DER_X0] = v[X1];
        v[DER_X1] = v[MU] * ((1.0 - v[X0] * v[X0]) * v[X1]) - v[X0];
    }

    fn states(v: &[f64], x: &mut [f64]) {
        x[0] = v[X0];
        x[1] = v[X1];
    }

    fn set_states(v: &mut [f64], x: &[f64]) {
        v[X0] = x[0];
        v[X1] = x[1];
        Self::calculate(v);
    }

    fn derivatives(v: &mut [f64], dx: &mut [f64]) {
        Self::calculate(v);
        dx[0] = v[DER_X0];
        dx[1] = v[DER_X1];
    }

    fn partial_derivative(v: &[f64], unknown: ValueRef, known: ValueRef) -> Option<f64> {
        let (x0, x1, mu) = (v[X0], v[X1], v[MU]);
        Some(match (unknown.0 as usize, known.0 as usize) {
            (DER_X0, X0) => 0.0,
            (DER_X0, X1) => 1.0,
            (DER_X0, MU) => 0.0,
            (DER_X1, X0) => -2.0 * x0 * x1 * mu - 1.0,
            (DER_X1, X1) => mu * (1.0 - x0 * x0),
            (DER_X1, MU) => (1.0 - x0 * x0) * x1,
            (a @ (X0 | X1), b @ (X0 | X1)) => f64::from(u8::from(a == b)),
            (X0 | X1, MU) => 0.0,
            _ => return None,
        })
    }
}
