//! The memory budget of binary modules: one [`MemoryBudget`] shared by every module of a
//! run (by default, every module of the process: the CLI, or one worker of the page), so
//! that twenty modules, or one module with twenty memories, cannot together take more
//! than the budget. Each module's [`Limiter`] charges its memories and tables to it
//! before wasmi allocates them and gives the bytes back when the module is dropped.

use alloc::sync::Arc;
use core::fmt;
use core::sync::atomic::{AtomicUsize, Ordering};
#[cfg(feature = "wasmi")]
use wasmi::ResourceLimiter;
#[cfg(feature = "wasmi")]
use wasmi_core::LimiterError;

/// Bytes in use by all binary modules at once, by default.
pub const DEFAULT_BUDGET_BYTES: usize = 256 << 20;

struct Counter {
    limit: usize,
    used: AtomicUsize,
}

static PROCESS: Counter = Counter {
    limit: DEFAULT_BUDGET_BYTES,
    used: AtomicUsize::new(0),
};

/// Bytes binary modules may hold together (linear memories and tables).
#[derive(Clone)]
pub struct MemoryBudget(Budget);

#[derive(Clone)]
enum Budget {
    Process,
    Own(Arc<Counter>),
}

impl MemoryBudget {
    /// The budget every module of this process shares ([`DEFAULT_BUDGET_BYTES`]).
    pub fn process() -> Self {
        MemoryBudget(Budget::Process)
    }

    /// A budget of its own, for the modules that are given a clone of it.
    pub fn new(limit_bytes: usize) -> Self {
        MemoryBudget(Budget::Own(Arc::new(Counter {
            limit: limit_bytes,
            used: AtomicUsize::new(0),
        })))
    }

    fn counter(&self) -> &Counter {
        match &self.0 {
            Budget::Process => &PROCESS,
            Budget::Own(c) => c,
        }
    }

    /// The limit, in bytes.
    pub fn limit(&self) -> usize {
        self.counter().limit
    }

    /// Bytes charged now.
    pub fn used(&self) -> usize {
        self.counter().used.load(Ordering::Relaxed)
    }

    /// Takes `bytes` if they fit.
    #[cfg_attr(not(feature = "wasmi"), allow(dead_code))]
    fn try_charge(&self, bytes: usize) -> bool {
        let c = self.counter();
        c.used
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |used| {
                used.checked_add(bytes).filter(|&u| u <= c.limit)
            })
            .is_ok()
    }

    #[cfg_attr(not(feature = "wasmi"), allow(dead_code))]
    fn release(&self, bytes: usize) {
        self.counter().used.fetch_sub(bytes, Ordering::AcqRel);
    }
}

impl Default for MemoryBudget {
    fn default() -> Self {
        Self::process()
    }
}

impl PartialEq for MemoryBudget {
    /// The same budget (not merely the same numbers).
    fn eq(&self, other: &Self) -> bool {
        core::ptr::eq(self.counter(), other.counter())
    }
}

impl fmt::Debug for MemoryBudget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "MemoryBudget({} of {} bytes)", self.used(), self.limit())
    }
}

#[cfg(feature = "wasmi")]
pub(crate) use limiter::Limiter;

#[cfg(feature = "wasmi")]
mod limiter {
    use super::*;
    use alloc::format;
    use alloc::string::String;

    /// Bytes charged per table element (a function reference and its bookkeeping).
    pub const TABLE_ELEMENT_BYTES: usize = 16;

    /// One module's share: its own caps, and what it charged to the shared budget.
    pub(crate) struct Limiter {
        budget: MemoryBudget,
        max_memory_bytes: usize,
        max_table_elements: usize,
        /// Bytes of linear memory (all memories) and table elements this module holds.
        memory: usize,
        charged: usize,
        /// Why the last growth was refused, for the error message.
        pub denied: Option<String>,
    }

    impl Limiter {
        pub fn new(
            budget: MemoryBudget,
            max_memory_bytes: usize,
            max_table_elements: usize,
        ) -> Self {
            Limiter {
                budget,
                max_memory_bytes,
                max_table_elements,
                memory: 0,
                charged: 0,
                denied: None,
            }
        }

        fn charge(&mut self, bytes: usize, what: &str) -> bool {
            if self.budget.try_charge(bytes) {
                self.charged += bytes;
                return true;
            }
            self.denied = Some(format!(
                "{what} would exceed the memory budget shared by all binary modules \
             ({} of {} bytes in use; RuntimeLimits::budget)",
                self.budget.used(),
                self.budget.limit()
            ));
            false
        }
    }

    impl ResourceLimiter for Limiter {
        fn memory_growing(
            &mut self,
            current: usize,
            desired: usize,
            _maximum: Option<usize>,
        ) -> Result<bool, LimiterError> {
            let extra = desired.saturating_sub(current);
            let total = self.memory.saturating_add(extra);
            if total > self.max_memory_bytes {
                self.denied = Some(format!(
                    "linear memory of {total} bytes (all memories of the module) is more than \
                 RuntimeLimits::max_memory_bytes = {}",
                    self.max_memory_bytes
                ));
                return Ok(false);
            }
            if !self.charge(extra, &format!("growing linear memory to {desired} bytes")) {
                return Ok(false);
            }
            self.memory = total;
            Ok(true)
        }

        fn table_growing(
            &mut self,
            current: usize,
            desired: usize,
            _maximum: Option<usize>,
        ) -> Result<bool, LimiterError> {
            if desired > self.max_table_elements {
                self.denied = Some(format!(
                "a table of {desired} elements is more than RuntimeLimits::max_table_elements = {}",
                self.max_table_elements
            ));
                return Ok(false);
            }
            let extra = desired
                .saturating_sub(current)
                .saturating_mul(TABLE_ELEMENT_BYTES);
            Ok(self.charge(extra, &format!("a table of {desired} elements")))
        }

        fn instances(&self) -> usize {
            1
        }

        // Counts are generous: the byte budget is what binds.
        fn tables(&self) -> usize {
            64
        }

        fn memories(&self) -> usize {
            64
        }
    }

    impl Drop for Limiter {
        fn drop(&mut self) {
            self.budget.release(self.charged);
        }
    }
}
