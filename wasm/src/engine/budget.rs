//! The memory budget on the browser's engine, which has no resource limiter: the module
//! runs rewritten by the core's `wasm_limits`, so that its own `memory.grow` and
//! `table.grow` grow only within the rooms left in its exported globals, and otherwise
//! trap with the request recorded. The host keeps those rooms equal to what the module's
//! [`MemoryAccount`] allows (its `max_memory_bytes` and the budget shared by the worker's
//! modules), charges the growth after each call, and words a refusal as wasmi's limiter
//! does natively. Declared sizes are charged before the engine allocates them.

use cosim_core::fmu::wasm_limits::{
    BUDGET_ROOM, MEMORY_ROOM, REFUSED, REFUSED_FROM, REFUSED_MEMORY, REFUSED_TABLE, REFUSED_TO,
    TABLE_MAX,
};
use cosim_core::fmu::{MemoryAccount, TABLE_ELEMENT_BYTES};
use js_sys::{BigInt, Object, Reflect, WebAssembly};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(inline_js = "export function memory_bytes(m) { return m.buffer.byteLength; }")]
extern "C" {
    /// The memory's size in bytes now (one crossing).
    fn memory_bytes(memory: &WebAssembly::Memory) -> f64;
}

/// The size of `memory` now.
pub(super) fn size_of(memory: &WebAssembly::Memory) -> usize {
    memory_bytes(memory) as usize
}

/// Charges the growth of the module's memory to `account` now that it is `now` bytes;
/// the reason if that is more than the module may hold.
pub(super) fn charge_growth(account: &mut MemoryAccount, now: usize) -> Result<(), String> {
    let held = account.memory_bytes();
    if now <= held {
        return Ok(());
    }
    account.grow_memory(held, now)
}

/// The exported globals of a rewritten module.
pub(super) struct Globals {
    memory_room: WebAssembly::Global,
    budget_room: WebAssembly::Global,
    table_max: WebAssembly::Global,
    refused: WebAssembly::Global,
    from: WebAssembly::Global,
    to: WebAssembly::Global,
}

fn global(exports: &Object, name: &str) -> Option<WebAssembly::Global> {
    Reflect::get(exports, &JsValue::from_str(name))
        .ok()?
        .dyn_into()
        .ok()
}

fn get_i64(g: &WebAssembly::Global) -> i64 {
    g.value()
        .dyn_into::<BigInt>()
        .ok()
        .and_then(|b| i64::try_from(b).ok())
        .unwrap_or(0)
}

fn set_i64(g: &WebAssembly::Global, v: i64) {
    g.set_value(&BigInt::from(v).into());
}

fn room(bytes: usize) -> i64 {
    i64::try_from(bytes).unwrap_or(i64::MAX)
}

impl Globals {
    pub fn of(exports: &Object) -> Option<Self> {
        Some(Globals {
            memory_room: global(exports, MEMORY_ROOM)?,
            budget_room: global(exports, BUDGET_ROOM)?,
            table_max: global(exports, TABLE_MAX)?,
            refused: global(exports, REFUSED)?,
            from: global(exports, REFUSED_FROM)?,
            to: global(exports, REFUSED_TO)?,
        })
    }
}

/// One instance's side of the budget: its account and what its room globals hold.
pub(super) struct Budget {
    pub account: MemoryAccount,
    max_table_elements: usize,
    grows_tables: bool,
    /// The values of the module's MEMORY_ROOM and BUDGET_ROOM as the host last knew them.
    memory_room: i64,
    budget_room: i64,
}

impl Budget {
    /// `account` with the declared sizes charged; `start_rooms` what the module's globals
    /// hold until the host sets them (`wasm_limits`' defaults).
    pub fn new(
        account: MemoryAccount,
        max_table_elements: usize,
        grows_tables: bool,
        start_rooms: (i64, i64),
    ) -> Self {
        Budget {
            account,
            max_table_elements,
            grows_tables,
            memory_room: start_rooms.0,
            budget_room: start_rooms.1,
        }
    }

