//! [`Executor`]: who steps the modules of one Jacobi sweep. Within such a sweep no module
//! reads another's new outputs, so the modules are independent: each task touches only its
//! own [`ModuleSlot`]. [`Sequential`] steps them one after the other in index order; an
//! executor on threads or workers may run them at the same time and must give the same
//! numbers (each module's arithmetic does not depend on the others).

use super::{CoupledSystem, ModuleSlot};
use crate::error::MasterError;
use crate::module::StepReport;

/// The work for one module: set its inputs, step it, read its outputs. `None` means the
/// module discarded the step.
pub type SlotTask<'t> =
    dyn Fn(&mut ModuleSlot<'_>) -> Result<Option<StepReport>, MasterError> + Sync + 't;

/// Runs [`SlotTask`]s on chosen modules.
pub trait Executor: Send {
    /// Runs `task` on every module `m` with `selected[m]`, storing its result in
    /// `reports[m]`. On errors, the error of the lowest module index is returned.
    fn sweep(
        &mut self,
        sys: &mut CoupledSystem,
        selected: &[bool],
        task: &SlotTask<'_>,
        reports: &mut [Option<StepReport>],
    ) -> Result<(), MasterError>;
}

/// One module after the other, in index order.
#[derive(Clone, Copy, Debug, Default)]
pub struct Sequential;

impl Executor for Sequential {
    fn sweep(
        &mut self,
        sys: &mut CoupledSystem,
        selected: &[bool],
        task: &SlotTask<'_>,
        reports: &mut [Option<StepReport>],
    ) -> Result<(), MasterError> {
        for mut slot in sys.slots().filter(|s| selected[s.index]) {
            reports[slot.index] = task(&mut slot)?;
        }
        Ok(())
    }
}
