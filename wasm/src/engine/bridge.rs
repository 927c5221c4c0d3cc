//! The call bridge: a small wasm module, generated per binary module, that imports the
//! page's memory, the module's (multi-memory) and the module's exported functions, and
//! wraps each function so that one JS call does an FMI call's copies (a load and a store
//! for 4 or 8 bytes, else `memory.copy`) and calls the module directly, wasm to wasm. It
//! replaces the JS copies of `glue::call_io` (views, byte loops, an argument switch) on
//! engines with multi-memory; the JS frame left around it only catches traps, which wasm
//! cannot.
//!
//! Wrapper `w{k}(io, nw, nr, res, args) -> i32` for export `k` loads the function's
//! arguments from page address `args` (8 bytes each) and keeps `glue::call_io`'s
//! contract: copy the `nw` triples `[module address, page address, length]` at page
//! address `io` into the module's memory, call, store the result (as f64) and the module
//! memory's size in bytes (as f64) at page address `res`, copy the next `nr` triples out;
//! 0 when done, `-1 - k` when triple `k` lies outside the module's memory (a write
//! outside calls nothing). Exports with an i64, vector or reference type, or more than
//! one result, get no wrapper: they take the boxed path (`call::call_boxed`).

use super::glue;
use cosim_core::fmu::sandbox::{FuncSig, WasmType};
use cosim_core::fmu::wasm_sections::{ExportKind as SectionKind, WasmInterface};
use js_sys::{Function, Object, Reflect, Uint8Array, WebAssembly};
use std::cell::Cell;
use wasm_bindgen::prelude::*;
use wasm_encoder::{
    BlockType, CodeSection, ConstExpr, ElementSection, Elements, EntityType, ExportKind,
    ExportSection, Function as Body, FunctionSection, ImportSection, InstructionSink, MemArg,
    MemArgTarget, MemoryType, Module, RefType, TableSection, TableType, TypeSection, ValType,
};

/// Memory indices in the bridge: the page's, then the module's.
const PAGE: u32 = 0;
const GUEST: u32 = 1;
/// The wrapper's parameters: io, nw, nr, res, args.
const LEAD: u32 = 5;
/// The most arguments a call passes as numbers (`glue::call_io`) or in page memory.
pub(super) const MAX_ARGS: usize = 12;

/// Whether a function of type `sig` can be wrapped.
fn bridgeable(sig: &FuncSig) -> bool {
    let number = |t: &WasmType| matches!(t, WasmType::I32 | WasmType::F32 | WasmType::F64);
    sig.params.len() <= MAX_ARGS
        && sig.params.iter().all(number)
        && sig.results.len() <= 1
        && sig.results.iter().all(number)
}

fn val(t: WasmType) -> ValType {
    match t {
        WasmType::F32 => ValType::F32,
        WasmType::F64 => ValType::F64,
        _ => ValType::I32,
    }
}

/// The bridge of `exports` (name and type of each exported function): the module's
/// bytes and, per export, the wrapper's number (`w{k}`, imported as `f.{k}`), or `None`.
pub(super) fn encode(exports: &[(&str, &FuncSig)]) -> (Vec<u8>, Vec<Option<u32>>) {
    let mut types = TypeSection::new();
    let mut imports = ImportSection::new();
    let mut functions = FunctionSection::new();
    let mut code = CodeSection::new();
    let mut names = ExportSection::new();
    let memory = EntityType::Memory(MemoryType {
        minimum: 0,
        maximum: None,
        memory64: false,
        shared: false,
        page_size_log2: None,
    });
    imports.import("m", "page", memory);
    imports.import("m", "guest", memory);
    let wrapped: Vec<(usize, &FuncSig)> = exports
        .iter()
        .enumerate()
        .filter(|(_, (_, sig))| bridgeable(sig))
        .map(|(i, (_, sig))| (i, *sig))
        .collect();
    // Types: the wrappers' (0), then per wrapped function its own (k + 1).
    types
        .ty()
        .function([ValType::I32; LEAD as usize], [ValType::I32]);
    for (k, (_, sig)) in wrapped.iter().enumerate() {
        let params: Vec<ValType> = sig.params.iter().map(|t| val(*t)).collect();
        let results: Vec<ValType> = sig.results.iter().map(|t| val(*t)).collect();
        types.ty().function(params, results);
        imports.import("f", &k.to_string(), EntityType::Function(k as u32 + 1));
    }
    let count = wrapped.len() as u32;
    for (k, (_, sig)) in wrapped.iter().enumerate() {
        functions.function(0);
        code.function(&wrapper(k as u32, sig));
        names.export(&format!("w{k}"), ExportKind::Func, count + k as u32);
    }
    // `seq` calls the wrappers through a table of them (their type is one).
    let mut tables = TableSection::new();
    tables.table(TableType {
        element_type: RefType::FUNCREF,
        table64: false,
        minimum: u64::from(count),
        maximum: Some(u64::from(count)),
        shared: false,
    });
    let wrappers: Vec<u32> = (count..2 * count).collect();
    let mut elements = ElementSection::new();
    elements.active(
        Some(0),
        &ConstExpr::i32_const(0),
        Elements::Functions(wrappers.into()),
    );
    types.ty().function([ValType::I32; 4], [ValType::I32]);
    functions.function(count + 1);
    code.function(&sequence());
    names.export("seq", ExportKind::Func, 2 * count);
    let mut module = Module::new();
    module
        .section(&types)
        .section(&imports)
        .section(&functions)
        .section(&tables)
        .section(&names)
        .section(&elements)
        .section(&code);
    let mut numbers = vec![None; exports.len()];
    for (k, (i, _)) in wrapped.iter().enumerate() {
        numbers[*i] = Some(k as u32);
    }
    (module.finish(), numbers)
}

