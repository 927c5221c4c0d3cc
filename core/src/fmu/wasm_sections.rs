//! The interface of a wasm binary read from its sections (type, import, function and
//! export): what each import and export is and the type of every function among them.
//! An engine that cannot tell a function's type itself (the browser's `WebAssembly`
//! JS API has no type reflection) uses this to check the FMI exports and plan the WASI
//! imports exactly as wasmi does. Validation is the engine's job; this only reads.

use super::sandbox::{FuncSig, WasmType};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// An import: `module.name`, with its type if it is a function.
#[derive(Clone, Debug, PartialEq)]
pub struct Import {
    /// The module it is imported from.
    pub module: String,
    /// The field name.
    pub name: String,
    /// Its type, for a function import.
    pub func: Option<FuncSig>,
}

/// What an export is.
#[derive(Clone, Debug, PartialEq)]
pub enum ExportKind {
    /// A function of this type.
    Func(FuncSig),
    /// A linear memory.
    Memory,
    /// A table, global or tag.
    Other,
}

/// The imports and exports of a module, in section order.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct WasmInterface {
    /// Every import.
    pub imports: Vec<Import>,
    /// Every export, by name.
    pub exports: Vec<(String, ExportKind)>,
}

/// Reads a wasm binary's LEB128 numbers, names and types (also `wasm_limits`'s reader).
pub(super) struct Reader<'a> {
    pub bytes: &'a [u8],
    pub at: usize,
}

impl<'a> Reader<'a> {
    pub(super) fn byte(&mut self) -> Result<u8, String> {
        let b = *self
            .bytes
            .get(self.at)
            .ok_or("unexpected end of the wasm binary")?;
        self.at += 1;
        Ok(b)
    }

    pub(super) fn leb(&mut self) -> Result<u64, String> {
        let (mut value, mut shift) = (0u64, 0u32);
        loop {
            let b = self.byte()?;
            if shift >= 64 {
                return Err(String::from("LEB128 number too long"));
            }
            value |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(value);
            }
            shift += 7;
        }
    }

    pub(super) fn u32(&mut self) -> Result<u32, String> {
        u32::try_from(self.leb()?).map_err(|_| String::from("a count does not fit in 32 bits"))
    }

    pub(super) fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len());
        let end = end.ok_or("unexpected end of the wasm binary")?;
        let out = &self.bytes[self.at..end];
        self.at = end;
        Ok(out)
    }

    pub(super) fn name(&mut self) -> Result<String, String> {
        let n = self.u32()? as usize;
        let raw = self.take(n)?;
        core::str::from_utf8(raw)
            .map(String::from)
            .map_err(|_| String::from("a name is not UTF-8"))
    }

    pub(super) fn val_type(&mut self) -> Result<WasmType, String> {
        Ok(match self.byte()? {
            0x7f => WasmType::I32,
            0x7e => WasmType::I64,
            0x7d => WasmType::F32,
            0x7c => WasmType::F64,
            0x7b => WasmType::V128,
            0x70 => WasmType::FuncRef,
            0x6f => WasmType::ExternRef,
            other => return Err(format!("value type {other:#04x} is not supported")),
        })
    }

    fn limits(&mut self) -> Result<(), String> {
        let flags = self.byte()?;
        self.leb()?;
        if flags & 1 != 0 {
            self.leb()?;
        }
        Ok(())
    }
}

