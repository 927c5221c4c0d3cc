//! Several calls in one crossing (`GuestInstance::call_sequence` of the browser's engine,
//! the bridge's generated `seq`), in headless Chromium: it makes the calls in order and
//! stops after the first that does not go plainly (a status other than 0, a set go-on word,
//! a WASI import, memory growth, a copy outside the memory, a trap), with the outcome of
//! that call; without the bridge it makes one call at a time. A kept sequence
//! (`call_kept_sequence`) takes new arguments and bytes, and is laid out again after
//! another sequence took its place.
#![cfg(target_arch = "wasm32")]

use cosim_core::fmu::sandbox::{
    CallError, ExportFn, GuestInstance, MemoryCallError, SequenceKey, SequencedCall, WasmValue,
};
use cosim_wasm::engine::set_call_bridge;
use wasm_bindgen_test::*;

mod guest;

use guest::func;

wasm_bindgen_test_configure!(run_in_browser);

/// `step(code)` counts its calls in the i32 at 0 and returns `code`; `flag` sets the
/// word at 8; `grow` grows the memory; `log` runs the WASI import; `trap` traps.
const MODULE: &str = r#"(module
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (func $count (i32.store (i32.const 0) (i32.add (i32.load (i32.const 0)) (i32.const 1))))
  (func (export "step") (param i32) (result i32) (call $count) (local.get 0))
  (func (export "flag") (param i32) (result i32) (call $count) (i32.store (i32.const 8) (i32.const 256)) (i32.const 0))
  (func (export "grow") (param i32) (result i32) (call $count) (drop (memory.grow (i32.const 1))) (i32.const 0))
  (func (export "log") (param i32) (result i32)
    (call $count) (drop (call $fd_write (i32.const 2) (i32.const 16) (i32.const 0) (i32.const 32))) (i32.const 0))
  (func (export "trap") (param i32) (result i32) (call $count) unreachable))"#;

const PAGE: u32 = 65536;

fn instance() -> Box<dyn GuestInstance> {
    guest::instance(MODULE)
}

/// Call `k` of a sequence: `fs[k]` with `args[k]`, the copies `writes` and `reads[k]`.
fn sequenced<'a>(
    fs: &[ExportFn],
    args: &'a [[WasmValue; 1]],
    writes: &'a [(u32, &'a [u8])],
    reads: &'a mut [[(u32, &'a mut [u8]); 1]],
    go_on_if_clear: Option<(u32, u32)>,
) -> Vec<SequencedCall<'a>> {
    fs.iter()
        .zip(args)
        .zip(reads.iter_mut())
        .map(|((f, a), r)| SequencedCall {
            f: *f,
            args: a,
            writes,
            reads: r,
            go_on_if_clear,
        })
        .collect()
}

/// The calls `(name, argument)`, each reading the 4 bytes at `read_at` and going on only
/// while the word at 8 masked with `mask` is clear: the number made, the last outcome,
/// the statuses and how many calls the module counted.
fn run(
    names: &[(&str, i32)],
    read_at: u32,
    mask: u32,
) -> (usize, Result<(), MemoryCallError>, Vec<i32>, u32) {
    let mut g = instance();
    let fs: Vec<ExportFn> = names.iter().map(|(n, _)| func(&*g, n)).collect();
    let args: Vec<[WasmValue; 1]> = names.iter().map(|(_, a)| [WasmValue::I32(*a)]).collect();
    let mut bufs = vec![[0u8; 4]; names.len()];
    let mut reads: Vec<[(u32, &mut [u8]); 1]> =
        bufs.iter_mut().map(|b| [(read_at, &mut b[..])]).collect();
    let mut calls = sequenced(&fs, &args, &[], &mut reads, Some((8, mask)));
    let mut statuses = vec![-9; names.len()];
    // A WASI import ran at start-up: forget it, as the core does after every call.
    let _ = g.take_refused();
    let (made, outcome) = g.call_sequence(&mut calls, &mut statuses);
    let mut count = [0u8; 4];
    assert!(g.read(0, &mut count));
    (
        made,
        outcome,
        statuses[..made].to_vec(),
        u32::from_le_bytes(count),
    )
}

