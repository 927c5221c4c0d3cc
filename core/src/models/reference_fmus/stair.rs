//! `ReferenceFMU.Stair`: a counter incremented by time events every second (Reference FMUs
//! `Stair/model.c`). `counter` starts at 1; the first time event is at 1 s after the start;
//! each event increments the counter and schedules the next one a second later; at
//! `counter ≥ 10` the model requests `terminateSimulation` (it refuses to count past 10).
//! No continuous states: the wrapper's internal step (`FIXED_SOLVER_STEP = 0.2`) only
//! advances time and checks for time events.
//!
//! The counter is an `Int32` in the Reference FMU; here it is a Float64 output with
//! discrete variability (the module interface carries Float64 only).
//!
//! Value references: time 0, counter 1 (output, discrete).

use super::engine::{is_close, EventCtx, RefModel};
use super::{base_capabilities, VarRow};
use crate::module::{Capabilities, Causality::*, ModuleError, Variability::*};

const COUNTER: usize = 1;
/// The model refuses to count beyond this (`setInt32` / `eventUpdate` in `model.c`).
const COUNTER_MAX: f64 = 10.0;

/// The Stair model.
pub(super) struct Stair;

impl RefModel for Stair {
    const FIXED_SOLVER_STEP: f64 = 0.2;

    const MODEL_NAME: &'static str = super::STAIR_ID;
    const VARIABLES: &'static [VarRow] = &[(
        "counter",
        1,
        Output,
        Discrete,
        Some(1.0),
        "",
        "counts the seconds",
    )];

    fn capabilities() -> Capabilities {
        Capabilities {
            has_event_mode: true,
            might_return_early_from_do_step: true,
            ..base_capabilities(Self::FIXED_SOLVER_STEP)
        }
    }

    fn first_time_event() -> Option<f64> {
        Some(1.0)
    }

    /// `calculateCounter` + `eventUpdate`.
    fn event_update(v: &mut [f64], ctx: &mut EventCtx) -> Result<(), ModuleError> {
        if let Some(te) = ctx.next_event_time {
            if is_close(ctx.time, te) {
                v[COUNTER] += 1.0;
                ctx.next_event_time = Some(te + 1.0);
            }
        }
        if v[COUNTER] > COUNTER_MAX {
            return Err(ModuleError::numerical(
                "variable `counter` cannot be incremented for values >= 10",
            ));
        }
        ctx.terminate = v[COUNTER] >= COUNTER_MAX;
        Ok(())
    }
}
