//! `ReferenceFMU.BouncingBall`: a ball falling under gravity and bouncing with restitution
//! `e` (Reference FMUs `BouncingBall/model.c`).
//!
//! `der(h) = v`, `der(v) = g`, `h(0) = 1 m`, `v(0) = 0`, `g = −9.81 m/s²`, `e = 0.7`
//! (tunable, 0.5…1). One event indicator `z = h`, with the model's hysteresis: for
//! `−1e−10 < h ≤ 0` and `v > 0` it reports `z = −1e−10`, so a ball just lifted off is not
//! seen crossing zero again. At an event with `h ≤ 0` and `v < 0` the ball is put at
//! `h := DBL_MIN` (slightly above 0, to avoid a new zero crossing) and `v := −e·v`; when
//! the new speed is below `v_min = 0.1 m/s` it stops for good (`v := 0`, `g := 0`). (The
//! model's readme says `h := 0`; the code uses `DBL_MIN`, which is what
//! `BouncingBall_out.csv` shows at rest: 2.2250738585072014e−308.)
//!
//! Forward Euler with `FIXED_SOLVER_STEP = 1e-3`; the event is located to that step.
//! With `earlyReturnAllowed` the step returns at the event; with `eventModeUsed` the
//! bounce itself happens in Event Mode (`fmi3UpdateDiscreteStates`). Output derivatives of
//! order 1: `dh/dt = v`, `dv/dt = g`.
//!
//! Value references: time 0, h 1, der(h) 2, v 3, der(v) 4, g 5, e 6, v_min 7.

use super::engine::{EventCtx, RefModel};
use super::{base_capabilities, VarRow};
use crate::module::{Capabilities, Causality::*, ModuleError, ValueRef, Variability::*};

const H: usize = 1;
const DER_H: usize = 2;
const V: usize = 3;
const DER_V: usize = 4;
const G: usize = 5;
const E: usize = 6;
/// `V_MIN` of `model.c`, m/s.
const V_MIN: f64 = 0.1;
/// `EVENT_EPSILON` of `model.c`: width of the indicator's hysteresis band, m.
const EVENT_EPSILON: f64 = 1e-10;

/// The bouncing-ball model.
pub(super) struct BouncingBall;

impl RefModel for BouncingBall {
    const FIXED_SOLVER_STEP: f64 = 1e-3;
    const NX: usize = 2;
    const NZ: usize = 1;

    const MODEL_NAME: &'static str = super::BOUNCING_BALL_ID;
    #[rustfmt::skip] // a table: one variable a row
    const VARIABLES: &'static [VarRow] = &[
        ("h",      1, Output,    Continuous, Some(1.0),   "m",    "height of the ball"),
        ("der(h)", 2, Local,     Continuous, None,        "m/s",  "der(h) = v"),
        ("v",      3, Output,    Continuous, Some(0.0),   "m/s",  "velocity of the ball"),
        ("der(v)", 4, Local,     Continuous, None,        "m/s2", "der(v) = g"),
        ("g",      5, Parameter, Fixed,      Some(-9.81), "m/s2", "gravity acting on the ball"),
        ("e",      6, Parameter, Tunable,    Some(0.7),   "",     "coefficient of restitution (0.5 to 1)"),
        ("v_min",  7, Parameter, Constant,   Some(V_MIN), "m/s",  "below this bounce speed the ball stays down"),
    ];

    fn capabilities() -> Capabilities {
        Capabilities {
            max_output_derivative_order: 1,
            might_return_early_from_do_step: true,
            has_event_mode: true,
            ..base_capabilities(Self::FIXED_SOLVER_STEP)
        }
    }

    fn calculate(v: &mut [f64]) {
        v[DER_H] = v[V];
        v[DER_V] = v[G];
    }

    fn states(v: &[f64], x: &mut [f64]) {
        x[0] = v[H];
        x[1] = v[V];
    }

    fn set_states(v: &mut [f64], x: &[f64]) {
        v[H] = x[0];
        v[V] = x[1];
    }

    fn derivatives(v: &mut [f64], dx: &mut [f64]) {
        dx[0] = v[V];
        dx[1] = v[G];
    }

    fn event_indicators(v: &[f64], z: &mut [f64]) {
        z[0] = if v[H] > -EVENT_EPSILON && v[H] <= 0.0 && v[V] > 0.0 {
            -EVENT_EPSILON
        } else {
            v[H]
        };
    }

    fn event_update(v: &mut [f64], ctx: &mut EventCtx) -> Result<(), ModuleError> {
        if v[H] <= 0.0 && v[V] < 0.0 {
            v[H] = f64::MIN_POSITIVE; // DBL_MIN
            v[V] = -v[V] * v[E];
            if v[V] < V_MIN {
                v[V] = 0.0;
                v[G] = 0.0;
            }
        }
        ctx.terminate = false;
        ctx.next_event_time = None;
        Ok(())
    }

    fn output_derivative(v: &[f64], vr: ValueRef, order: u32) -> Option<f64> {
        match (vr.0 as usize, order) {
            (H, 1) => Some(v[V]),
            (V, 1) => Some(v[G]),
            _ => None,
        }
    }
}
