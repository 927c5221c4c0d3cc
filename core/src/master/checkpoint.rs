//! [`Checkpoint`]: the state of the whole coupled system at a communication point, saved
//! by the [`super::Run`] driver before an attempt that may be rejected and restored after
//! a rejection, so no algorithm rolls modules back itself.
//!
//! It holds each module's FMU state (`fmi3GetFMUState`, for the modules that declare
//! `canGetAndSetFMUState`) and the exchanged inputs and outputs. A restore touches only the
//! modules that changed since the save ([`CoupledSystem::changed`]): a module that never
//! stepped in the rejected attempt needs no state capability.

use super::CoupledSystem;
use crate::error::{MasterError, RejectReason};
use crate::module::ModuleState;
use alloc::format;
use alloc::vec;
use alloc::vec::Vec;

/// Saved module states and exchanged values at one communication point.
#[derive(Debug, Default)]
pub struct Checkpoint {
    /// Time of the save in s (`None` before the first save).
    t: Option<f64>,
    /// One slot per module, reused from save to save (no allocation once warm).
    states: Vec<ModuleState>,
    /// Whether `states[m]` holds module `m`'s state at `t`.
    saved: Vec<bool>,
    inputs: Vec<f64>,
    outputs: Vec<f64>,
}

impl Checkpoint {
    /// Room for the states and exchanged values of `sys`.
    pub fn new(sys: &CoupledSystem) -> Self {
        Checkpoint {
            t: None,
            states: (0..sys.n_modules()).map(|_| ModuleState::empty()).collect(),
            saved: vec![false; sys.n_modules()],
            inputs: vec![0.0; sys.inputs().len()],
            outputs: vec![0.0; sys.outputs().len()],
        }
    }

    /// Time of the last save in s.
    pub fn time(&self) -> Option<f64> {
        self.t
    }

    /// Saves every module that can save its state, and the exchanged values, at `t`.
    pub fn save(&mut self, sys: &mut CoupledSystem, t: f64) -> Result<(), MasterError> {
        self.inputs.copy_from_slice(sys.inputs());
        self.outputs.copy_from_slice(sys.outputs());
        for m in 0..sys.n_modules() {
            self.saved[m] = can_save(sys, m);
            if self.saved[m] {
                let r = sys.subsystem_mut(m).save_state_into(&mut self.states[m]);
                r.map_err(|e| sys.module_error(m, t, e))?;
            }
        }
        self.t = Some(t);
        sys.clear_changed();
        Ok(())
    }

    /// Restores every module that changed since the save, and the exchanged values, after
    /// an attempt was rejected for `reason`. Returns how many modules were restored; a
    /// changed module without a saved state is [`MasterError::MissingCapability`].
    pub fn restore(
        &mut self,
        sys: &mut CoupledSystem,
        reason: &RejectReason,
    ) -> Result<u32, MasterError> {
        let t = self.t.unwrap_or(f64::NAN);
        let mut restored = 0;
        for m in 0..sys.n_modules() {
            if !sys.changed(m) {
                continue;
            }
            if !(self.saved[m] && self.t.is_some()) {
                return Err(MasterError::MissingCapability {
                    module: sys.name(m).into(),
                    capability: "canGetAndSetFMUState",
                    needed_by: needed_by(t, reason),
                });
            }
            let r = sys.subsystem_mut(m).set_state(&self.states[m]);
            r.map_err(|e| sys.module_error(m, t, e))?;
            restored += 1;
        }
        let (inputs, outputs) = sys.exchange_mut();
        inputs.copy_from_slice(&self.inputs);
        outputs.copy_from_slice(&self.outputs);
        sys.clear_changed();
        Ok(restored)
    }
}

fn can_save(sys: &CoupledSystem, m: usize) -> bool {
    sys.subsystem(m)
        .description()
        .capabilities
        .can_get_and_set_fmu_state
}

/// What a rollback to `t` was for, as the capability error says it.
fn needed_by(t: f64, reason: &RejectReason) -> alloc::string::String {
    match reason {
        RejectReason::EarlyReturn { module, t_event } => format!(
            "rolling back to t = {t} s because module `{module}` returned early at t = {t_event} s \
             (step the modules that may return early first)"
        ),
        other => format!("rolling back to t = {t} s ({other})"),
    }
}

/// The first module that cannot save its state, for refusing a step controller that may
/// reject before the run starts.
pub(super) fn first_without_state(sys: &CoupledSystem) -> Option<usize> {
    (0..sys.n_modules()).find(|&m| !can_save(sys, m))
}
