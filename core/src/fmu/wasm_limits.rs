//! A module's own growth made to ask the memory budget first, for an engine without a
//! resource limiter (the browser's `WebAssembly`): [`limit_growth`] rewrites every
//! `memory.grow` and `table.grow` into a call of a function it adds, which grows only
//! within the room the host leaves in exported globals ([`MEMORY_ROOM`], [`BUDGET_ROOM`],
//! [`TABLE_MAX`]) and otherwise records the request ([`REFUSED`], [`REFUSED_FROM`],
//! [`REFUSED_TO`]) and traps: nothing past the budget is ever reserved, and the host words
//! the refusal as wasmi's limiter does ([`super::MemoryAccount`]). A growth the module's
//! own declared maximum forbids still gives -1, as under wasmi.
//! Functions, globals and types are appended, so no index of the module changes; the
//! declared sizes are returned for the host to charge before instantiating.

use super::wasm_hooks::{global_entries, leb, Hooks, GLOBALS};
use super::wasm_instructions::{next, Instruction};
use super::wasm_sections::Reader;
use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

/// Exported i64 global: bytes the module's memory may still grow by (its own cap).
pub const MEMORY_ROOM: &str = "__cosim_memory_room";
/// Exported i64 global: bytes left in the shared budget, for memories and tables.
pub const BUDGET_ROOM: &str = "__cosim_budget_room";
/// Exported i64 global: the largest table, in elements.
pub const TABLE_MAX: &str = "__cosim_table_max";
/// Exported i32 global: 0, or what the trap refused: 1 a memory, 2 a table.
pub const REFUSED: &str = "__cosim_refused";
/// Exported i64 global: the refused growth's size before it (memory: bytes; table:
/// elements).
pub const REFUSED_FROM: &str = "__cosim_refused_from";
/// Exported i64 global: the size the refused growth asked for.
pub const REFUSED_TO: &str = "__cosim_refused_to";

/// [`REFUSED`] after a memory's growth was refused.
pub const REFUSED_MEMORY: i32 = 1;
/// [`REFUSED`] after a table's growth was refused.
pub const REFUSED_TABLE: i32 = 2;

/// [`MEMORY_ROOM`] until the host sets it (a start function runs before it can): the
/// default `RuntimeLimits`, as the other start values.
pub const DEFAULT_MEMORY_ROOM: i64 = 256 << 20;
/// [`BUDGET_ROOM`] until the host sets it.
pub const DEFAULT_BUDGET_ROOM: i64 = super::DEFAULT_BUDGET_BYTES as i64;
pub(super) const DEFAULT_TABLE_MAX: i64 = 1 << 20;

/// Pages a wasm32 memory may have at most.
pub(super) const MAX_PAGES: u64 = 1 << 16;

/// A module rewritten by [`limit_growth`].
#[derive(Clone, Debug, PartialEq)]
pub struct Limited {
    /// The rewritten binary.
    pub wasm: Vec<u8>,
    /// Initial size in bytes of each memory the module defines.
    pub memories: Vec<u64>,
    /// Initial size in elements of each table the module defines.
    pub tables: Vec<u64>,
    /// Whether any function grows a table (the host then reads [`BUDGET_ROOM`] after a
    /// call to charge what the tables took).
    pub grows_tables: bool,
}

/// Counts and declarations read before the rewrite.
#[derive(Default)]
pub(super) struct Module {
    pub(super) types: u32,
    pub(super) funcs: u32,
    pub(super) globals: u32,
    /// Reference type of every table (imported first).
    pub(super) table_types: Vec<u8>,
    /// Maximum pages of memory 0.
    pub(super) memory0_max: Option<u64>,
    pub(super) memories: u32,
    pub(super) defined_memories: Vec<u64>,
    pub(super) defined_tables: Vec<u64>,
}

