//! Gauss-Seidel (sequential) explicit coupling: modules step in a given sequence; inputs
//! whose source module already stepped in this macro-step use the polynomial through the
//! new sample and the previous `p` samples (interpolation), the others extrapolate
//! (seed-000 digest §1.5). With `p = 0` that is the classic "use the newest value".

use super::explicit::ExplicitWork;
use super::{events, CoupledSystem, MacroStepOutcome};
use crate::error::MasterError;
use alloc::format;
use alloc::string::String;

/// One Gauss-Seidel macro-step from `t` over `h`, modules in `sequence`.
pub(super) fn step(
    work: &mut ExplicitWork,
    sequence: &[usize],
    sys: &mut CoupledSystem,
    t: f64,
    h: f64,
) -> Result<MacroStepOutcome, MasterError> {
    events::macro_step(work, Some(sequence), sys, t, h)
}

/// No module index twice.
fn check_distinct(sequence: &[usize]) -> Result<(), MasterError> {
    for (k, m) in sequence.iter().enumerate() {
        if sequence[..k].contains(m) {
            return Err(MasterError::InvalidSettings(format!(
                "Gauss-Seidel sequence lists module index {m} twice"
            )));
        }
    }
    Ok(())
}

/// Every module exactly once (indices into `names`).
pub(super) fn check_sequence(sequence: &[usize], names: &[String]) -> Result<(), MasterError> {
    check_distinct(sequence)?;
    if let Some(m) = sequence.iter().find(|&&m| m >= names.len()) {
        return Err(MasterError::InvalidSettings(format!(
            "Gauss-Seidel sequence names module index {m}, but there are only {} modules",
            names.len()
        )));
    }
    if let Some(missing) = (0..names.len()).find(|m| !sequence.contains(m)) {
        return Err(MasterError::InvalidSettings(format!(
            "Gauss-Seidel sequence does not include module `{}`",
            names[missing]
        )));
    }
    Ok(())
}
