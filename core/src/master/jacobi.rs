//! Jacobi (parallel) explicit coupling: every module steps on inputs extrapolated from
//! the outputs at `t_n` and before (seed-000 digest §1.5, eqn 3). No module sees another's
//! new outputs within the macro-step, so the order of the module calls is irrelevant.

use super::explicit::ExplicitWork;
use super::CoupledSystem;
use crate::error::MasterError;

/// One Jacobi macro-step from `t` over `h`.
pub(super) fn step(
    work: &mut ExplicitWork,
    sys: &mut CoupledSystem,
    t: f64,
    h: f64,
) -> Result<(), MasterError> {
    work.begin(t, h, false)?;
    for m in 0..sys.n_modules() {
        work.advance_module(sys, m, t, h)?;
    }
    work.finish(sys, t + h);
    Ok(())
}