/// An access of the page's memory at `offset`, aligned to `2^align` bytes.
fn page_at(offset: u64, align: u32) -> MemArg {
    MemArg {
        offset,
        align,
        target: MemArgTarget::Memory(PAGE),
        ordering: None,
    }
}

/// The wrapper of imported function `k` of type `sig`.
fn wrapper(k: u32, sig: &FuncSig) -> Body {
    let (io, nw, nr, res, args) = (0, 1, 2, 3, 4);
    // Locals after the parameters: i, p, at, from, len.
    let l = Locals {
        i: LEAD,
        p: LEAD + 1,
        at: LEAD + 2,
        from: LEAD + 3,
        len: LEAD + 4,
    };
    let mut body = Body::new([(5, ValType::I32)]);
    let mut f = body.instructions();
    f.local_get(io).local_set(l.p);
    copies(&mut f, &l, nw, None);
    // The address first: `f64.store` takes (address, value).
    f.local_get(res);
    for (a, ty) in sig.params.iter().enumerate() {
        let offset = 8 * a as u64;
        f.local_get(args);
        match ty {
            WasmType::F64 => f.f64_load(page_at(offset, 3)),
            WasmType::F32 => f.f32_load(page_at(offset, 2)),
            _ => f.i32_load(page_at(offset, 2)),
        };
    }
    f.call(k);
    match sig.results.first() {
        Some(WasmType::F64) => &mut f,
        Some(WasmType::F32) => f.f64_promote_f32(),
        Some(_) => f.f64_convert_i32_s(),
        None => f.f64_const(0.0.into()),
    };
    f.f64_store(page_at(0, 3))
        .local_get(res)
        .memory_size(GUEST)
        .f64_convert_i32_u()
        .f64_const(65536.0.into())
        .f64_mul()
        .f64_store(page_at(8, 3));
    copies(&mut f, &l, nr, Some(nw));
    f.i32_const(0).end();
    body
}

