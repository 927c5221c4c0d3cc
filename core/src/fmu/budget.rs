//! The memory budget of binary modules: one [`MemoryBudget`] shared by every module of a
//! run (by default, every module of the process: the CLI, or one worker of the page), so
//! that twenty modules, or one module with twenty memories, cannot together take more
//! than the budget. Each module's [`MemoryAccount`] charges its linear memory to it and
//! gives the bytes back when the module is dropped: under wasmi before the memory grows
//! (its `Limiter`, which also charges tables), on the browser's engine after each call
//! that grew it (no hook runs before). Both word a refusal the same way.

use alloc::format;
use alloc::string::String;
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
    fn try_charge(&self, bytes: usize) -> bool {
        let c = self.counter();
        c.used
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |used| {
                used.checked_add(bytes).filter(|&u| u <= c.limit)
            })
            .is_ok()
    }

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

/// One module's linear memory, charged to a [`MemoryBudget`] and capped at
/// `RuntimeLimits::max_memory_bytes`: what an engine asks before (wasmi) or after (the
/// browser) a memory grows. The bytes charged are given back when the account is dropped.
pub struct MemoryAccount {
    budget: MemoryBudget,
    max_memory_bytes: usize,
    /// Bytes of linear memory (all memories of the module) held.
    memory: usize,
    /// Bytes charged to the budget (memories, and tables under wasmi).
    charged: usize,
}

impl MemoryAccount {
    /// An empty account of one module.
    pub fn new(budget: MemoryBudget, max_memory_bytes: usize) -> Self {
        MemoryAccount {
            budget,
            max_memory_bytes,
            memory: 0,
            charged: 0,
        }
    }

    /// Bytes of linear memory the module holds (all its memories).
    pub fn memory_bytes(&self) -> usize {
        self.memory
    }

    /// One of the module's memories grows from `current` to `desired` bytes: charged, or
    /// refused with the reason (the module's cap or the shared budget), nothing charged.
    pub fn grow_memory(&mut self, current: usize, desired: usize) -> Result<(), String> {
        let extra = desired.saturating_sub(current);
        let total = self.memory.saturating_add(extra);
        if total > self.max_memory_bytes {
            return Err(format!(
                "linear memory of {total} bytes (all memories of the module) is more than \
                 RuntimeLimits::max_memory_bytes = {}",
                self.max_memory_bytes
            ));
        }
        self.charge(extra, &format!("growing linear memory to {desired} bytes"))?;
        self.memory = total;
        Ok(())
    }

    /// Charges `bytes` for `what` to the shared budget, or says why not.
    fn charge(&mut self, bytes: usize, what: &str) -> Result<(), String> {
        if self.budget.try_charge(bytes) {
            self.charged += bytes;
            return Ok(());
        }
        Err(format!(
            "{what} would exceed the memory budget shared by all binary modules \
             ({} of {} bytes in use; RuntimeLimits::budget)",
            self.budget.used(),
            self.budget.limit()
        ))
    }
}

impl Drop for MemoryAccount {
    fn drop(&mut self) {
        self.budget.release(self.charged);
    }
}

#[cfg(feature = "wasmi")]
pub(crate) use limiter::Limiter;

#[cfg(feature = "wasmi")]
mod limiter {
    use super::*;

    /// Bytes charged per table element (a function reference and its bookkeeping).
    pub const TABLE_ELEMENT_BYTES: usize = 16;

    /// One module's share under wasmi: its memory account, its table cap, and why the
    /// last growth was refused.
    pub(crate) struct Limiter {
        account: MemoryAccount,
        max_table_elements: usize,
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
                account: MemoryAccount::new(budget, max_memory_bytes),
                max_table_elements,
                denied: None,
            }
        }

        /// `Ok(true)` if `outcome` allows the growth; else remembers why not.
        fn allow(&mut self, outcome: Result<(), String>) -> Result<bool, LimiterError> {
            match outcome {
                Ok(()) => Ok(true),
                Err(why) => {
                    self.denied = Some(why);
                    Ok(false)
                }
            }
        }
    }

    impl ResourceLimiter for Limiter {
        fn memory_growing(
            &mut self,
            current: usize,
            desired: usize,
            _maximum: Option<usize>,
        ) -> Result<bool, LimiterError> {
            let outcome = self.account.grow_memory(current, desired);
            self.allow(outcome)
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
            let outcome = self
                .account
                .charge(extra, &format!("a table of {desired} elements"));
            self.allow(outcome)
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
}
