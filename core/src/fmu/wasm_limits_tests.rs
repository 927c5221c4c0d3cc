//! [`super::wasm_limits::limit_growth`] under wasmi without its limiter: the rewritten
//! module grows within the rooms the host leaves it, records and traps past them, keeps
//! its declared maximum's -1, keeps every index, and every example FMU still loads.

use super::archive::Archive;
use super::wasm_limits::*;
use alloc::vec::Vec;
use wasmi::{Engine, Instance, Linker, Module, Store, Val};

fn limited(wat: &str) -> Limited {
    limit_growth(&wat::parse_str(wat).unwrap()).unwrap()
}

fn instance(wasm: &[u8]) -> (Store<()>, Instance) {
    let engine = Engine::default();
    let module = Module::new(&engine, wasm).unwrap();
    let mut store = Store::new(&engine, ());
    let instance = Linker::new(&engine)
        .instantiate_and_start(&mut store, &module)
        .unwrap();
    (store, instance)
}

fn global(store: &Store<()>, i: &Instance, name: &str) -> i64 {
    match i.get_global(store, name).unwrap().get(store) {
        Val::I32(v) => i64::from(v),
        Val::I64(v) => v,
        other => panic!("{other:?}"),
    }
}

fn set(store: &mut Store<()>, i: &Instance, name: &str, v: i64) {
    i.get_global(&*store, name)
        .unwrap()
        .set(&mut *store, Val::I64(v))
        .unwrap();
}

/// `f(arg)` as an i32, or the trap.
fn call(store: &mut Store<()>, i: &Instance, f: &str, arg: i32) -> Result<i32, wasmi::Error> {
    let f = i.get_typed_func::<i32, i32>(&*store, f).unwrap();
    f.call(store, arg)
}

const GROWER: &str = r#"(module
    (memory (export "memory") 1 8)
    (table $t 1 funcref)
    (func $grow (export "grow") (param i32) (result i32) (memory.grow (local.get 0)))
    (func (export "grow_table") (param i32) (result i32) (table.grow $t (ref.null func) (local.get 0)))
    (func $seven (result i32) (i32.const 7))
    (elem (i32.const 0) $seven)
    (func (export "indirect") (param i32) (result i32) (call_indirect (result i32) (local.get 0)))
    (func (export "direct") (param i32) (result i32) (i32.add (call $grow (i32.const 0)) (local.get 0))))"#;

#[test]
fn memory_grows_within_the_rooms_and_traps_past_them_with_the_request_recorded() {
    let l = limited(GROWER);
    assert_eq!(l.memories, [65536]);
    assert_eq!(l.tables, [1]);
    assert!(l.grows_tables);
    let (mut s, i) = instance(&l.wasm);
    set(&mut s, &i, MEMORY_ROOM, 2 << 16);
    set(&mut s, &i, BUDGET_ROOM, 10 << 16);
    assert_eq!(
        call(&mut s, &i, "grow", 1).unwrap(),
        1,
        "the old size in pages"
    );
    assert_eq!(
        global(&s, &i, MEMORY_ROOM),
        1 << 16,
        "the room shrinks by what it took"
    );
    assert_eq!(global(&s, &i, BUDGET_ROOM), 9 << 16);
    // Past the declared maximum (8 pages): -1, as the engine says, nothing recorded.
    assert_eq!(call(&mut s, &i, "grow", 7).unwrap(), -1);
    assert_eq!(global(&s, &i, REFUSED), 0);
    // Past the module's room: a trap, and the request for the host's message.
    assert!(call(&mut s, &i, "grow", 2).is_err());
    assert_eq!(global(&s, &i, REFUSED), i64::from(REFUSED_MEMORY));
    assert_eq!(global(&s, &i, REFUSED_FROM), 2 << 16);
    assert_eq!(global(&s, &i, REFUSED_TO), 4 << 16);
    let memory = i.get_memory(&s, "memory").unwrap();
    assert_eq!(memory.data(&s).len(), 2 << 16, "nothing was reserved");
    // Past the shared budget's room.
    set(&mut s, &i, MEMORY_ROOM, 100 << 16);
    set(&mut s, &i, BUDGET_ROOM, 0);
    assert!(call(&mut s, &i, "grow", 1).is_err());
    assert_eq!(
        call(&mut s, &i, "grow", 0).unwrap(),
        2,
        "growing by nothing needs no room"
    );
}

