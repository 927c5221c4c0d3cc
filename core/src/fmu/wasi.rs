//! The WASI preview1 imports (`wasi_snapshot_preview1`) a binary module may use: what
//! `wasi-libc` needs for `printf` to stderr and stdout (captured in the module log), the
//! read-only `resources/` file system (`wasi_fs.rs`), and deterministic environment,
//! argument, clock and random functions. Calls that would change files are refused with
//! an error naming the call; any other WASI function links to a stub that traps with its
//! name when called.
//!
//! Every guest pointer and length is checked against the module's memory before the host
//! touches it, no call moves more than [`MAX_BYTES_PER_CALL`] bytes, and the host's work is
//! charged to the call's fuel (one unit per 8 bytes) like the module's own instructions.

use super::runtime::Host;
pub use super::wasi_fs::MAX_BYTES_PER_CALL;
use super::wasi_fs::{define_fs, refuse, WRITING_CALLS};
use super::FmuError;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::ops::Range;
use wasmi::{Caller, Extern, ExternType, Linker, Memory, Module, TrapCode, Val};

/// WASI preview1 functions the host implements; the calls that write files are refused, others are
/// stubs that trap when called.
pub const WASI_PROVIDED: [&str; 21] = [
    "fd_write",
    "fd_close",
    "fd_seek",
    "fd_tell",
    "fd_read",
    "fd_fdstat_get",
    "fd_filestat_get",
    "fd_prestat_get",
    "fd_prestat_dir_name",
    "path_open",
    "path_filestat_get",
    "proc_exit",
    "environ_sizes_get",
    "environ_get",
    "args_sizes_get",
    "args_get",
    "clock_time_get",
    "random_get",
    "sched_yield",
    "poll_oneoff",
    "clock_res_get",
];
const WASI: &str = "wasi_snapshot_preview1";
/// iovecs one `fd_write`/`fd_read` may pass (POSIX `IOV_MAX`).
const MAX_IOVECS: usize = 1024;

/// A WASI errno.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Errno(pub i32);

impl Errno {
    pub const SUCCESS: Errno = Errno(0);
    pub const BADF: Errno = Errno(8);
    pub const FAULT: Errno = Errno(21);
    pub const INVAL: Errno = Errno(28);
    pub const ISDIR: Errno = Errno(31);
    pub const MFILE: Errno = Errno(33);
    pub const NAMETOOLONG: Errno = Errno(37);
    pub const NOENT: Errno = Errno(44);
    pub const NOTDIR: Errno = Errno(54);
    pub const ROFS: Errno = Errno(69);
    pub const SPIPE: Errno = Errno(70);
    pub const NOTCAPABLE: Errno = Errno(76);
}

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

/// `ptr..ptr + len` if it lies inside `data` (both read as unsigned 32-bit).
pub(super) fn guest_range(data: &[u8], ptr: i32, len: i32) -> Option<Range<usize>> {
    let start = ptr as u32 as usize;
    let end = start.checked_add(len as u32 as usize)?;
    (end <= data.len()).then_some(start..end)
}

/// Writes `bytes` at `ptr`: `SUCCESS`, or `FAULT` if it does not fit in memory.
pub(super) fn put(caller: &mut Caller<'_, Host>, ptr: i32, bytes: &[u8]) -> i32 {
    let ok =
        caller_memory(caller).is_some_and(|m| m.write(caller, ptr as u32 as usize, bytes).is_ok());
    if ok {
        Errno::SUCCESS.0
    } else {
        Errno::FAULT.0
    }
}

/// The guest ranges of `n` iovecs at `iovs`, each checked against memory, at most
/// [`MAX_IOVECS`] of them.
pub(super) fn iovecs(data: &[u8], iovs: i32, n: i32) -> Result<Vec<Range<usize>>, Errno> {
    let n = n as u32 as usize;
    if n > MAX_IOVECS {
        return Err(Errno::INVAL);
    }
    let word = |at: usize| {
        data.get(at..at + 4)
            .map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let at = iovs as u32 as usize + 8 * i;
        let (Some(ptr), Some(len)) = (word(at), word(at + 4)) else {
            return Err(Errno::FAULT);
        };
        out.push(guest_range(data, ptr, len).ok_or(Errno::FAULT)?);
    }
    Ok(out)
}

/// Charges host work on `bytes` bytes to the call's fuel: one unit per 8 bytes plus 16
/// per call, so time spent in the host counts against `RuntimeLimits::fuel_per_call`.
pub(super) fn charge(c: &mut Caller<'_, Host>, bytes: usize) -> Result<(), wasmi::Error> {
    let cost = 16 + bytes as u64 / 8;
    let fuel = c.get_fuel().unwrap_or(u64::MAX);
    if fuel < cost {
        let _ = c.set_fuel(0);
        return Err(wasmi::Error::from(TrapCode::OutOfFuel));
    }
    let _ = c.set_fuel(fuel - cost);
    Ok(())
}

