//! One call into a binary module's export with the copies of its arguments and results:
//! numbers straight through `glue::call_io` (one crossing for the whole FMI call); an
//! i64 argument or result needs a BigInt, so such a call builds a JS argument array and
//! copies separately instead.

use super::glue;
use super::imports::exit_code;
use super::trap_text;
use cosim_core::fmu::sandbox::{CallError, MemoryCallError, WasmType, WasmValue};
use js_sys::{Array, BigInt, Function};
use wasm_bindgen::{JsCast, JsValue};

use super::bridge::MAX_ARGS;
/// Copies described on the stack; more take a vector.
pub(super) const STACK_COPIES: usize = 8;

pub(super) fn to_js(v: WasmValue) -> JsValue {
    match v {
        WasmValue::I32(x) => JsValue::from(x),
        WasmValue::I64(x) => BigInt::from(x).into(),
        WasmValue::F32(x) => JsValue::from(f64::from(x)),
        WasmValue::F64(x) => JsValue::from(x),
    }
}

/// `v` as a value of type `ty` (a JS number, or a BigInt for i64).
pub(super) fn from_js(v: &JsValue, ty: WasmType) -> WasmValue {
    match ty {
        WasmType::I64 => WasmValue::I64(
            v.clone()
                .dyn_into::<BigInt>()
                .ok()
                .and_then(|b| i64::try_from(b).ok())
                .unwrap_or(0),
        ),
        WasmType::F32 => WasmValue::F32(v.as_f64().unwrap_or(f64::NAN) as f32),
        WasmType::F64 => WasmValue::F64(v.as_f64().unwrap_or(f64::NAN)),
        _ => WasmValue::I32(v.as_f64().unwrap_or(0.0) as i32),
    }
}

/// A number read back as `ty`.
fn from_number(v: f64, ty: WasmType) -> WasmValue {
    match ty {
        WasmType::F64 => WasmValue::F64(v),
        WasmType::F32 => WasmValue::F32(v as f32),
        _ => WasmValue::I32(v as i32),
    }
}

/// A thrown JS value as the core's call error.
fn call_error(e: &JsValue) -> CallError {
    match exit_code(e) {
        Some(code) => CallError::Exit(code),
        None => CallError::Trap(trap_text(e)),
    }
}

/// The module's memory, as `views` (`glue::guest_views`) and its function `func`.
pub(super) struct Target<'a> {
    pub views: &'a JsValue,
    pub func: &'a Function,
    /// Its bridge wrapper's handle (`bridge`), if it has one.
    pub direct: Option<u32>,
}

/// Writes `writes`, calls, reads `reads` (`GuestInstance::call_with_memory`); when the
/// call returned, `memory_after` is the module memory's size then (for the budget).
pub(super) fn call(
    target: Target<'_>,
    args: &[WasmValue],
    results: &mut [WasmValue],
    writes: &[(u32, &[u8])],
    reads: &mut [(u32, &mut [u8])],
    memory_after: &mut usize,
) -> Result<(), MemoryCallError> {
    let result = results.first().map(|r| r.ty());
    let numeric = args.len() <= MAX_ARGS
        && result != Some(WasmType::I64)
        && !args.iter().any(|v| matches!(v, WasmValue::I64(_)));
    if !numeric {
        return call_boxed(target, args, results, writes, reads, memory_after);
    }
    if let Some(h) = target.direct {
        return call_direct(h, args, results, writes, reads, memory_after);
    }
    let mut a = [0.0f64; MAX_ARGS];
    for (slot, v) in a.iter_mut().zip(args) {
        *slot = match *v {
            WasmValue::I32(x) => f64::from(x),
            WasmValue::F32(x) => f64::from(x),
            WasmValue::F64(x) => x,
            WasmValue::I64(x) => x as f64,
        };
    }
    let n = args.len() as u32;
    with_copies(results, writes, reads, memory_after, |io, nw, nr, res| {
        glue::call_io(
            target.views,
            target.func,
            n,
            a[0],
            a[1],
            a[2],
            a[3],
            a[4],
            a[5],
            a[6],
            a[7],
            a[8],
            a[9],
            a[10],
            a[11],
            io,
            nw,
            nr,
            res,
        )
    })
}

/// [`call`] through the bridge wrapper `h` (`bridge`: its function has a numeric type).
pub(super) fn call_direct(
    h: u32,
    args: &[WasmValue],
    results: &mut [WasmValue],
    writes: &[(u32, &[u8])],
    reads: &mut [(u32, &mut [u8])],
    memory_after: &mut usize,
) -> Result<(), MemoryCallError> {
    let mut bits = [0u64; MAX_ARGS];
    arg_bits(args, &mut bits);
    let at = bits.as_ptr() as u32;
    with_copies(results, writes, reads, memory_after, |io, nw, nr, res| {
        glue::call_direct(h, io, nw, nr, res, at)
    })
}

/// Each argument in 8 bytes of page memory, as the bridge loads it.
pub(super) fn arg_bits(args: &[WasmValue], bits: &mut [u64; MAX_ARGS]) {
    for (b, v) in bits.iter_mut().zip(args) {
        *b = match *v {
            WasmValue::I32(x) => u64::from(x as u32),
            WasmValue::F32(x) => u64::from(x.to_bits()),
            WasmValue::F64(x) => x.to_bits(),
            WasmValue::I64(x) => x as u64,
        };
    }
}

