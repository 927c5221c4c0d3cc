//! A walk over the instructions of a function body, for [`super::wasm_limits`]: each
//! instruction's opcode and the bytes of its immediates, so that a rewrite can copy every
//! instruction but the few it replaces. Covers the instruction set wasmi runs (MVP,
//! sign extension, saturating conversions, bulk memory, reference types, tail calls,
//! multi-memory, SIMD and threads' atomics); anything else is an error naming the opcode.

use super::wasm_sections::Reader;
use alloc::format;
use alloc::string::String;

/// What a rewrite may replace.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Instruction {
    /// `memory.grow` of memory `0`.
    MemoryGrow(u32),
    /// `table.grow` of table `0`.
    TableGrow(u32),
    /// Anything else.
    Other,
}

/// Reads one instruction at `r.at`, leaving `r.at` after its immediates.
pub(super) fn next(r: &mut Reader<'_>) -> Result<Instruction, String> {
    let op = r.byte()?;
    match op {
        0x00 | 0x01 | 0x05 | 0x0b | 0x0f | 0x1a | 0x1b | 0xd1 | 0x45..=0xc4 => {}
        0x02..=0x04 => block_type(r)?,
        0x0c | 0x0d | 0x10 | 0x12 | 0x20..=0x26 | 0xd2 => {
            r.u32()?;
        }
        0x0e => {
            for _ in 0..r.u32()? {
                r.u32()?;
            }
            r.u32()?;
        }
        0x11 | 0x13 => {
            r.u32()?;
            r.u32()?;
        }
        0x1c => {
            for _ in 0..r.u32()? {
                r.val_type()?;
            }
        }
        0x28..=0x3e => mem_arg(r)?,
        0x3f => {
            r.u32()?;
        }
        0x40 => return Ok(Instruction::MemoryGrow(r.u32()?)),
        0x41 | 0x42 => {
            r.leb()?;
        }
        0x43 => {
            r.take(4)?;
        }
        0x44 => {
            r.take(8)?;
        }
        0xd0 => heap_type(r)?,
        0xfc => return misc(r),
        0xfd => simd(r)?,
        0xfe => atomic(r)?,
        other => return Err(format!("instruction {other:#04x} is not supported")),
    }
    Ok(Instruction::Other)
}

/// A block type: empty, one value type, or a type index (s33).
fn block_type(r: &mut Reader<'_>) -> Result<(), String> {
    match r.bytes.get(r.at) {
        Some(0x40 | 0x7b..=0x7f | 0x70 | 0x6f) => {
            r.at += 1;
        }
        _ => {
            r.leb()?;
        }
    }
    Ok(())
}

fn heap_type(r: &mut Reader<'_>) -> Result<(), String> {
    match r.byte()? {
        0x70 | 0x6f => Ok(()),
        other => Err(format!("heap type {other:#04x} is not supported")),
    }
}

/// Alignment (bit 6: a memory index follows), then the offset.
fn mem_arg(r: &mut Reader<'_>) -> Result<(), String> {
    let flags = r.u32()?;
    if flags & 0x40 != 0 {
        r.u32()?;
    }
    r.leb()?;
    Ok(())
}

/// The 0xFC prefix: saturating conversions, bulk memory, tables.
fn misc(r: &mut Reader<'_>) -> Result<Instruction, String> {
    let sub = r.u32()?;
    let immediates = match sub {
        0..=7 => 0,
        9 | 11 | 13 | 16 | 17 => 1,
        8 | 10 | 12 | 14 => 2,
        15 => return Ok(Instruction::TableGrow(r.u32()?)),
        other => return Err(format!("instruction 0xfc {other} is not supported")),
    };
    for _ in 0..immediates {
        r.u32()?;
    }
    Ok(Instruction::Other)
}

/// The 0xFD prefix: SIMD (and relaxed SIMD, whose opcodes have no immediates).
fn simd(r: &mut Reader<'_>) -> Result<(), String> {
    match r.u32()? {
        0..=11 | 92 | 93 => mem_arg(r)?,
        12 | 13 => {
            r.take(16)?;
        }
        21..=34 => {
            r.take(1)?;
        }
        84..=91 => {
            mem_arg(r)?;
            r.take(1)?;
        }
        14..=20 | 35..=83 | 94..=275 => {}
        other => return Err(format!("instruction 0xfd {other} is not supported")),
    }
    Ok(())
}

/// The 0xFE prefix: atomics (every one but the fence takes a memory argument).
fn atomic(r: &mut Reader<'_>) -> Result<(), String> {
    match r.u32()? {
        0x03 => {
            r.take(1)?;
        }
        0x00..=0x02 | 0x10..=0x4e => mem_arg(r)?,
        other => return Err(format!("instruction 0xfe {other:#04x} is not supported")),
    }
    Ok(())
}
