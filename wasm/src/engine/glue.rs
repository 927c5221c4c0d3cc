//! The hot path between the core and a binary module, in a few lines of JS so that an
//! FMI call crosses from the page's wasm to JS once, with the copies of its arguments and
//! results to and from the module's memory: numbers travel as plain f64 arguments, the
//! copies are described by `(module address, page address, length)` triples in the
//! page's memory, and both memories are read through typed-array views made once and
//! again only after a `memory.grow` (which detaches the old buffer: its views read as
//! empty). No JS object is allocated per call.

use js_sys::Function;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(inline_js = r#"
let page = null;
let page8 = new Uint8Array(0);
let page32 = new Uint32Array(0);
let page64 = new Float64Array(0);
let thrown;
function pageViews() {
  if (page8.byteLength === 0) {
    const b = page.buffer;
    page8 = new Uint8Array(b);
    page32 = new Uint32Array(b);
    page64 = new Float64Array(b);
  }
}
function guestBytes(g) {
  let b = g.bytes;
  if (b.byteLength === 0 && g.memory) b = g.bytes = new Uint8Array(g.memory.buffer);
  return b;
}
function copy(to, at, from, start, n) {
  if (n <= 64) {
    for (let i = 0; i < n; i++) to[at + i] = from[start + i];
  } else {
    to.set(from.subarray(start, start + n), at);
  }
}
function invoke(f, n, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11) {
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
export function set_page_memory(memory) {
  if (page !== memory) {
    page = memory;
    page8 = new Uint8Array(0);
  }
}
export function guest_views(memory) {
  return { memory, bytes: new Uint8Array(memory ? memory.buffer : 0) };
}
export function guest_read(g, at, to, n) {
  pageViews();
  const b = guestBytes(g);
  if (at + n > b.length) return false;
  copy(page8, to, b, at, n);
  return true;
}
export function guest_write(g, at, from, n) {
  pageViews();
  const b = guestBytes(g);
  if (at + n > b.length) return false;
  copy(b, at, page8, from, n);
  return true;
}
export function call_io(g, f, n, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, io, nw, nr, res) {
  pageViews();
  let b = guestBytes(g);
  let k = io >>> 2;
  for (let i = 0; i < nw; i++, k += 3) {
    const at = page32[k], len = page32[k + 2];
    if (at + len > b.length) return -1 - i;
    copy(b, at, page8, page32[k + 1], len);
  }
  let r;
  try {
    r = invoke(f, n, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11);
  } catch (e) {
    thrown = e;
    return 1;
  }
  // Either memory may have grown during the call.
  pageViews();
  b = guestBytes(g);
  page64[res >>> 3] = r;
  page64[(res >>> 3) + 1] = b.length;
  for (let i = 0; i < nr; i++, k += 3) {
    const at = page32[k], len = page32[k + 2];
    if (at + len > b.length) return -1 - nw - i;
    copy(page8, page32[k + 1], b, at, len);
  }
  return 0;
}
const bridged = [];
const released = [];
export function bridge_register(w) {
  const h = released.length ? released.pop() : bridged.length;
  bridged[h] = w;
  return h;
}
export function bridge_release(h) {
  bridged[h] = undefined;
  released.push(h);
}
export function bridges_live() {
  return bridged.length - released.length;
}
export function call_direct(h, io, nw, nr, res, args) {
  try {
    return bridged[h](io, nw, nr, res, args);
  } catch (e) {
    thrown = e;
    return 1;
  }
}
export function call_sequence(h, desc, count, state, host) {
  try {
    return bridged[h](desc, count, state, host);
  } catch (e) {
    thrown = e;
    return -1;
  }
}
export function guest_size(g) {
  return guestBytes(g).length;
}
export function take_thrown() {
  const e = thrown;
  thrown = undefined;
  return e;
}
"#)]
extern "C" {
    /// Makes `memory` (the page's own) the one page addresses refer to.
    pub(super) fn set_page_memory(memory: &JsValue);
    /// The cached views of a module's memory (`undefined`: a module without one, where
    /// every access is outside).
    pub(super) fn guest_views(memory: &JsValue) -> JsValue;
    /// Copies `n` bytes at `at` of the module's memory to page address `to`.
    pub(super) fn guest_read(views: &JsValue, at: u32, to: u32, n: u32) -> bool;
    /// Copies `n` bytes at page address `from` to `at` of the module's memory.
    pub(super) fn guest_write(views: &JsValue, at: u32, from: u32, n: u32) -> bool;
    /// Copies the first `nw` triples of `io` (u32 `[module address, page address, length]`
    /// at page address `io`) into the module's memory, calls `f(a0, ..., a{n-1})` (n ≤ 12),
    /// stores its result as an f64 at page address `res` and the module memory's size in
    /// bytes as the f64 after it (for the memory budget), then copies the next `nr`
    /// triples out. 0: done; 1: `f` threw ([`take_thrown`]); `-1 - k`: triple `k` lies
    /// outside the module's memory (nothing called if it is a write).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn call_io(
        views: &JsValue,
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
        io: u32,
        nw: u32,
        nr: u32,
        res: u32,
    ) -> i32;
    /// Adds a bridge wrapper (`bridge`) to the table [`call_direct`] calls from; its handle.
    pub(super) fn bridge_register(w: &Function) -> u32;
    /// How many wrappers are registered now.
    pub(super) fn bridges_live() -> u32;
    /// Frees handle `h` of [`bridge_register`].
    pub(super) fn bridge_release(h: u32);
    /// [`call_io`] through the bridge wrapper `h`, its arguments 8 bytes each at page
    /// address `args`: the copies and the call happen in wasm; JS only catches a trap
    /// (1, [`take_thrown`]).
    pub(super) fn call_direct(h: u32, io: u32, nw: u32, nr: u32, res: u32, args: u32) -> i32;
    /// The bridge's `seq` function `h` over `count` descriptors at page address `desc`
    /// (`bridge::sequence`): the number of calls made, or -1 when one threw
    /// ([`take_thrown`]; its index is the i32 at page address `state`).
    pub(super) fn call_sequence(h: u32, desc: u32, count: u32, state: u32, host: u32) -> i32;
    /// The module memory's size in bytes now (0 without one).
    pub(super) fn guest_size(views: &JsValue) -> f64;
    /// What the last `call_io` that returned 1 caught.
    pub(super) fn take_thrown() -> JsValue;
}
