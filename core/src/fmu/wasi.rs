//! The WASI preview1 imports (`wasi_snapshot_preview1`) a binary module may use: what
//! `wasi-libc` needs for `printf` to stderr and stdout (captured in the module log), plus
//! deterministic environment, argument, clock and random functions. Any other WASI
//! function links to a stub that traps with its name when called.

use super::runtime::Host;
use super::FmuError;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use wasmi::{Caller, Extern, ExternType, Linker, Memory, Module};

/// WASI preview1 functions the host implements (others are stubs that trap when called).
pub const WASI_PROVIDED: [&str; 12] = [
    "fd_write",
    "fd_close",
    "fd_seek",
    "fd_fdstat_get",
    "proc_exit",
    "environ_sizes_get",
    "environ_get",
    "args_sizes_get",
    "args_get",
    "clock_time_get",
    "random_get",
    "sched_yield",
];
const WASI: &str = "wasi_snapshot_preview1";
/// WASI errno values used below.
const ERRNO_SUCCESS: i32 = 0;
const ERRNO_BADF: i32 = 8;
const ERRNO_SPIPE: i32 = 70;

pub(super) fn read_cstr(mem: &[u8], ptr: i32) -> String {
    let start = ptr as u32 as usize;
    let Some(tail) = mem.get(start..) else {
        return String::new();
    };
    let end = tail
        .iter()
        .position(|&b| b == 0)
        .unwrap_or(tail.len())
        .min(4096);
    String::from_utf8_lossy(&tail[..end]).into_owned()
}

pub(super) fn caller_memory(caller: &Caller<'_, Host>) -> Option<Memory> {
    caller.get_export("memory").and_then(Extern::into_memory)
}

fn put(caller: &mut Caller<'_, Host>, ptr: i32, bytes: &[u8]) -> bool {
    match caller_memory(caller) {
        Some(m) => m.write(caller, ptr as u32 as usize, bytes).is_ok(),
        None => false,
    }
}

pub(super) fn define_wasi(linker: &mut Linker<Host>) -> Result<(), wasmi::errors::LinkerError> {
    linker.func_wrap(
        WASI,
        "fd_write",
        |mut c: Caller<'_, Host>, fd: i32, iovs: i32, n: i32, out: i32| -> i32 {
            let Some(m) = caller_memory(&c) else {
                return ERRNO_BADF;
            };
            let (data, host) = m.data_and_store_mut(&mut c);
            let mut text = Vec::new();
            for i in 0..n.max(0) as usize {
                let at = iovs as u32 as usize + 8 * i;
                let word = |o: usize| {
                    data.get(o..o + 4)
                        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
                };
                let (Some(ptr), Some(len)) = (word(at), word(at + 4)) else {
                    return ERRNO_BADF;
                };
                text.extend_from_slice(data.get(ptr..ptr.saturating_add(len)).unwrap_or(&[]));
            }
            if fd != 1 && fd != 2 {
                return ERRNO_BADF;
            }
            host.append(&String::from_utf8_lossy(&text));
            let written = (text.len() as u32).to_le_bytes();
            if put(&mut c, out, &written) {
                ERRNO_SUCCESS
            } else {
                ERRNO_BADF
            }
        },
    )?;
    linker.func_wrap(WASI, "fd_close", |_: Caller<'_, Host>, _fd: i32| -> i32 {
        ERRNO_BADF
    })?;
    linker.func_wrap(
        WASI,
        "fd_seek",
        |_: Caller<'_, Host>, _fd: i32, _o: i64, _w: i32, _out: i32| -> i32 { ERRNO_SPIPE },
    )?;
    linker.func_wrap(
        WASI,
        "fd_fdstat_get",
        |mut c: Caller<'_, Host>, fd: i32, buf: i32| -> i32 {
            if !(0..=2).contains(&fd) {
                return ERRNO_BADF;
            }
            // fdstat: filetype u8 (2 = character device), flags u16, rights u64 ×2.
            let mut stat = [0u8; 24];
            stat[0] = 2;
            stat[8..16].copy_from_slice(&u64::MAX.to_le_bytes());
            if put(&mut c, buf, &stat) {
                ERRNO_SUCCESS
            } else {
                ERRNO_BADF
            }
        },
    )?;
    linker.func_wrap(
        WASI,
        "proc_exit",
        |_: Caller<'_, Host>, code: i32| -> Result<(), wasmi::Error> {
            Err(wasmi::Error::i32_exit(code))
        },
    )?;
    for name in ["environ_sizes_get", "args_sizes_get"] {
        linker.func_wrap(
            WASI,
            name,
            |mut c: Caller<'_, Host>, count: i32, size: i32| -> i32 {
                let ok = put(&mut c, count, &0u32.to_le_bytes())
                    && put(&mut c, size, &0u32.to_le_bytes());
                if ok {
                    ERRNO_SUCCESS
                } else {
                    ERRNO_BADF
                }
            },
        )?;
    }
    for name in ["environ_get", "args_get"] {
        linker.func_wrap(WASI, name, |_: Caller<'_, Host>, _a: i32, _b: i32| -> i32 {
            ERRNO_SUCCESS
        })?;
    }
    linker.func_wrap(
        WASI,
        "clock_time_get",
        |mut c: Caller<'_, Host>, _id: i32, _p: i64, out: i32| -> i32 {
            if put(&mut c, out, &0u64.to_le_bytes()) {
                ERRNO_SUCCESS
            } else {
                ERRNO_BADF
            }
        },
    )?;
    linker.func_wrap(
        WASI,
        "random_get",
        |mut c: Caller<'_, Host>, buf: i32, len: i32| -> i32 {
            let mut bytes = alloc::vec![0u8; len.max(0) as usize];
            for b in &mut bytes {
                // xorshift64 (Marsaglia 2003): reproducible, not secure.
                let s = &mut c.data_mut().rng;
                *s ^= *s << 13;
                *s ^= *s >> 7;
                *s ^= *s << 17;
                *b = *s as u8;
            }
            if put(&mut c, buf, &bytes) {
                ERRNO_SUCCESS
            } else {
                ERRNO_BADF
            }
        },
    )?;
    linker.func_wrap(WASI, "sched_yield", |_: Caller<'_, Host>| -> i32 {
        ERRNO_SUCCESS
    })?;
    Ok(())
}

/// Stubs for the WASI functions not provided, so that code merely linking them loads;
/// calling one traps with its name. Anything imported from another module is refused.
pub(super) fn define_stubs(linker: &mut Linker<Host>, module: &Module) -> Result<(), FmuError> {
    for import in module.imports() {
        let (m, name) = (import.module(), import.name());
        match import.ty() {
            ExternType::Func(ty) if m == WASI => {
                if WASI_PROVIDED.contains(&name) {
                    continue;
                }
                let msg = format!("WASI function `{name}` is not provided by the host");
                linker
                    .func_new(WASI, name, ty.clone(), move |_, _, _| {
                        Err(wasmi::Error::new(msg.clone()))
                    })
                    .map_err(|e| FmuError::UnsupportedImport(e.to_string()))?;
            }
            _ => {
                return Err(FmuError::UnsupportedImport(format!(
                    "`{m}.{name}`; only `{WASI}` functions are provided (memory, tables and other \
                     functions must be defined inside the module)"
                )))
            }
        }
    }
    Ok(())
}
