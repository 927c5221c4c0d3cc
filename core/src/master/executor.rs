//! [`Executor`]: who steps the modules of one Jacobi sweep. Within such a sweep no module
//! reads another's new outputs, so the modules are independent: each task touches only its
//! own [`ModuleSlot`]. [`Sequential`] steps them one after the other in index order; an
//! executor on threads or workers may run them at the same time and must give the same
//! numbers (each module's arithmetic does not depend on the others). An executor across
//! processes also fills in, through [`Executor::complete`], what the error-controlled
//! masters read from modules another process steps (their monitored states).

use super::{CoupledSystem, ModuleSlot};
use crate::error::MasterError;
use crate::module::StepReport;
use core::ops::Range;

/// The work for one module: set its inputs, step it, read its outputs. `None` means the
/// module discarded the step.
pub type SlotTask<'t> =
    dyn Fn(&mut ModuleSlot<'_>) -> Result<Option<StepReport>, MasterError> + Sync + 't;

/// One sweep: run `task` on every module `m` with `selected[m]` and store its result in
/// `reports[m]`.
pub struct Sweep<'s, 't> {
    /// The system whose slots the tasks step.
    pub sys: &'s mut CoupledSystem,
    /// Which modules take part.
    pub selected: &'s [bool],
    /// The work for one module.
    pub task: &'s SlotTask<'t>,
    /// One result per module (left as it is for modules not selected).
    pub reports: &'s mut [Option<StepReport>],
}

/// Runs the [`SlotTask`]s of a [`Sweep`]. On errors, the error of the lowest module index
/// is returned, as in a sequential sweep.
pub trait Executor: Send {
    /// Runs the sweep.
    fn sweep(&mut self, sweep: Sweep<'_, '_>) -> Result<(), MasterError>;

    /// Makes `values` whole where this process read only the blocks of the modules it
    /// steps (`blocks[m]`: module `m`'s range of `values`, empty where it has none), so
    /// every process holds the numbers of one process, in module order. In one process
    /// every block is read already: nothing to do (the default).
    fn complete(&mut self, blocks: &[Range<usize>], values: &mut [f64]) -> Result<(), MasterError> {
        let _ = (blocks, values);
        Ok(())
    }
}

/// One module after the other, in index order.
#[derive(Clone, Copy, Debug, Default)]
pub struct Sequential;

impl Executor for Sequential {
    fn sweep(&mut self, s: Sweep<'_, '_>) -> Result<(), MasterError> {
        for mut slot in s.sys.slots().filter(|slot| s.selected[slot.index]) {
            s.reports[slot.index] = (s.task)(&mut slot)?;
        }
        Ok(())
    }
}