/// `(flags, min, max)` of a memory or table type; 64-bit, shared or custom-page memories
/// are refused.
fn limits(r: &mut Reader<'_>) -> Result<(u64, Option<u64>), String> {
    let flags = r.byte()?;
    if flags & !1 != 0 {
        return Err(format!("limits with flags {flags:#04x} are not supported"));
    }
    let min = r.leb()?;
    let max = if flags & 1 != 0 { Some(r.leb()?) } else { None };
    Ok((min, max))
}

fn read_module(sections: &[(u8, &[u8])]) -> Result<Module, String> {
    let mut m = Module::default();
    for &(id, body) in sections {
        let mut s = Reader { bytes: body, at: 0 };
        match id {
            1 => m.types = s.u32()?,
            2 => {
                for _ in 0..s.u32()? {
                    s.name()?;
                    s.name()?;
                    match s.byte()? {
                        0 => {
                            s.u32()?;
                            m.funcs += 1;
                        }
                        1 => {
                            m.table_types.push(s.byte()?);
                            limits(&mut s)?;
                        }
                        2 => {
                            let (_, max) = limits(&mut s)?;
                            if m.memories == 0 {
                                m.memory0_max = max;
                            }
                            m.memories += 1;
                        }
                        3 => {
                            s.byte()?;
                            s.byte()?;
                            m.globals += 1;
                        }
                        k => return Err(format!("import kind {k} is not supported")),
                    }
                }
            }
            3 => m.funcs += s.u32()?,
            4 => {
                for _ in 0..s.u32()? {
                    let ty = s.byte()?;
                    if ty != 0x70 && ty != 0x6f {
                        return Err(format!("table type {ty:#04x} is not supported"));
                    }
                    m.table_types.push(ty);
                    m.defined_tables.push(limits(&mut s)?.0);
                }
            }
            5 => {
                for _ in 0..s.u32()? {
                    let (min, max) = limits(&mut s)?;
                    if m.memories == 0 {
                        m.memory0_max = max;
                    }
                    m.memories += 1;
                    m.defined_memories.push(min.saturating_mul(1 << 16));
                }
            }
            6 => m.globals = m.globals.saturating_add(s.u32()?),
            _ => {}
        }
    }
    Ok(m)
}

/// Section order of the standard, custom sections aside (tag 13 sits before global 6,
/// data count 12 before code 10).
fn rank(id: u8) -> u8 {
    match id {
        13 => 6,
        6..=9 => id + 1,
        12 => 11,
        10 | 11 => id + 2,
        _ => id,
    }
}

/// `count` more entries after the existing ones of vector section `body`.
fn extend_vec(body: Option<&[u8]>, count: u32, entries: &[u8]) -> Result<Vec<u8>, String> {
    let (old, rest) = match body {
        Some(b) => {
            let mut r = Reader { bytes: b, at: 0 };
            let n = r.u32()?;
            (n, &b[r.at..])
        }
        None => (0, &[][..]),
    };
    let mut out = Vec::new();
    leb(&mut out, u64::from(old) + u64::from(count));
    out.extend_from_slice(rest);
    out.extend_from_slice(entries);
    Ok(out)
}

