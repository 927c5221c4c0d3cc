//! The call bridge (`engine::bridge`): every kind of call a binary module gets from the
//! core gives the same outcome through the bridge (multi-memory wasm) as through the JS
//! copy path it replaces, checked against values computed by hand, in headless Chromium.
#![cfg(target_arch = "wasm32")]

use cosim_core::fmu::sandbox::{CallError, GuestInstance, MemoryCallError, WasmValue};
use cosim_wasm::engine::{bridges_live, set_call_bridge};
use wasm_bindgen_test::*;

mod guest;

use guest::func;

wasm_bindgen_test_configure!(run_in_browser);

/// One page of memory and a function per kind of call.
const MODULE: &str = r#"(module
  (memory (export "memory") 1)
  (func (export "sum") (param i32 i32 i32) (result i32)
    local.get 2 local.get 0 f64.load local.get 1 f64.load f64.add f64.store i32.const 7)
  (func (export "mix") (param i32 f64 f32 i32) (result f64)
    local.get 1 local.get 2 f64.promote_f32 f64.mul
    local.get 0 f64.convert_i32_s f64.add local.get 3 f64.convert_i32_s f64.add)
  (func (export "half") (param f32) (result f32) local.get 0 f32.const 0.5 f32.mul)
  (func (export "nothing") (param i32))
  (func (export "trap") (result i32) unreachable)
  (func (export "grow") (param i32) (result i32) local.get 0 memory.grow)
  (func (export "wide") (param i64) (result i64) local.get 0 i64.const 1 i64.add))"#;

const PAGE: u32 = 65536;

fn instance() -> Box<dyn GuestInstance> {
    guest::instance(MODULE)
}

/// One call with its copies: the outcome, the result and the bytes read.
fn call(
    g: &mut dyn GuestInstance,
    name: &str,
    args: &[WasmValue],
    result: WasmValue,
    writes: &[(u32, &[u8])],
    reads: &[(u32, usize)],
) -> (Result<(), MemoryCallError>, WasmValue, Vec<Vec<u8>>) {
    let f = func(g, name);
    let mut out = [result];
    let results = if name == "nothing" {
        &mut out[..0]
    } else {
        &mut out[..]
    };
    let mut bufs: Vec<Vec<u8>> = reads.iter().map(|(_, n)| vec![0xAA; *n]).collect();
    let mut r: Vec<(u32, &mut [u8])> = reads
        .iter()
        .zip(bufs.iter_mut())
        .map(|((at, _), b)| (*at, &mut b[..]))
        .collect();
    let outcome = g.call_with_memory(f, args, results, writes, &mut r);
    (outcome, out[0], bufs)
}