/// `seq(desc, count, state, host) -> made`: the calls of `count` descriptors at page
/// address `desc` (8 u32 each: wrapper number, then its `io, nw, nr, res, args`, then a
/// module address and a mask), one after the other, each through its wrapper. Before a
/// call its index is stored at page address `state` (a trap leaves it there), after it
/// the wrapper's return at `state + 4`. It stops after a call whose copies fell outside,
/// whose result is not 0 (`fmi3OK`), after which the module's memory has another size or
/// the byte at page address `host` is set (a WASI import ran), or whose masked 32-bit
/// word at the descriptor's module address is not zero; or after the last. Returns the
/// number of calls made.
fn sequence() -> Body {
    let (desc, count, state, host) = (0, 1, 2, 3);
    let (i, d, r, size) = (4, 5, 6, 7);
    let mut body = Body::new([(4, ValType::I32)]);
    let mut f = body.instructions();
    let empty = BlockType::Empty;
    let guest = MemArg {
        offset: 0,
        align: 0,
        target: MemArgTarget::Memory(GUEST),
        ordering: None,
    };
    f.memory_size(GUEST).local_set(size);
    f.block(empty).loop_(empty);
    f.local_get(desc)
        .local_get(i)
        .i32_const(5)
        .i32_shl()
        .i32_add()
        .local_set(d);
    f.local_get(state).local_get(i).i32_store(page_at(0, 2));
    for offset in [4, 8, 12, 16, 20, 0] {
        f.local_get(d).i32_load(page_at(offset, 2));
    }
    f.call_indirect(0, 0).local_set(r);
    f.local_get(i).i32_const(1).i32_add().local_set(i);
    f.local_get(state).local_get(r).i32_store(page_at(4, 2));
    f.local_get(r).br_if(1);
    // The status, stored by the wrapper as an f64 at `res`.
    f.local_get(d)
        .i32_load(page_at(16, 2))
        .f64_load(page_at(0, 3))
        .f64_const(0.0.into())
        .f64_ne()
        .br_if(1);
    f.memory_size(GUEST).local_get(size).i32_ne().br_if(1);
    f.local_get(host).i32_load8_u(page_at(0, 0)).br_if(1);
    f.local_get(d)
        .i32_load(page_at(28, 2))
        .local_tee(r)
        .if_(empty)
        .local_get(d)
        .i32_load(page_at(24, 2))
        .i32_load(guest)
        .local_get(r)
        .i32_and()
        .br_if(2)
        .end();
    f.local_get(i).local_get(count).i32_lt_u().br_if(0);
    f.end().end();
    f.local_get(i).end();
    body
}

/// The wrapper's own locals.
struct Locals {
    /// The copy's index in its loop.
    i: u32,
    /// The page address of the next triple.
    p: u32,
    at: u32,
    from: u32,
    len: u32,
}

/// The loop over as many triples as local `count` says, from local `p` on (advancing
/// it), each checked against the module memory's size: writes (`after_writes` `None`)
/// copy page to module, reads (`Some(nw)`: the local holding the writes' count) module
/// to page. A triple outside returns `-1 - k`, `k` counting the writes before reads.
fn copies(f: &mut InstructionSink<'_>, l: &Locals, count: u32, after_writes: Option<u32>) {
    let empty = BlockType::Empty;
    f.i32_const(0)
        .local_set(l.i)
        .block(empty)
        .loop_(empty)
        .local_get(l.i)
        .local_get(count)
        .i32_ge_u()
        .br_if(1);
    for (local, offset) in [(l.at, 0), (l.from, 4), (l.len, 8)] {
        f.local_get(l.p)
            .i32_load(page_at(offset, 2))
            .local_set(local);
    }
    // at + len > the module memory's bytes, in 64 bits so that nothing wraps.
    f.local_get(l.at)
        .i64_extend_i32_u()
        .local_get(l.len)
        .i64_extend_i32_u()
        .i64_add()
        .memory_size(GUEST)
        .i64_extend_i32_u()
        .i64_const(16)
        .i64_shl()
        .i64_gt_u()
        .if_(empty)
        .i32_const(-1);
    if let Some(nw) = after_writes {
        f.local_get(nw).i32_sub();
    }
    f.local_get(l.i).i32_sub().return_().end();
    let (dst, src, mems) = match after_writes {
        None => (l.at, l.from, (GUEST, PAGE)),
        Some(_) => (l.from, l.at, (PAGE, GUEST)),
    };
    // An 8- or 4-byte copy (one value or value reference, the usual case) as one load and
    // store: engines may take `memory.copy` between two memories out of line.
    let at = |mem, align| MemArg {
        offset: 0,
        align,
        target: MemArgTarget::Memory(mem),
        ordering: None,
    };
    f.local_get(l.len)
        .i32_const(8)
        .i32_eq()
        .if_(empty)
        .local_get(dst)
        .local_get(src)
        .i64_load(at(mems.1, 0))
        .i64_store(at(mems.0, 0))
        .else_()
        .local_get(l.len)
        .i32_const(4)
        .i32_eq()
        .if_(empty)
        .local_get(dst)
        .local_get(src)
        .i32_load(at(mems.1, 0))
        .i32_store(at(mems.0, 0))
        .else_()
        .local_get(dst)
        .local_get(src)
        .local_get(l.len)
        .memory_copy(mems.0, mems.1)
        .end()
        .end();
    for (local, step) in [(l.p, 12), (l.i, 1)] {
        f.local_get(local)
            .i32_const(step)
            .i32_add()
            .local_set(local);
    }
    f.br(0).end().end();
}