/// Reads the interface of `wasm`; an error names what could not be read.
pub fn parse(wasm: &[u8]) -> Result<WasmInterface, String> {
    if wasm.get(..8) != Some(&[0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]) {
        return Err(String::from("not a wasm binary (version 1)"));
    }
    let mut r = Reader { bytes: wasm, at: 8 };
    let mut types: Vec<FuncSig> = Vec::new();
    let mut funcs: Vec<u32> = Vec::new();
    let mut out = WasmInterface::default();
    let sig_of = |types: &[FuncSig], k: u32| {
        types
            .get(k as usize)
            .cloned()
            .ok_or_else(|| format!("type index {k} out of range"))
    };
    while r.at < wasm.len() {
        let id = r.byte()?;
        let size = r.u32()? as usize;
        let mut s = Reader {
            bytes: r.take(size)?,
            at: 0,
        };
        match id {
            1 => {
                for _ in 0..s.u32()? {
                    if s.byte()? != 0x60 {
                        return Err(String::from("only function types are supported"));
                    }
                    let mut sig = FuncSig::default();
                    for _ in 0..s.u32()? {
                        sig.params.push(s.val_type()?);
                    }
                    for _ in 0..s.u32()? {
                        sig.results.push(s.val_type()?);
                    }
                    types.push(sig);
                }
            }
            2 => {
                for _ in 0..s.u32()? {
                    let (module, name) = (s.name()?, s.name()?);
                    let func = match s.byte()? {
                        0 => {
                            let k = s.u32()?;
                            funcs.push(k);
                            Some(sig_of(&types, k)?)
                        }
                        1 => {
                            s.val_type()?;
                            s.limits()?;
                            None
                        }
                        2 => {
                            s.limits()?;
                            None
                        }
                        3 => {
                            s.val_type()?;
                            s.byte()?;
                            None
                        }
                        4 => {
                            s.byte()?;
                            s.u32()?;
                            None
                        }
                        k => return Err(format!("import kind {k} is not supported")),
                    };
                    out.imports.push(Import { module, name, func });
                }
            }
            3 => {
                for _ in 0..s.u32()? {
                    funcs.push(s.u32()?);
                }
            }
            7 => {
                for _ in 0..s.u32()? {
                    let name = s.name()?;
                    let kind = s.byte()?;
                    let index = s.u32()?;
                    let kind = match kind {
                        0 => {
                            let k = *funcs
                                .get(index as usize)
                                .ok_or_else(|| format!("function index {index} out of range"))?;
                            ExportKind::Func(sig_of(&types, k)?)
                        }
                        2 => ExportKind::Memory,
                        _ => ExportKind::Other,
                    };
                    out.exports.push((name, kind));
                }
            }
            _ => {}
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;

    #[test]
    fn reads_imports_and_exports_with_their_types() {
        let wasm = wat::parse_str(
            r#"(module
                (import "wasi_snapshot_preview1" "fd_seek" (func (param i32 i64 i32 i32) (result i32)))
                (import "env" "table" (table 1 funcref))
                (memory (export "memory") 1 2)
                (global (export "g") i32 (i32.const 0))
                (func (export "fmi3DoStep") (param i32 f64 f64 i32 i32 i32 i32 i32) (result i32) i32.const 0)
                (func (export "free") (param i32)))"#,
        )
        .unwrap();
        let i = parse(&wasm).unwrap();
        assert_eq!(i.imports.len(), 2);
        assert_eq!(
            i.imports[0].func.as_ref().unwrap().to_string(),
            "(i32, i64, i32, i32) -> i32"
        );
        assert_eq!(i.imports[1].func, None);
        let kinds: Vec<String> = i
            .exports
            .iter()
            .map(|(n, k)| format!("{n}:{k:?}"))
            .collect();
        assert_eq!(kinds[0], "memory:Memory");
        assert_eq!(kinds[1], "g:Other");
        assert!(
            matches!(&i.exports[2].1, ExportKind::Func(s) if s.to_string() == "(i32, f64, f64, i32, i32, i32, i32, i32) -> i32")
        );
        assert!(matches!(&i.exports[3].1, ExportKind::Func(s) if s.to_string() == "(i32)"));
        assert!(
            parse(&wasm[..wasm.len() - 3]).is_err(),
            "a truncated binary is an error"
        );
        assert!(parse(b"\0asm\x02\0\0\0").is_err());
    }
}