#[wasm_bindgen_test]
fn a_sequence_stops_after_the_first_call_that_does_not_go_plainly() {
    set_call_bridge(true);
    let step = |code| ("step", code);
    // All plain: every call made, one crossing.
    assert_eq!(
        run(&[step(0), step(0), step(0)], 0, 0),
        (3, Ok(()), vec![0, 0, 0], 3)
    );
    // A status other than fmi3OK.
    assert_eq!(
        run(&[step(0), step(1), step(0)], 0, 0),
        (2, Ok(()), vec![0, 1], 2)
    );
    assert_eq!(run(&[step(3), step(0)], 0, 0), (1, Ok(()), vec![3], 1));
    // The go-on word: set by `flag` (256), stops only where the mask covers it.
    assert_eq!(
        run(&[("flag", 0), step(0)], 0, 0xFF),
        (2, Ok(()), vec![0, 0], 2)
    );
    assert_eq!(
        run(&[("flag", 0), step(0)], 0, 0xFF00),
        (1, Ok(()), vec![0], 1)
    );
    // Memory growth and a WASI import: the caller must look.
    assert_eq!(run(&[("grow", 0), step(0)], 0, 0), (1, Ok(()), vec![0], 1));
    assert_eq!(
        run(&[step(0), ("log", 0), step(0)], 0, 0),
        (2, Ok(()), vec![0, 0], 2)
    );
    // A read outside the memory ends the sequence with that call's error.
    let (made, outcome, _, count) = run(&[step(0), step(0)], PAGE - 2, 0);
    assert_eq!(
        (made, outcome, count),
        (1, Err(MemoryCallError::ReadOutside(PAGE - 2)), 1)
    );
    // A trap: the call that trapped is the last made.
    let (made, outcome, statuses, count) = run(&[step(0), ("trap", 0), step(0)], 0, 0);
    assert_eq!((made, &statuses[..1], count), (2, &[0][..], 2));
    assert!(
        matches!(&outcome, Err(MemoryCallError::Call(CallError::Trap(t))) if t.contains("unreachable")),
        "{outcome:?}"
    );
}

#[wasm_bindgen_test]
fn without_the_bridge_a_sequence_is_one_call_at_a_time() {
    set_call_bridge(false);
    let r = run(&[("step", 0), ("step", 0), ("step", 0)], 0, 0);
    set_call_bridge(true);
    assert_eq!(r, (1, Ok(()), vec![0], 1));
}

/// The page buffers of [`kept`]: the same addresses for every sequence, as a kept layout
/// requires.
struct Buffers {
    input: [u8; 4],
    echoes: [[u8; 4]; 2],
}

/// `names` as one sequence with `key` (none: not kept), `step`'s argument `codes[k]`,
/// each writing `b.input` at 16 and reading the 4 bytes at 16 into `b.echoes[k]`: the
/// number made and the statuses.
fn kept(
    g: &mut dyn GuestInstance,
    key: Option<SequenceKey>,
    names: &[&str],
    codes: &[i32],
    b: &mut Buffers,
) -> (usize, Vec<i32>) {
    let fs: Vec<ExportFn> = names.iter().map(|n| func(&*g, n)).collect();
    let args: Vec<[WasmValue; 1]> = codes.iter().map(|c| [WasmValue::I32(*c)]).collect();
    let writes = [(16, &b.input[..])];
    let [e0, e1] = &mut b.echoes;
    let mut reads = [[(16, &mut e0[..])], [(16, &mut e1[..])]];
    let mut calls = sequenced(&fs, &args, &writes, &mut reads, None);
    let mut statuses = vec![-9; names.len()];
    let (made, outcome) = match key {
        Some(key) => g.call_kept_sequence(key, &mut calls, &mut statuses),
        None => g.call_sequence(&mut calls, &mut statuses),
    };
    assert_eq!(outcome, Ok(()));
    (made, statuses[..made].to_vec())
}

#[wasm_bindgen_test]
fn a_kept_sequence_takes_new_arguments_and_bytes_and_is_laid_out_again_after_another() {
    set_call_bridge(true);
    let mut g = instance();
    let _ = g.take_refused();
    let key = SequenceKey::new();
    let b = &mut Buffers {
        input: *b"abcd",
        echoes: [[0; 4]; 2],
    };
    let step = ["step", "step"];
    assert_eq!(kept(&mut *g, Some(key), &step, &[0, 0], b), (2, vec![0, 0]));
    assert_eq!(b.echoes, [*b"abcd"; 2]);
    // Same layout: the new argument (a status of 1 stops it) and the new bytes are used.
    b.input = *b"efgh";
    assert_eq!(kept(&mut *g, Some(key), &step, &[0, 1], b), (2, vec![0, 1]));
    assert_eq!(b.echoes, [*b"efgh"; 2]);
    // Another sequence lays itself out over it (`flag` ignores its argument).
    let flag = ["flag", "flag"];
    assert_eq!(kept(&mut *g, None, &flag, &[3, 3], b), (2, vec![0, 0]));
    // The kept key again: `step` is called, not `flag` (which would not stop at 3).
    b.input = *b"ijkl";
    assert_eq!(kept(&mut *g, Some(key), &step, &[3, 0], b), (1, vec![3]));
    assert_eq!(b.echoes[0], *b"ijkl");
    let mut count = [0u8; 4];
    assert!(g.read(0, &mut count));
    assert_eq!(u32::from_le_bytes(count), 7);
}