thread_local! {
    /// Whether new instances get a bridge (tests turn it off to run the JS copy path).
    static ENABLED: Cell<bool> = const { Cell::new(true) };
}

/// Turns the call bridge on or off for instances made from now on (on by default; off,
/// or on an engine without multi-memory, calls copy in JS: `glue::call_io`).
#[wasm_bindgen(js_name = setCallBridge)]
pub fn set_call_bridge(enabled: bool) {
    ENABLED.with(|e| e.set(enabled));
}

/// How many bridge wrappers live instances hold (tests check that the bridge is used).
#[wasm_bindgen(js_name = bridgesLive)]
pub fn bridges_live() -> u32 {
    glue::bridges_live()
}

/// The compiled bridge of a wasm binary and, per export, its wrapper's number (`None`
/// for the whole when the engine could not compile it: no multi-memory).
pub(super) type Compiled = Option<(WebAssembly::Module, Vec<Option<u32>>)>;

/// Compiles the bridge of `interface`'s exported functions.
pub(super) fn compile(interface: &WasmInterface) -> Compiled {
    let funcs: Vec<(&str, &FuncSig)> = interface
        .exports
        .iter()
        .filter_map(|(name, kind)| match kind {
            SectionKind::Func(sig) => Some((name.as_str(), sig)),
            _ => None,
        })
        .collect();
    let (bytes, numbers) = encode(&funcs);
    let module = WebAssembly::Module::new(&Uint8Array::from(&bytes[..]).into()).ok()?;
    // Per export of the interface (not only the functions).
    let mut by_export = Vec::with_capacity(interface.exports.len());
    let mut k = 0;
    for (_, kind) in &interface.exports {
        match kind {
            SectionKind::Func(_) => {
                by_export.push(numbers[k]);
                k += 1;
            }
            _ => by_export.push(None),
        }
    }
    Some((module, by_export))
}

/// The bridge of one instance: per export of its interface, the handle of its wrapper in
/// `glue`'s table (released when dropped).
pub(super) struct Bridge {
    /// Per export: its wrapper's handle and number.
    pub wrappers: Vec<Option<(u32, u32)>>,
    /// The handle of `seq` ([`sequence`]).
    pub sequence: Option<u32>,
}

impl Bridge {
    /// No wrappers: every call copies in JS.
    pub fn none() -> Self {
        Bridge {
            wrappers: Vec::new(),
            sequence: None,
        }
    }

    /// The bridge of an instance with `exports` and memory `memory`, from `compiled`.
    pub fn instantiate(
        compiled: &Compiled,
        interface: &WasmInterface,
        exports: &Object,
        memory: &WebAssembly::Memory,
    ) -> Self {
        let Some((module, numbers)) = compiled else {
            return Bridge::none();
        };
        if !ENABLED.with(Cell::get) {
            return Bridge::none();
        }
        let m = Object::new();
        let _ = Reflect::set(&m, &"page".into(), &wasm_bindgen::memory());
        let _ = Reflect::set(&m, &"guest".into(), memory);
        let f = Object::new();
        for ((name, _), number) in interface.exports.iter().zip(numbers) {
            if let Some(k) = number {
                let func = Reflect::get(exports, &JsValue::from_str(name)).unwrap_or_default();
                let _ = Reflect::set(&f, &k.to_string().into(), &func);
            }
        }
        let imports = Object::new();
        let _ = Reflect::set(&imports, &"m".into(), &m);
        let _ = Reflect::set(&imports, &"f".into(), &f);
        let Ok(instance) = WebAssembly::Instance::new(module, &imports) else {
            return Bridge::none();
        };
        let functions = instance.exports();
        let register = |name: &str| {
            let w = Reflect::get(&functions, &name.into()).ok()?;
            Some(glue::bridge_register(&w.dyn_into::<Function>().ok()?))
        };
        let wrappers = numbers
            .iter()
            .map(|number| {
                let k = (*number)?;
                Some((register(&format!("w{k}"))?, k))
            })
            .collect();
        let sequence = register("seq");
        Bridge { wrappers, sequence }
    }
}

impl Drop for Bridge {
    fn drop(&mut self) {
        let wrappers = self.wrappers.iter().flatten().map(|(h, _)| h);
        for h in wrappers.chain(&self.sequence) {
            glue::bridge_release(*h);
        }
    }
}