pub(super) fn define_wasi(linker: &mut Linker<Host>) -> Result<(), wasmi::errors::LinkerError> {
    define_fs(linker)?;
    linker.func_wrap(
        WASI,
        "fd_write",
        |mut c: Caller<'_, Host>,
         fd: i32,
         iovs: i32,
         n: i32,
         out: i32|
         -> Result<i32, wasmi::Error> {
            let Some(m) = caller_memory(&c) else {
                return Ok(Errno::BADF.0);
            };
            let (data, host) = m.data_and_store_mut(&mut c);
            if fd != 1 && fd != 2 {
                let what = format!(" to file descriptor {fd}");
                return Ok(if host.fs.fdstat(fd).is_some() {
                    refuse(host, "fd_write", &what)
                } else {
                    Errno::BADF.0
                });
            }
            let ranges = match iovecs(data, iovs, n) {
                Ok(r) => r,
                Err(e) => return Ok(e.0),
            };
            let total: usize = ranges.iter().map(Range::len).sum();
            if total > MAX_BYTES_PER_CALL {
                return Ok(Errno::INVAL.0);
            }
            // Only the log's last `max_log` bytes are kept: copy no more than that.
            let keep = host.max_log();
            let mut text = Vec::with_capacity(total.min(keep));
            let mut skip = total.saturating_sub(keep);
            for r in ranges {
                let cut = skip.min(r.len());
                skip -= cut;
                text.extend_from_slice(&data[r.start + cut..r.end]);
            }
            host.append(&String::from_utf8_lossy(&text));
            charge(&mut c, total)?;
            Ok(put(&mut c, out, &(total as u32).to_le_bytes()))
        },
    )?;
    linker.func_wrap(
        WASI,
        "fd_fdstat_get",
        |mut c: Caller<'_, Host>, fd: i32, buf: i32| -> i32 {
            if let Some(stat) = c.data().fs.fdstat(fd) {
                return put(&mut c, buf, &stat);
            }
            if !(0..=2).contains(&fd) {
                return Errno::BADF.0;
            }
            // fdstat: filetype u8 (2 = character device), flags u16, rights u64 ×2.
            let mut stat = [0u8; 24];
            stat[0] = 2;
            stat[8..16].copy_from_slice(&u64::MAX.to_le_bytes());
            put(&mut c, buf, &stat)
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
                match put(&mut c, count, &0u32.to_le_bytes()) {
                    0 => put(&mut c, size, &0u32.to_le_bytes()),
                    e => e,
                }
            },
        )?;
    }
    for name in ["environ_get", "args_get"] {
        linker.func_wrap(WASI, name, |_: Caller<'_, Host>, _a: i32, _b: i32| -> i32 {
            Errno::SUCCESS.0
        })?;
    }
    for name in ["clock_time_get", "clock_res_get"] {
        linker.func_wrap(
            WASI,
            name,
            |mut c: Caller<'_, Host>, _id: i32, _p: i64, out: i32| -> i32 {
                put(&mut c, out, &0u64.to_le_bytes())
            },
        )?;
    }
    linker.func_wrap(
        WASI,
        "random_get",
        |mut c: Caller<'_, Host>, buf: i32, len: i32| -> Result<i32, wasmi::Error> {
            let Some(m) = caller_memory(&c) else {
                return Ok(Errno::BADF.0);
            };
            let (data, host) = m.data_and_store_mut(&mut c);
            let Some(r) = guest_range(data, buf, len) else {
                return Ok(Errno::FAULT.0);
            };
            if r.len() > MAX_BYTES_PER_CALL {
                return Ok(Errno::INVAL.0);
            }
            let n = r.len();
            for b in &mut data[r] {
                // xorshift64 (Marsaglia 2003): reproducible, not secure.
                let s = &mut host.rng;
                *s ^= *s << 13;
                *s ^= *s >> 7;
                *s ^= *s << 17;
                *b = *s as u8;
            }
            charge(&mut c, n)?;
            Ok(Errno::SUCCESS.0)
        },
    )?;
    linker.func_wrap(WASI, "sched_yield", |_: Caller<'_, Host>| -> i32 {
        Errno::SUCCESS.0
    })?;
    // No clock advances and nothing can be waited for: sleeping returns at once.
    linker.func_wrap(
        WASI,
        "poll_oneoff",
        |mut c: Caller<'_, Host>, _in: i32, _out: i32, _n: i32, events: i32| -> i32 {
            put(&mut c, events, &0u32.to_le_bytes())
        },
    )?;
    Ok(())
}

/// Stubs for the WASI functions not provided, so that code merely linking them loads;
/// calling one traps with its name, except [`WRITING_CALLS`], which are refused like any
/// write (an error naming the call, `ERRNO_ROFS` to the module). Anything imported from
/// another module is refused.
pub(super) fn define_stubs(linker: &mut Linker<Host>, module: &Module) -> Result<(), FmuError> {
    for import in module.imports() {
        let (m, name) = (import.module(), import.name());
        match import.ty() {
            ExternType::Func(ty) if m == WASI => {
                if WASI_PROVIDED.contains(&name) {
                    continue;
                }
                let returns_errno = matches!(ty.results(), [wasmi::ValType::I32]);
                let defined = if WRITING_CALLS.contains(&name) && returns_errno {
                    let call = name.to_string();
                    linker.func_new(WASI, name, ty.clone(), move |mut c, _, out| {
                        let errno = refuse(c.data_mut(), &call, "");
                        out[0] = Val::I32(errno);
                        Ok(())
                    })
                } else {
                    let msg = format!("WASI function `{name}` is not provided by the host");
                    linker.func_new(WASI, name, ty.clone(), move |_, _, _| {
                        Err(wasmi::Error::new(msg.clone()))
                    })
                };
                defined.map_err(|e| FmuError::UnsupportedImport(e.to_string()))?;
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