/// The copies described as triples in page memory for `go(io, nw, nr, res)` (the
/// contract of `glue::call_io`), and its status, result and memory size taken back.
fn with_copies(
    results: &mut [WasmValue],
    writes: &[(u32, &[u8])],
    reads: &mut [(u32, &mut [u8])],
    memory_after: &mut usize,
    go: impl FnOnce(u32, u32, u32, u32) -> i32,
) -> Result<(), MemoryCallError> {
    let count = writes.len() + reads.len();
    let mut on_stack = [0u32; 3 * STACK_COPIES];
    let mut on_heap = Vec::new();
    let io: &mut [u32] = if count <= STACK_COPIES {
        &mut on_stack[..3 * count]
    } else {
        on_heap.resize(3 * count, 0);
        &mut on_heap
    };
    triples(io, writes, reads);
    // The call's result and the module memory's size after it.
    let mut value = [0.0f64; 2];
    let status = go(
        io.as_ptr() as u32,
        writes.len() as u32,
        reads.len() as u32,
        value.as_mut_ptr() as u32,
    );
    if status == 1 {
        return Err(thrown());
    }
    taken_back(status, value, results, writes, reads, memory_after)
}

/// The copies as `[module address, page address, length]` triples in `io`, writes first
/// (page addresses: the page's wasm is wasm32, so a pointer is its u32 address).
pub(super) fn triples(io: &mut [u32], writes: &[(u32, &[u8])], reads: &mut [(u32, &mut [u8])]) {
    for (triple, (at, bytes)) in io.chunks_exact_mut(3).zip(writes) {
        triple.copy_from_slice(&[*at, bytes.as_ptr() as u32, bytes.len() as u32]);
    }
    for (triple, (at, out)) in io
        .chunks_exact_mut(3)
        .skip(writes.len())
        .zip(reads.iter_mut())
    {
        triple.copy_from_slice(&[*at, out.as_mut_ptr() as u32, out.len() as u32]);
    }
}

/// The error of the call that threw (`glue::take_thrown`).
pub(super) fn thrown() -> MemoryCallError {
    MemoryCallError::Call(call_error(&glue::take_thrown()))
}

/// A call that returned `status` (0, or `-1 - k` for the copy `k` that fell outside) with
/// `value` (its result and the memory's size), taken back into `results` and `memory_after`.
pub(super) fn taken_back(
    status: i32,
    value: [f64; 2],
    results: &mut [WasmValue],
    writes: &[(u32, &[u8])],
    reads: &[(u32, &mut [u8])],
    memory_after: &mut usize,
) -> Result<(), MemoryCallError> {
    // 0 → None; -1 - k → Some(k), the copy that fell outside.
    let outside = usize::try_from(-1 - i64::from(status)).ok();
    if let Some(&(at, _)) = outside.and_then(|k| writes.get(k)) {
        return Err(MemoryCallError::WriteOutside(at));
    }
    *memory_after = value[1] as usize;
    if let Some(slot) = results.first_mut() {
        *slot = from_number(value[0], slot.ty());
    }
    match outside.and_then(|k| reads.get(k - writes.len())) {
        Some((at, _)) => Err(MemoryCallError::ReadOutside(*at)),
        None => Ok(()),
    }
}

/// The call with its arguments boxed as JS values (BigInt for i64), and each copy its
/// own crossing.
fn call_boxed(
    target: Target<'_>,
    args: &[WasmValue],
    results: &mut [WasmValue],
    writes: &[(u32, &[u8])],
    reads: &mut [(u32, &mut [u8])],
    memory_after: &mut usize,
) -> Result<(), MemoryCallError> {
    for (at, bytes) in writes {
        if !write(target.views, *at, bytes) {
            return Err(MemoryCallError::WriteOutside(*at));
        }
    }
    let js_args = Array::new_with_length(args.len() as u32);
    for (k, v) in args.iter().enumerate() {
        js_args.set(k as u32, to_js(*v));
    }
    let v = target
        .func
        .apply(&JsValue::UNDEFINED, &js_args)
        .map_err(|e| MemoryCallError::Call(call_error(&e)))?;
    *memory_after = glue::guest_size(target.views) as usize;
    if let Some(slot) = results.first_mut() {
        *slot = from_js(&v, slot.ty());
    }
    for (at, out) in reads.iter_mut() {
        if !read(target.views, *at, out) {
            return Err(MemoryCallError::ReadOutside(*at));
        }
    }
    Ok(())
}

/// Copies `out.len()` bytes at `at` of the module's memory into `out`.
pub(super) fn read(views: &JsValue, at: u32, out: &mut [u8]) -> bool {
    glue::guest_read(views, at, out.as_mut_ptr() as u32, out.len() as u32)
}

/// Copies `bytes` to `at` of the module's memory.
pub(super) fn write(views: &JsValue, at: u32, bytes: &[u8]) -> bool {
    glue::guest_write(views, at, bytes.as_ptr() as u32, bytes.len() as u32)
}
