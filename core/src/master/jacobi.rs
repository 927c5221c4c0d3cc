//! Jacobi (parallel) explicit coupling: every module steps on inputs extrapolated from
//! the outputs at `t_n` and before (seed-000 digest §1.5, eqn 3). No module sees another's
//! new outputs within the macro-step, so the order of the module calls is irrelevant; with
//! events, modules that may return early step first ([`super::events`]).

use super::explicit::ExplicitWork;
use super::{events, CoupledSystem, MacroStepOutcome};
use crate::error::MasterError;

/// One Jacobi macro-step from `t` over `h`.
pub(super) fn step(
    work: &mut ExplicitWork,
    sys: &mut CoupledSystem,
    t: f64,
    h: f64,
) -> Result<MacroStepOutcome, MasterError> {
    events::macro_step(work, None, sys, t, h)
}
