//! The hot path between the core and a binary module, in a few lines of JS so that each
//! FMI call and each copy to or from the module's memory crosses from wasm to JS once:
//! numbers travel as plain f64 arguments (no boxed JS values, no argument array), and
//! bytes are copied between the two memories by one typed-array `set`.

use js_sys::{Function, WebAssembly};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(inline_js = r#"
export function call_numbers(f, n, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11) {
  switch (n) {
    case 0: return f();
    case 1: return f(a0);
    case 2: return f(a0, a1);
    case 3: return f(a0, a1, a2);
    case 4: return f(a0, a1, a2, a3);
    case 5: return f(a0, a1, a2, a3, a4);
    case 6: return f(a0, a1, a2, a3, a4, a5);
    case 7: return f(a0, a1, a2, a3, a4, a5, a6);
    case 8: return f(a0, a1, a2, a3, a4, a5, a6, a7);
    default: return f(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11);
  }
}
export function mem_read(memory, ptr, out) {
  const b = memory.buffer;
  if (ptr + out.length > b.byteLength) return false;
  out.set(new Uint8Array(b, ptr, out.length));
  return true;
}
export function mem_write(memory, ptr, bytes) {
  const b = memory.buffer;
  if (ptr + bytes.length > b.byteLength) return false;
  new Uint8Array(b, ptr, bytes.length).set(bytes);
  return true;
}
"#)]
extern "C" {
    /// `f(a0, ..., a{n-1})` (n ≤ 12); the result as a number (NaN for none).
    #[wasm_bindgen(catch)]
    #[allow(clippy::too_many_arguments)]
    pub(super) fn call_numbers(
        f: &Function,
        n: u32,
        a0: f64,
        a1: f64,
        a2: f64,
        a3: f64,
        a4: f64,
        a5: f64,
        a6: f64,
        a7: f64,
        a8: f64,
        a9: f64,
        a10: f64,
        a11: f64,
    ) -> Result<f64, JsValue>;
    /// Copies `out.len()` bytes at `ptr` of `memory` into `out`; false if out of bounds.
    pub(super) fn mem_read(memory: &WebAssembly::Memory, ptr: u32, out: &mut [u8]) -> bool;
    /// Copies `bytes` to `ptr` of `memory`; false if out of bounds.
    pub(super) fn mem_write(memory: &WebAssembly::Memory, ptr: u32, bytes: &[u8]) -> bool;
}
