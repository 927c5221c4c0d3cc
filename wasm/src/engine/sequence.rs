//! Several FMI calls of a macro-step in one crossing into JS (`glue::call_seq`): the
//! descriptions, arguments and copy triples of every call are laid out in the page's
//! memory in buffers kept by the instance, so a macro-step allocates nothing.

use super::call::call_error;
use super::glue;
use cosim_core::fmu::sandbox::{
    one_by_one, GuestInstance, MemoryCallError, SequenceOutcome, StatusCall, WasmValue,
};

/// The page-memory buffers of one instance's sequences.
#[derive(Default)]
pub(super) struct SequenceBuffers {
    desc: Vec<u32>,
    args: Vec<f64>,
    io: Vec<u32>,
    /// Index of the call made last, module memory size, each call's result.
    res: Vec<f64>,
}

/// Arguments `glue::call_seq` passes as numbers, per call.
const MAX_ARGS: usize = 12;

fn number(v: &WasmValue) -> Option<f64> {
    match *v {
        WasmValue::I32(x) => Some(f64::from(x)),
        WasmValue::F32(x) => Some(f64::from(x)),
        WasmValue::F64(x) => Some(x),
        WasmValue::I64(_) => None,
    }
}

/// `calls` through `views` (the module's memory and functions) in one crossing, or one by
/// one through `guest` where an argument needs a BigInt. `memory_after`: the module
/// memory's size after the call made last (0 if unknown).
pub(super) fn call_sequence(
    guest: &mut dyn GuestInstance,
    views: &wasm_bindgen::JsValue,
    b: &mut SequenceBuffers,
    calls: &mut [StatusCall<'_, '_>],
    statuses: &mut [i32],
    memory_after: &mut usize,
) -> SequenceOutcome {
    let n = calls.len().min(statuses.len());
    let numeric = calls[..n]
        .iter()
        .all(|c| c.args.len() <= MAX_ARGS && c.args.iter().all(|v| number(v).is_some()));
    if !numeric {
        return one_by_one(guest, &mut calls[..n], &mut statuses[..n]);
    }
    b.desc.clear();
    b.args.clear();
    b.io.clear();
    for c in calls[..n].iter_mut() {
        let nw = c.writes.len() as u32;
        let nr = c.reads.len() as u32;
        b.desc.extend([c.f.0, c.args.len() as u32, nw, nr]);
        b.args.extend(c.args.iter().filter_map(number));
        // Page addresses: the page's wasm is wasm32, so a pointer is its u32 address.
        for (at, bytes) in c.writes {
            b.io.extend([*at, bytes.as_ptr() as u32, bytes.len() as u32]);
        }
        for (at, out) in c.reads.iter_mut() {
            b.io.extend([*at, out.as_mut_ptr() as u32, out.len() as u32]);
        }
    }
    b.res.clear();
    b.res.resize(2 + n, 0.0);
    let code = glue::call_seq(
        views,
        n as u32,
        b.desc.as_ptr() as u32,
        b.args.as_ptr() as u32,
        b.io.as_ptr() as u32,
        b.res.as_mut_ptr() as u32,
    );
    let last = (b.res[0] as usize).min(n.saturating_sub(1));
    *memory_after = b.res[1] as usize;
    for (s, r) in statuses[..=last].iter_mut().zip(&b.res[2..]) {
        *s = *r as i32;
    }
    let failed = match code {
        0 => None,
        1 => Some(MemoryCallError::Call(call_error(&glue::take_thrown()))),
        outside => {
            // The call's copy `k`, writes first: where its triples start in `io`.
            let k = (-1 - outside) as usize;
            let before: usize = calls[..last]
                .iter()
                .map(|c| c.writes.len() + c.reads.len())
                .sum();
            let at = b.io.get(3 * (before + k)).copied().unwrap_or(0);
            Some(match k < calls[last].writes.len() {
                true => MemoryCallError::WriteOutside(at),
                false => MemoryCallError::ReadOutside(at),
            })
        }
    };
    SequenceOutcome {
        ran: last + 1,
        failed,
    }
}