/// Every case, in order, on a fresh instance (as `Debug` text, to compare both paths).
fn cases() -> Vec<String> {
    let mut g = instance();
    let g = &mut *g;
    let (a, b) = (1.25f64.to_le_bytes(), 2.25f64.to_le_bytes());
    let i32v = WasmValue::I32(0);
    let mut seen = Vec::new();
    let mut record = |what: &str, got: (Result<(), MemoryCallError>, WasmValue, Vec<Vec<u8>>)| {
        seen.push(format!("{what}: {got:?}"));
        got
    };
    let sum = call(
        g,
        "sum",
        &[16, 24, 32].map(WasmValue::I32),
        i32v,
        &[(16, &a), (24, &b)],
        &[(32, 8)],
    );
    let sum = record("sum", sum);
    assert!(sum.0.is_ok());
    assert_eq!(sum.1, WasmValue::I32(7));
    assert_eq!(sum.2[0], 3.5f64.to_le_bytes());
    let args = [
        WasmValue::I32(-3),
        WasmValue::F64(1.5),
        WasmValue::F32(2.0),
        WasmValue::I32(10),
    ];
    let mix = record("mix", call(g, "mix", &args, WasmValue::F64(0.0), &[], &[]));
    assert_eq!(mix.1, WasmValue::F64(10.0));
    let half = record(
        "half",
        call(
            g,
            "half",
            &[WasmValue::F32(3.0)],
            WasmValue::F32(0.0),
            &[],
            &[],
        ),
    );
    assert_eq!(half.1, WasmValue::F32(1.5));
    let none = record(
        "nothing",
        call(
            g,
            "nothing",
            &[WasmValue::I32(1)],
            i32v,
            &[(0, &a)],
            &[(0, 8)],
        ),
    );
    assert!(none.0.is_ok());
    assert_eq!(none.2[0], a);
    // Copies of every size: 4 and 8 bytes take a load and a store, others `memory.copy`.
    let sixteen: Vec<u8> = (10..26).collect();
    let writes: [(u32, &[u8]); 4] = [
        (100, &[1, 2, 3, 4]),
        (104, &[5, 6, 7]),
        (107, &[8]),
        (112, &sixteen),
    ];
    let sizes = record(
        "copies",
        call(
            g,
            "nothing",
            &[WasmValue::I32(0)],
            i32v,
            &writes,
            &[(100, 4), (104, 3), (112, 16), (100, 8), (96, 32)],
        ),
    );
    assert!(sizes.0.is_ok());
    assert_eq!(sizes.2[0], [1, 2, 3, 4]);
    assert_eq!(sizes.2[1], [5, 6, 7]);
    assert_eq!(sizes.2[2], sixteen);
    assert_eq!(sizes.2[3], [1, 2, 3, 4, 5, 6, 7, 8]);
    assert_eq!(&sizes.2[4][4..12], &[1, 2, 3, 4, 5, 6, 7, 8]);
    // A write reaching past the end calls nothing; a read past it is reported after the call.
    let w = record(
        "write outside",
        call(
            g,
            "sum",
            &[0, 8, 16].map(WasmValue::I32),
            i32v,
            &[(PAGE - 4, &a)],
            &[],
        ),
    );
    assert!(matches!(w.0, Err(MemoryCallError::WriteOutside(at)) if at == PAGE - 4));
    let w = record(
        "write wrapping",
        call(
            g,
            "sum",
            &[0, 8, 16].map(WasmValue::I32),
            i32v,
            &[(u32::MAX - 2, &a)],
            &[],
        ),
    );
    assert!(matches!(w.0, Err(MemoryCallError::WriteOutside(at)) if at == u32::MAX - 2));
    let r = record(
        "read outside",
        call(
            g,
            "sum",
            &[16, 24, 40].map(WasmValue::I32),
            i32v,
            &[],
            &[(8, 8), (PAGE - 6, 8)],
        ),
    );
    assert!(matches!(r.0, Err(MemoryCallError::ReadOutside(at)) if at == PAGE - 6));
    assert_eq!(r.2[0], [0; 8], "the read before the one outside is done");
    let t = record("trap", call(g, "trap", &[], i32v, &[], &[]));
    assert!(
        matches!(&t.0, Err(MemoryCallError::Call(CallError::Trap(m))) if m == "wasm `unreachable` instruction executed"),
        "{t:?}"
    );
    // What a call grew is readable by the copies after it.
    let grow = record(
        "grow",
        call(g, "grow", &[WasmValue::I32(1)], i32v, &[], &[(PAGE + 8, 8)]),
    );
    assert!(grow.0.is_ok(), "{grow:?}");
    assert_eq!(grow.1, WasmValue::I32(1));
    let wide = record(
        "wide",
        call(
            g,
            "wide",
            &[WasmValue::I64(41)],
            WasmValue::I64(0),
            &[],
            &[],
        ),
    );
    assert_eq!(wide.1, WasmValue::I64(42));
    seen
}

#[wasm_bindgen_test]
fn the_bridge_gives_what_the_js_copies_give() {
    set_call_bridge(false);
    let before = bridges_live();
    let js = cases();
    assert_eq!(bridges_live(), before, "no wrapper without the bridge");
    set_call_bridge(true);
    let bridged = {
        let g = instance();
        assert!(bridges_live() > before, "the engine compiled the bridge");
        drop(g);
        assert_eq!(
            bridges_live(),
            before,
            "wrappers are released with the instance"
        );
        cases()
    };
    assert_eq!(bridged, js);
}