/// Rewrites `wasm` so that its memory and table growth asks first (see the module doc).
pub fn limit_growth(wasm: &[u8]) -> Result<Limited, String> {
    if wasm.get(..8) != Some(&[0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]) {
        return Err(String::from("not a wasm binary (version 1)"));
    }
    let mut r = Reader { bytes: wasm, at: 8 };
    let mut sections: Vec<(u8, &[u8])> = Vec::new();
    while r.at < wasm.len() {
        let id = r.byte()?;
        let size = r.u32()? as usize;
        sections.push((id, r.take(size)?));
    }
    let m = read_module(&sections)?;
    if m.memories > 1 {
        return Err(String::from("more than one memory is not supported"));
    }
    let hooks = Hooks::plan(&m);
    let body = |id: u8| sections.iter().find(|(k, _)| *k == id).map(|&(_, b)| b);
    let mut grows_tables = false;
    let mut added: Vec<(u8, Vec<u8>)> = vec![
        (
            1,
            extend_vec(body(1), hooks.types.len() as u32, &hooks.type_entries())?,
        ),
        (
            3,
            extend_vec(body(3), hooks.funcs.len() as u32, &hooks.func_entries())?,
        ),
        (
            6,
            extend_vec(body(6), GLOBALS.len() as u32, &global_entries())?,
        ),
        (
            7,
            extend_vec(body(7), GLOBALS.len() as u32, &hooks.export_entries())?,
        ),
    ];
    if let Some(code) = body(10) {
        let mut rewritten = rewrite_code(code, &hooks, &mut grows_tables)?;
        let mut r = Reader {
            bytes: &rewritten,
            at: 0,
        };
        let n = r.u32()?;
        let mut out = Vec::new();
        leb(&mut out, u64::from(n) + hooks.funcs.len() as u64);
        out.extend_from_slice(&rewritten.split_off(r.at));
        out.extend_from_slice(&hooks.bodies());
        added.push((10, out));
    } else if !hooks.funcs.is_empty() {
        added.push((
            10,
            extend_vec(None, hooks.funcs.len() as u32, &hooks.bodies())?,
        ));
    }
    let mut sections: Vec<(u8, Vec<u8>)> = sections
        .iter()
        .map(
            |&(id, b)| match added.iter().find(|(k, _)| *k == id && id != 0) {
                Some((_, new)) => (id, new.clone()),
                None => (id, b.to_vec()),
            },
        )
        .collect();
    for (k, new) in added {
        if sections.iter().any(|(id, _)| *id == k) {
            continue;
        }
        // A section the module lacks goes before the first one that follows it.
        let at = sections
            .iter()
            .position(|(id, _)| *id != 0 && rank(*id) > rank(k))
            .unwrap_or(sections.len());
        sections.insert(at, (k, new));
    }
    let mut out = wasm[..8].to_vec();
    for (id, b) in &sections {
        out.push(*id);
        leb(&mut out, b.len() as u64);
        out.extend_from_slice(b);
    }
    Ok(Limited {
        wasm: out,
        memories: m.defined_memories,
        tables: m.defined_tables,
        grows_tables,
    })
}

/// The code section `code` with every `memory.grow` and `table.grow` a call of its hook.
fn rewrite_code(code: &[u8], hooks: &Hooks, grows_tables: &mut bool) -> Result<Vec<u8>, String> {
    let mut r = Reader { bytes: code, at: 0 };
    let mut out = Vec::with_capacity(code.len() + 64);
    let n = r.u32()?;
    leb(&mut out, u64::from(n));
    for k in 0..n {
        let size = r.u32()? as usize;
        let mut b = Reader {
            bytes: r.take(size)?,
            at: 0,
        };
        for _ in 0..b.u32()? {
            b.u32()?;
            b.val_type()?;
        }
        let mut body = b.bytes[..b.at].to_vec();
        while b.at < b.bytes.len() {
            let start = b.at;
            let call = match next(&mut b).map_err(|e| format!("function {k}: {e}"))? {
                Instruction::MemoryGrow(0) => hooks.memory,
                Instruction::MemoryGrow(m) => {
                    return Err(format!("memory.grow of memory {m} is not supported"))
                }
                Instruction::TableGrow(t) => {
                    *grows_tables = true;
                    hooks.tables.get(t as usize).copied()
                }
                Instruction::Other => None,
            };
            match call {
                Some(f) => {
                    body.push(0x10);
                    leb(&mut body, u64::from(f));
                }
                None => body.extend_from_slice(&b.bytes[start..b.at]),
            }
        }
        leb(&mut out, body.len() as u64);
        out.extend_from_slice(&body);
    }
    Ok(out)
}
