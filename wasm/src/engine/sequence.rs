//! A sequence of FMI calls in one crossing (`GuestInstance::call_sequence`): the calls'
//! arguments and copies laid out in page memory as each wrapper of the bridge expects
//! them, one descriptor per call, and the bridge's `seq` function making the calls one
//! after the other until one does not go plainly (see `bridge::sequence`). JS keeps one
//! frame around it, which catches a trap and leaves the index of the call that trapped.

use super::bridge::MAX_ARGS;
use super::call::{arg_bits, taken_back, thrown, triples, STACK_COPIES};
use super::{glue, imports};
use cosim_core::fmu::sandbox::{MemoryCallError, SequencedCall, WasmType, WasmValue};

/// The most calls one crossing makes (set, step, get).
pub(super) const MAX_CALLS: usize = 3;
/// A descriptor: wrapper number, io, nw, nr, res, args, go-on word address and mask.
const DESCRIPTOR: usize = 8;

/// Whether `calls` fit the layout: at most [`MAX_CALLS`], each with numeric arguments and
/// an i32 result, and copies on the stack.
pub(super) fn fits(calls: &[SequencedCall<'_>]) -> bool {
    calls.len() <= MAX_CALLS
        && calls.iter().all(|c| {
            c.args.len() <= MAX_ARGS
                && !c.args.iter().any(|v| v.ty() == WasmType::I64)
                && c.writes.len() + c.reads.len() <= STACK_COPIES
        })
}

/// Makes `calls` (which [`fits`]) through the bridge's `seq` function `seq` (a `glue`
/// handle), each with its wrapper `numbers[k]`: the number made and the last one's
/// outcome, `statuses` of those made, and the memory's size after the last in
/// `memory_after` (or the index of a call that threw, as the error).
pub(super) fn call(
    seq: u32,
    numbers: &[u32],
    calls: &mut [SequencedCall<'_>],
    statuses: &mut [i32],
    memory_after: &mut usize,
) -> (usize, Result<(), MemoryCallError>) {
    let n = calls.len();
    let mut bits = [[0u64; MAX_ARGS]; MAX_CALLS];
    let mut io = [[0u32; 3 * STACK_COPIES]; MAX_CALLS];
    let mut values = [[0.0f64; 2]; MAX_CALLS];
    let mut descriptors = [[0u32; DESCRIPTOR]; MAX_CALLS];
    for k in 0..n {
        let c = &mut calls[k];
        arg_bits(c.args, &mut bits[k]);
        triples(&mut io[k], c.writes, c.reads);
        let (word, mask) = c.go_on_if_clear.unwrap_or((0, 0));
        descriptors[k] = [
            numbers[k],
            io[k].as_ptr() as u32,
            c.writes.len() as u32,
            c.reads.len() as u32,
            values[k].as_mut_ptr() as u32,
            bits[k].as_ptr() as u32,
            word,
            mask,
        ];
    }
    // The index of the call being made, and its wrapper's return.
    let mut state = [0i32; 2];
    let made = glue::call_sequence(
        seq,
        descriptors.as_ptr() as u32,
        n as u32,
        state.as_mut_ptr() as u32,
        imports::host_called_flag(),
    );
    if made < 0 {
        let at = usize::try_from(state[0]).unwrap_or(0).min(n - 1);
        statuses[..at].fill(0);
        return (at + 1, Err(thrown()));
    }
    let made = (made as usize).clamp(1, n);
    let mut status = [WasmValue::I32(0)];
    for k in 0..made {
        let c = &calls[k];
        let code = if k + 1 == made { state[1] } else { 0 };
        let r = taken_back(
            code,
            values[k],
            &mut status,
            c.writes,
            c.reads,
            memory_after,
        );
        statuses[k] = status[0].as_i32().unwrap_or(0);
        if k + 1 == made {
            return (made, r);
        }
    }
    (made, Ok(()))
}
