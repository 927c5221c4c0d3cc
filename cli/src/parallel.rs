//! [`ThreadPoolExecutor`]: the driver's [`Executor`] seam on a rayon thread pool, so the
//! modules of one Jacobi sweep step at the same time (`cosim run --threads N`). Each task
//! touches only its own module slot and reads nothing another writes in the sweep, so the
//! numbers, and the CSV bytes, do not depend on the thread count (tests/chain.rs).

use cosim_core::error::MasterError;
use cosim_core::master::{Executor, ModuleSlot, Sweep};
use rayon::prelude::*;

/// Steps the selected modules of each sweep on `threads` threads.
pub struct ThreadPoolExecutor {
    pool: rayon::ThreadPool,
}

impl ThreadPoolExecutor {
    /// A pool of `threads` threads.
    pub fn new(threads: usize) -> Result<Self, String> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(|e| format!("cannot start {threads} threads: {e}"))?;
        Ok(ThreadPoolExecutor { pool })
    }
}

impl Executor for ThreadPoolExecutor {
    fn sweep(&mut self, s: Sweep<'_, '_>) -> Result<(), MasterError> {
        let (selected, task) = (s.selected, s.task);
        let mut slots: Vec<ModuleSlot<'_>> =
            s.sys.slots().filter(|slot| selected[slot.index]).collect();
        let results: Vec<_> = self.pool.install(|| {
            slots
                .par_iter_mut()
                .map(|slot| (slot.index, task(slot)))
                .collect()
        });
        // In index order: the first error is the lowest module's, as in a sequential sweep.
        for (index, result) in results {
            s.reports[index] = result?;
        }
        Ok(())
    }
}
