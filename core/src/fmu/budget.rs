//! The memory budget of binary modules: one [`MemoryBudget`] shared by every module of a
//! run (by default, every module of the process: the CLI, or one worker of the page), so
//! that twenty modules, or one module with twenty memories, cannot together take more
//! than the budget. Each module's [`MemoryAccount`] charges its linear memory to it and
//! gives the bytes back when the module is dropped: under wasmi before a memory or table
//! grows (its `Limiter`); on the browser's engine the module's own `memory.grow` and
//! `table.grow` ask first too, through the functions `wasm_limits` adds to it. Both word
//! a refusal the same way.

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
    /// Bytes charged to the budget (memories and tables).
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
        if let Some(why) = self.memory_cap_refusal(extra) {
            return Err(why);
        }
        self.charge(extra, &format!("growing linear memory to {desired} bytes"))?;
        self.memory += extra;
        Ok(())
    }

    /// Why [`MemoryAccount::grow_memory`] would refuse growing a memory from `current` to
    /// `desired` bytes now (nothing is charged).
    pub fn memory_refusal(&self, current: usize, desired: usize) -> Option<String> {
        let extra = desired.saturating_sub(current);
        self.memory_cap_refusal(extra).or_else(|| {
            self.budget_refusal(extra, &format!("growing linear memory to {desired} bytes"))
        })
    }

    /// Why `extra` more bytes of linear memory pass the module's own cap.
    fn memory_cap_refusal(&self, extra: usize) -> Option<String> {
        let total = self.memory.saturating_add(extra);
        (total > self.max_memory_bytes).then(|| {
            format!(
                "linear memory of {total} bytes (all memories of the module) is more than \
                 RuntimeLimits::max_memory_bytes = {}",
                self.max_memory_bytes
            )
        })
    }

    /// One of the module's tables grows from `current` to `desired` elements, each charged
    /// [`TABLE_ELEMENT_BYTES`]: charged, or refused with the reason, nothing charged.
    pub fn grow_table(
        &mut self,
        current: usize,
        desired: usize,
        max_table_elements: usize,
    ) -> Result<(), String> {
        if desired > max_table_elements {
            return Err(table_cap_text(desired, max_table_elements));
        }
        let extra = desired
            .saturating_sub(current)
            .saturating_mul(TABLE_ELEMENT_BYTES);
        self.charge(extra, &format!("a table of {desired} elements"))
    }

    /// Why [`MemoryAccount::grow_table`] would refuse (nothing is charged).
    pub fn table_refusal(
        &self,
        current: usize,
        desired: usize,
        max_table_elements: usize,
    ) -> Option<String> {
        if desired > max_table_elements {
            return Some(table_cap_text(desired, max_table_elements));
        }
        let extra = desired
            .saturating_sub(current)
            .saturating_mul(TABLE_ELEMENT_BYTES);
        self.budget_refusal(extra, &format!("a table of {desired} elements"))
    }

    /// Bytes the module's memories may still grow by under its own cap
    /// (`RuntimeLimits::max_memory_bytes`), whatever the shared budget says.
    pub fn memory_room(&self) -> usize {
        self.max_memory_bytes.saturating_sub(self.memory)
    }

    /// Bytes the shared budget has left for any module.
    pub fn budget_room(&self) -> usize {
        self.budget.limit().saturating_sub(self.budget.used())
    }

    /// Why charging `bytes` for `what` to the shared budget would fail now.
    fn budget_refusal(&self, bytes: usize, what: &str) -> Option<String> {
        let fits = self.budget.used().saturating_add(bytes) <= self.budget.limit();
        (!fits).then(|| self.budget_text(what))
    }

    fn budget_text(&self, what: &str) -> String {
        format!(
            "{what} would exceed the memory budget shared by all binary modules \
             ({} of {} bytes in use; RuntimeLimits::budget)",
            self.budget.used(),
            self.budget.limit()
        )
    }

    /// Charges `bytes` for `what` to the shared budget, or says why not.
    fn charge(&mut self, bytes: usize, what: &str) -> Result<(), String> {
        if self.budget.try_charge(bytes) {
            self.charged += bytes;
            return Ok(());
        }
        Err(self.budget_text(what))
    }
}

/// Bytes charged per table element (a function reference and its bookkeeping).
pub const TABLE_ELEMENT_BYTES: usize = 16;

fn table_cap_text(desired: usize, max_table_elements: usize) -> String {
    format!(
        "a table of {desired} elements is more than RuntimeLimits::max_table_elements = {max_table_elements}"
    )
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
            let outcome = self
                .account
                .grow_table(current, desired, self.max_table_elements);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_charged_to_the_budget_and_refusals_charge_nothing() {
        let budget = MemoryBudget::new(1000);
        let mut a = MemoryAccount::new(budget.clone(), 900);
        a.grow_table(0, 10, 100).unwrap();
        assert_eq!(budget.used(), 10 * TABLE_ELEMENT_BYTES);
        assert_eq!(
            a.grow_table(10, 101, 100).unwrap_err(),
            "a table of 101 elements is more than RuntimeLimits::max_table_elements = 100"
        );
        assert_eq!(
            a.table_refusal(10, 101, 100),
            a.grow_table(10, 101, 100).err()
        );
        a.grow_memory(0, 700).unwrap();
        assert_eq!((a.memory_room(), a.budget_room()), (200, 140));
        let why = a.memory_refusal(700, 950).unwrap();
        assert!(why.starts_with("linear memory of 950 bytes"), "{why}");
        let why = a.memory_refusal(700, 850).unwrap();
        assert_eq!(
            why,
            "growing linear memory to 850 bytes would exceed the memory budget shared by all \
             binary modules (860 of 1000 bytes in use; RuntimeLimits::budget)"
        );
        assert_eq!(a.grow_memory(700, 850).unwrap_err(), why);
        assert_eq!(budget.used(), 860, "nothing charged by a refusal");
        assert_eq!(a.memory_refusal(700, 840), None);
        drop(a);
        assert_eq!(budget.used(), 0, "given back");
    }
}
