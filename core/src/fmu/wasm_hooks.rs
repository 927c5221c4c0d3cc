//! The functions, globals and types [`super::wasm_limits::limit_growth`] adds to a
//! module: a function per memory and table that grows it only within the room the host
//! leaves in the added globals, and otherwise records the request and traps.

use super::wasm_limits::{
    Module, BUDGET_ROOM, DEFAULT_BUDGET_ROOM, DEFAULT_MEMORY_ROOM, DEFAULT_TABLE_MAX, MAX_PAGES,
    MEMORY_ROOM, REFUSED, REFUSED_FROM, REFUSED_TO, TABLE_MAX,
};
use alloc::vec;
use alloc::vec::Vec;

/// Appends `v` as unsigned LEB128.
pub(super) fn leb(out: &mut Vec<u8>, mut v: u64) {
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

/// Appends `v` as signed LEB128.
fn sleb(out: &mut Vec<u8>, mut v: i64) {
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        if (v == 0 && b & 0x40 == 0) || (v == -1 && b & 0x40 != 0) {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

/// The added globals in order: name, type, initial value.
pub(super) const GLOBALS: [(&str, u8, i64); 6] = [
    (MEMORY_ROOM, 0x7e, DEFAULT_MEMORY_ROOM),
    (BUDGET_ROOM, 0x7e, DEFAULT_BUDGET_ROOM),
    (TABLE_MAX, 0x7e, DEFAULT_TABLE_MAX),
    (REFUSED, 0x7f, 0),
    (REFUSED_FROM, 0x7e, 0),
    (REFUSED_TO, 0x7e, 0),
];

/// The entries of the global section for [`GLOBALS`] (mutable, with their start values).
pub(super) fn global_entries() -> Vec<u8> {
    let mut out = Vec::new();
    for (_, ty, init) in GLOBALS {
        out.extend_from_slice(&[ty, 1, if ty == 0x7e { 0x42 } else { 0x41 }]);
        sleb(&mut out, init);
        out.push(0x0b);
    }
    out
}

/// The functions added: one for memory 0 (if the module has a memory) and one per table.
pub(super) struct Hooks {
    /// Function types added: `(i32) -> i32`, then `(ref, i32) -> i32` per reference type.
    pub(super) types: Vec<Vec<u8>>,
    /// Per added function: its type (index among `types`) and its body.
    pub(super) funcs: Vec<(usize, Vec<u8>)>,
    /// Function index of the memory's hook.
    pub(super) memory: Option<u32>,
    /// Function index of each table's hook, by table index.
    pub(super) tables: Vec<u32>,
    /// Index of the first added type and global (after the module's own).
    pub(super) first_type: u32,
    pub(super) first_global: u32,
}

impl Hooks {
    /// The hooks of module `m`, numbered after its own functions, types and globals.
    pub(super) fn plan(m: &Module) -> Hooks {
        let g = m.globals;
        let mut h = Hooks {
            types: vec![vec![0x60, 1, 0x7f, 1, 0x7f]],
            funcs: Vec::new(),
            memory: None,
            tables: Vec::new(),
            first_type: m.types,
            first_global: g,
        };
        if m.memories > 0 {
            let max = m.memory0_max.unwrap_or(MAX_PAGES).min(MAX_PAGES);
            h.memory = Some(m.funcs);
            h.funcs.push((0, memory_hook(g, max)));
        }
        for (t, &ref_type) in m.table_types.iter().enumerate() {
            let ty = vec![0x60, 2, ref_type, 0x7f, 1, 0x7f];
            let k = match h.types.iter().position(|x| *x == ty) {
                Some(k) => k,
                None => {
                    h.types.push(ty);
                    h.types.len() - 1
                }
            };
            h.tables.push(m.funcs + h.funcs.len() as u32);
            h.funcs.push((k, table_hook(g, t as u32)));
        }
        h
    }

    pub(super) fn type_entries(&self) -> Vec<u8> {
        self.types.concat()
    }

    pub(super) fn func_entries(&self) -> Vec<u8> {
        let mut out = Vec::new();
        for (ty, _) in &self.funcs {
            leb(&mut out, u64::from(self.first_type) + *ty as u64);
        }
        out
    }

    pub(super) fn export_entries(&self) -> Vec<u8> {
        let mut out = Vec::new();
        for (k, (name, _, _)) in GLOBALS.iter().enumerate() {
            leb(&mut out, name.len() as u64);
            out.extend_from_slice(name.as_bytes());
            out.push(3);
            leb(&mut out, u64::from(self.first_global) + k as u64);
        }
        out
    }

    pub(super) fn bodies(&self) -> Vec<u8> {
        let mut out = Vec::new();
        for (_, body) in &self.funcs {
            leb(&mut out, body.len() as u64);
            out.extend_from_slice(body);
        }
        out
    }
}

/// Offsets of the added globals from the first one (the order of [`GLOBALS`]).
const MEMORY_ROOM_AT: u8 = 0;
const BUDGET_ROOM_AT: u8 = 1;
const TABLE_MAX_AT: u8 = 2;
const REFUSED_AT: u8 = 3;
const FROM_AT: u8 = 4;
const TO_AT: u8 = 5;
const GET: u8 = 0x23;
const SET: u8 = 0x24;

/// `(param $pages i32) (result i32) (local $bytes i64)`: -1 past the declared maximum
/// `max` pages; past the rooms, the request recorded and a trap; else `memory.grow` and
/// the rooms reduced by what it took.
fn memory_hook(g: u32, max: u64) -> Vec<u8> {
    let mut c = vec![1, 1, 0x7e]; // one i64 local
    let gl = |c: &mut Vec<u8>, op: u8, k: u8| {
        c.push(op);
        leb(c, u64::from(g) + u64::from(k));
    };
    // memory.size + pages > max: -1, as the engine says.
    c.extend_from_slice(&[0x3f, 0x00, 0xad, 0x20, 0x00, 0xad, 0x7c, 0x42]);
    sleb(&mut c, max as i64);
    c.extend_from_slice(&[0x56, 0x04, 0x40, 0x41, 0x7f, 0x0f, 0x0b]);
    // bytes = pages << 16
    c.extend_from_slice(&[0x20, 0x00, 0xad, 0x42, 0x10, 0x86, 0x21, 0x01]);
    // bytes > memory room | bytes > budget room
    c.extend_from_slice(&[0x20, 0x01]);
    gl(&mut c, GET, MEMORY_ROOM_AT);
    c.extend_from_slice(&[0x56, 0x20, 0x01]);
    gl(&mut c, GET, BUDGET_ROOM_AT);
    c.extend_from_slice(&[0x56, 0x72, 0x04, 0x40, 0x41, 0x01]);
    gl(&mut c, SET, REFUSED_AT);
    c.extend_from_slice(&[0x3f, 0x00, 0xad, 0x42, 0x10, 0x86]);
    gl(&mut c, SET, FROM_AT);
    c.extend_from_slice(&[0x3f, 0x00, 0xad, 0x20, 0x00, 0xad, 0x7c, 0x42, 0x10, 0x86]);
    gl(&mut c, SET, TO_AT);
    c.extend_from_slice(&[0x00, 0x0b]);
    // grown = memory.grow(pages); if grown != -1 the rooms shrink
    c.extend_from_slice(&[
        0x20, 0x00, 0x40, 0x00, 0x22, 0x00, 0x41, 0x7f, 0x47, 0x04, 0x40,
    ]);
    for room in [MEMORY_ROOM_AT, BUDGET_ROOM_AT] {
        gl(&mut c, GET, room);
        c.extend_from_slice(&[0x20, 0x01, 0x7d]);
        gl(&mut c, SET, room);
    }
    c.extend_from_slice(&[0x0b, 0x20, 0x00, 0x0b]);
    c
}

/// `(param $init ref) (param $n i32) (result i32) (local $bytes i64)` for table `t`:
/// past [`TABLE_MAX`] or the budget room, the request recorded and a trap; else
/// `table.grow` and the budget room reduced by what it took.
fn table_hook(g: u32, t: u32) -> Vec<u8> {
    let mut c = vec![1, 1, 0x7e];
    let gl = |c: &mut Vec<u8>, op: u8, k: u8| {
        c.push(op);
        leb(c, u64::from(g) + u64::from(k));
    };
    let size = |c: &mut Vec<u8>| {
        c.extend_from_slice(&[0xfc, 0x10]);
        leb(c, u64::from(t));
        c.push(0xad);
    };
    // bytes = n * 16 (super::TABLE_ELEMENT_BYTES)
    c.extend_from_slice(&[0x20, 0x01, 0xad, 0x42, 0x04, 0x86, 0x21, 0x02]);
    size(&mut c);
    c.extend_from_slice(&[0x20, 0x01, 0xad, 0x7c]);
    gl(&mut c, GET, TABLE_MAX_AT);
    c.extend_from_slice(&[0x56, 0x20, 0x02]);
    gl(&mut c, GET, BUDGET_ROOM_AT);
    c.extend_from_slice(&[0x56, 0x72, 0x04, 0x40, 0x41, 0x02]);
    gl(&mut c, SET, REFUSED_AT);
    size(&mut c);
    gl(&mut c, SET, FROM_AT);
    size(&mut c);
    c.extend_from_slice(&[0x20, 0x01, 0xad, 0x7c]);
    gl(&mut c, SET, TO_AT);
    c.extend_from_slice(&[0x00, 0x0b]);
    c.extend_from_slice(&[0x20, 0x00, 0x20, 0x01, 0xfc, 0x0f]);
    leb(&mut c, u64::from(t));
    c.extend_from_slice(&[0x22, 0x01, 0x41, 0x7f, 0x47, 0x04, 0x40]);
    gl(&mut c, GET, BUDGET_ROOM_AT);
    c.extend_from_slice(&[0x20, 0x02, 0x7d]);
    gl(&mut c, SET, BUDGET_ROOM_AT);
    c.extend_from_slice(&[0x0b, 0x20, 0x01, 0x0b]);
    c
}