#[test]
fn tables_grow_within_their_cap_and_the_budget_room() {
    let (mut s, i) = instance(&limited(GROWER).wasm);
    set(&mut s, &i, TABLE_MAX, 4);
    assert_eq!(call(&mut s, &i, "grow_table", 2).unwrap(), 1);
    assert_eq!(
        global(&s, &i, BUDGET_ROOM),
        i64::from(super::DEFAULT_BUDGET_BYTES as i32) - 32,
        "two elements of TABLE_ELEMENT_BYTES"
    );
    assert!(call(&mut s, &i, "grow_table", 2).is_err(), "5 elements > 4");
    assert_eq!(global(&s, &i, REFUSED), i64::from(REFUSED_TABLE));
    assert_eq!(global(&s, &i, REFUSED_FROM), 3);
    assert_eq!(global(&s, &i, REFUSED_TO), 5);
    set(&mut s, &i, TABLE_MAX, 100);
    set(&mut s, &i, BUDGET_ROOM, 16);
    assert_eq!(call(&mut s, &i, "grow_table", 1).unwrap(), 3);
    assert!(
        call(&mut s, &i, "grow_table", 1).is_err(),
        "the budget room is spent"
    );
}

#[test]
fn every_index_of_the_module_is_kept() {
    let (mut s, i) = instance(&limited(GROWER).wasm);
    assert_eq!(
        call(&mut s, &i, "indirect", 0).unwrap(),
        7,
        "the element segment"
    );
    assert_eq!(call(&mut s, &i, "direct", 5).unwrap(), 6, "a call by index");
}

#[test]
fn a_module_without_globals_exports_or_growth_gets_its_sections_in_order() {
    let l = limited(r#"(module (func (export "f") (result i32) (i32.const 3)) (data "x"))"#);
    assert!(l.memories.is_empty() && l.tables.is_empty() && !l.grows_tables);
    let (mut s, i) = instance(&l.wasm);
    let f = i.get_typed_func::<(), i32>(&s, "f").unwrap();
    assert_eq!(f.call(&mut s, ()).unwrap(), 3);
    assert_eq!(global(&s, &i, REFUSED), 0);
    let bare = limited("(module)");
    instance(&bare.wasm);
}

#[test]
fn what_is_not_supported_is_named() {
    let two = "(module (memory 1) (memory 1) (func (drop (memory.grow 1 (i32.const 1)))))";
    let two = wat::parse_str(two).unwrap();
    assert!(limit_growth(&two)
        .unwrap_err()
        .contains("more than one memory"));
    let mut junk = wat::parse_str("(module (func nop))").unwrap();
    let at = junk.len() - 2;
    junk[at] = 0xff; // the nop
    assert!(limit_growth(&junk)
        .unwrap_err()
        .contains("instruction 0xff"));
    assert!(limit_growth(b"\0asm\x02\0\0\0").is_err());
}

/// The wasm of every example FMU under tests/fixtures/fmus, rewritten, loads and
/// initializes under wasmi as the original does (the page runs them rewritten).
#[test]
fn every_example_fmu_loads_rewritten() {
    let fixtures: [&[u8]; 6] = [
        include_bytes!("../../../tests/fixtures/fmus/c_spring_damper.fmu"),
        include_bytes!("../../../tests/fixtures/fmus/c_types.fmu"),
        include_bytes!("../../../tests/fixtures/fmus/c_clocks.fmu"),
        include_bytes!("../../../tests/fixtures/fmus/c_timers.fmu"),
        include_bytes!("../../../tests/fixtures/fmus/c_table.fmu"),
        include_bytes!("../../../tests/fixtures/fmus/rust_oscillator.fmu"),
    ];
    for fmu in fixtures {
        let archive = Archive::parse(fmu).unwrap();
        let wasm: Vec<u8> = archive
            .names()
            .find(|n| n.starts_with("binaries/wasm32/") && n.ends_with(".wasm"))
            .map(|n| archive.read(n).unwrap().unwrap())
            .unwrap();
        let l = limit_growth(&wasm).unwrap();
        assert!(!l.grows_tables);
        let engine = Engine::default();
        Module::new(&engine, &l.wasm).unwrap();
        let original = super::wasm_sections::parse(&wasm).unwrap();
        let rewritten = super::wasm_sections::parse(&l.wasm).unwrap();
        assert_eq!(original.imports, rewritten.imports);
        assert_eq!(
            rewritten.exports[..original.exports.len()],
            original.exports
        );
    }
}
