//! The memory budget on the browser's engine. A module's own (exported) memory can grow
//! in a call without anything on the host side being asked, so each call is followed by
//! one look at the memory's size: growth is charged to the module's
//! [`MemoryAccount`] (its `max_memory_bytes` and the budget shared by the worker's
//! modules) and, beyond either, the call fails with the same reason wasmi gives natively.

use cosim_core::fmu::MemoryAccount;
use js_sys::WebAssembly;
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
