//! A sequence of FMI calls in one crossing (`GuestInstance::call_sequence`): the calls'
//! arguments and copies laid out in page memory as each wrapper of the bridge expects
//! them, one descriptor per call, and the bridge's `seq` function making the calls one
//! after the other until one does not go plainly (see `bridge::sequence`). JS keeps one
//! frame around it, which catches a trap and leaves the index of the call that trapped.

use super::bridge::MAX_ARGS;
use super::call::{arg_bits, taken_back, thrown, triples, STACK_COPIES};
use super::{glue, imports};
use cosim_core::fmu::sandbox::{MemoryCallError, SequenceKey, SequencedCall, WasmValue};

/// The most calls one crossing makes (set, step, get).
pub(super) const MAX_CALLS: usize = 3;
/// A descriptor: wrapper number, io, nw, nr, res, args, go-on word address and mask.
const DESCRIPTOR: usize = 8;

/// Whether `calls` fit the layout: at most [`MAX_CALLS`], each with its arguments and
/// copies in their rows (a wrapped function's arguments are numbers: `bridge`).
pub(super) fn fits(calls: &[SequencedCall<'_>]) -> bool {
    calls.len() <= MAX_CALLS
        && calls
            .iter()
            .all(|c| c.args.len() <= MAX_ARGS && c.writes.len() + c.reads.len() <= STACK_COPIES)
}

/// The page memory a sequence is laid out in, kept by the instance so that a call
/// neither allocates nor clears it (each call writes what it uses).
pub(super) struct Layout {
    bits: [[u64; MAX_ARGS]; MAX_CALLS],
    io: [[u32; 3 * STACK_COPIES]; MAX_CALLS],
    values: [[f64; 2]; MAX_CALLS],
    descriptors: [[u32; DESCRIPTOR]; MAX_CALLS],
    /// The index of the call being made, and its wrapper's return.
    state: [i32; 2],
    /// The key of the sequence laid out here, while only its arguments may change.
    kept: Option<SequenceKey>,
}

impl Layout {
    /// Whether the sequence with `key` is laid out here (so its calls have wrappers and
    /// [`fits`]).
    pub(super) fn keeps(&self, key: SequenceKey) -> bool {
        self.kept == Some(key)
    }

    pub(super) fn new() -> Box<Self> {
        Box::new(Layout {
            bits: [[0; MAX_ARGS]; MAX_CALLS],
            io: [[0; 3 * STACK_COPIES]; MAX_CALLS],
            values: [[0.0; 2]; MAX_CALLS],
            descriptors: [[0; DESCRIPTOR]; MAX_CALLS],
            state: [0; 2],
            kept: None,
        })
    }
}

/// Lays `calls` (which [`fits`]) out in `at`, each with its wrapper `numbers[k]`, as the
/// sequence with `key` (`None`: a sequence that is not kept).
pub(super) fn lay_out(
    numbers: &[u32],
    calls: &mut [SequencedCall<'_>],
    at: &mut Layout,
    key: Option<SequenceKey>,
) {
    for (k, c) in calls.iter_mut().enumerate() {
        triples(&mut at.io[k], c.writes, c.reads);
        let (word, mask) = c.go_on_if_clear.unwrap_or((0, 0));
        at.descriptors[k] = [
            numbers[k],
            at.io[k].as_ptr() as u32,
            c.writes.len() as u32,
            c.reads.len() as u32,
            at.values[k].as_mut_ptr() as u32,
            at.bits[k].as_ptr() as u32,
            word,
            mask,
        ];
    }
    at.kept = key;
}

/// Makes `calls`, laid out in `at` ([`lay_out`]), through the bridge's `seq` function
/// `seq` (a `glue` handle), writing only their arguments: the number made and the last
/// one's outcome, `statuses` of those made, and the memory's size after the last in
/// `memory_after` (or the index of a call that threw, as the error).
pub(super) fn call(
    seq: u32,
    calls: &mut [SequencedCall<'_>],
    at: &mut Layout,
    statuses: &mut [i32],
    memory_after: &mut usize,
) -> (usize, Result<(), MemoryCallError>) {
    let n = calls.len();
    for (k, c) in calls.iter().enumerate() {
        arg_bits(c.args, &mut at.bits[k]);
    }
    let made = glue::call_sequence(
        seq,
        at.descriptors.as_ptr() as u32,
        n as u32,
        at.state.as_mut_ptr() as u32,
        imports::host_called_flag(),
    );
    if made < 0 {
        let k = usize::try_from(at.state[0]).unwrap_or(0).min(n - 1);
        statuses[..k].fill(0);
        return (k + 1, Err(thrown()));
    }
    let made = (made as usize).clamp(1, n);
    // Every call before the last returned fmi3OK (0) with its copies in bounds.
    statuses[..made - 1].fill(0);
    let c = &calls[made - 1];
    let mut status = [WasmValue::I32(0)];
    let (code, value) = (at.state[1], at.values[made - 1]);
    let r = taken_back(code, value, &mut status, c.writes, c.reads, memory_after);
    statuses[made - 1] = status[0].as_i32().unwrap_or(0);
    (made, r)
}