    /// Declared tables (elements) and memories (bytes), charged in wasmi's order.
    pub fn charge_declared(&mut self, tables: &[u64], memories: &[u64]) -> Result<(), String> {
        for &t in tables {
            let t = usize::try_from(t).unwrap_or(usize::MAX);
            self.account.grow_table(0, t, self.max_table_elements)?;
        }
        for &m in memories {
            let m = usize::try_from(m).unwrap_or(usize::MAX);
            self.account.grow_memory(0, m)?;
        }
        Ok(())
    }

    /// A table the host itself grows (the log callback's slot) from `current` elements.
    pub fn grow_table(&mut self, current: usize, desired: usize) -> Result<(), String> {
        self.account
            .grow_table(current, desired, self.max_table_elements)
    }

    /// Sets the module's limit globals after instantiation.
    pub fn start(&mut self, g: &Globals) {
        set_i64(&g.table_max, room(self.max_table_elements));
        self.memory_room = i64::MIN;
        self.budget_room = i64::MIN;
        self.sync(g);
    }

    /// Before a call: the rooms the account allows now, set where the module's differ
    /// (only when another module grew or was dropped: no crossing otherwise).
    pub fn sync(&mut self, g: &Globals) {
        let memory = room(self.account.memory_room());
        if memory != self.memory_room {
            set_i64(&g.memory_room, memory);
            self.memory_room = memory;
        }
        let budget = room(self.account.budget_room());
        if budget != self.budget_room {
            set_i64(&g.budget_room, budget);
            self.budget_room = budget;
        }
    }

    /// Whether the module's rooms are what the account allows now (no [`Budget::sync`]
    /// needed) and a call's growth can be charged without its globals (no tables grown).
    pub fn settled(&self) -> bool {
        !self.grows_tables
            && room(self.account.memory_room()) == self.memory_room
            && room(self.account.budget_room()) == self.budget_room
    }

    /// After a call: charges what the memory (now `memory_now` bytes) and, for a module
    /// that grows tables, the tables took; the module's rooms shrank by as much.
    pub fn settle(&mut self, g: Option<&Globals>, memory_now: usize) -> Result<(), String> {
        let grown = memory_now.saturating_sub(self.account.memory_bytes());
        charge_growth(&mut self.account, memory_now)?;
        self.memory_room -= room(grown);
        self.budget_room -= room(grown);
        if let (true, Some(g)) = (self.grows_tables, g) {
            let now = get_i64(&g.budget_room);
            let taken = usize::try_from(self.budget_room - now).unwrap_or(0);
            let elements = taken / TABLE_ELEMENT_BYTES;
            if elements > 0 {
                self.account.grow_table(0, elements, usize::MAX)?;
            }
            self.budget_room = now;
        }
        Ok(())
    }

    /// After a trap: the refusal the module recorded, worded as wasmi's limiter does
    /// (its memory is `memory_now` bytes, growth of this call charged first).
    pub fn refusal(&mut self, g: &Globals, memory_now: usize) -> Option<String> {
        let what = g.refused.value().as_f64()? as i32;
        if what == 0 {
            return None;
        }
        g.refused.set_value(&JsValue::from(0));
        let (from, to) = (get_i64(&g.from), get_i64(&g.to));
        let (from, to) = (from.max(0) as usize, to.max(0) as usize);
        if let Err(why) = self.settle(Some(g), memory_now) {
            return Some(why);
        }
        let why = match what {
            REFUSED_MEMORY => self.account.memory_refusal(from, to),
            REFUSED_TABLE => self
                .account
                .table_refusal(from, to, self.max_table_elements),
            _ => None,
        };
        // The room was the account's at the call's start; another module may have given
        // bytes back since: the refusal then stands, in its own words.
        Some(why.unwrap_or_else(|| {
            format!("growing from {from} to {to} was refused: the memory budget was full")
        }))
    }
}
