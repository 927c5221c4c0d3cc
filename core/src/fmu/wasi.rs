//! The WASI preview1 imports (`wasi_snapshot_preview1`) a binary module may use: what
//! `wasi-libc` needs for `printf` to stderr and stdout (captured in the module log), the
//! read-only `resources/` file system (`wasi_fs.rs`), and deterministic environment,
//! argument, clock and random functions. Calls that would change files are refused with
//! an error naming the call; any other WASI function links to a stub that traps with its
//! name when called.
//!
//! One implementation for every engine: [`plan_import`] decides what each import becomes
//! and [`dispatch`] runs it over [`GuestMemory`], so wasmi and the browser's engine give
//! the module the same bytes. Every guest pointer and length is checked against the
//! module's memory before the host touches it, no call moves more than
//! [`MAX_BYTES_PER_CALL`] bytes, and the host's work is charged to the call's fuel (one
//! unit per 8 bytes) like the module's own instructions.

use super::sandbox::{FuncSig, GuestMemory, WasmType, WasmValue};
pub use super::wasi_fs::MAX_BYTES_PER_CALL;
use super::wasi_fs::{dispatch_fs, refuse, WRITING_CALLS};
pub use super::wasi_host::WasiHost;
use super::FmuError;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::ops::Range;

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
/// The WASI import module.
pub const WASI: &str = "wasi_snapshot_preview1";
/// iovecs one `fd_write`/`fd_read` may pass (POSIX `IOV_MAX`).
const MAX_IOVECS: usize = 1024;

/// A WASI errno.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Errno(pub i32);

#[allow(missing_docs)] // the errno names of the WASI preview1 specification
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

/// What one import of the module is linked to.
#[derive(Clone, Debug, PartialEq)]
pub enum WasiImport {
    /// One of [`WASI_PROVIDED`].
    Provided(&'static str),
    /// A call that would change files: answers `ERRNO_ROFS` and fails the FMI call.
    Refused(String),
    /// Any other WASI function: traps with its name when called.
    Unprovided(String),
}

/// Why an import stopped the guest.
#[derive(Clone, Debug, PartialEq)]
pub enum HostTrap {
    /// `proc_exit(code)`.
    Exit(i32),
    /// Host work used up the call's fuel.
    OutOfFuel,
    /// An unprovided WASI function was called.
    Unprovided(String),
}

/// The type of a provided WASI function.
pub fn provided_sig(name: &str) -> Option<FuncSig> {
    use WasmType::{I32, I64};
    let (params, results): (&[WasmType], &[WasmType]) = match name {
        "fd_write" | "fd_read" | "poll_oneoff" => (&[I32; 4], &[I32]),
        "fd_close" => (&[I32], &[I32]),
        "fd_seek" => (&[I32, I64, I32, I32], &[I32]),
        "fd_tell" | "fd_fdstat_get" | "fd_filestat_get" | "fd_prestat_get" | "random_get"
        | "environ_sizes_get" | "environ_get" | "args_sizes_get" | "args_get" | "clock_res_get" => {
            (&[I32; 2], &[I32])
        }
        "fd_prestat_dir_name" => (&[I32; 3], &[I32]),
        "path_open" => (&[I32, I32, I32, I32, I32, I64, I64, I32, I32], &[I32]),
        "path_filestat_get" => (&[I32; 5], &[I32]),
        "proc_exit" => (&[I32], &[]),
        "clock_time_get" => (&[I32, I64, I32], &[I32]),
        "sched_yield" => (&[], &[I32]),
        _ => return None,
    };
    Some(FuncSig::new(params, results))
}

/// What the import `module.name` becomes; `sig` is its type, `None` for an import that
/// is not a function. Only `wasi_snapshot_preview1` functions can be imported.
pub fn plan_import(
    module: &str,
    name: &str,
    sig: Option<&FuncSig>,
) -> Result<WasiImport, FmuError> {
    let Some(sig) = sig.filter(|_| module == WASI) else {
        return Err(FmuError::UnsupportedImport(format!(
            "`{module}.{name}`; only `{WASI}` functions are provided (memory, tables and other \
             functions must be defined inside the module)"
        )));
    };
    if let Some(k) = WASI_PROVIDED.iter().position(|p| *p == name) {
        let expected = provided_sig(name).unwrap_or_default();
        if *sig != expected {
            return Err(FmuError::UnsupportedImport(format!(
                "`{WASI}.{name}` with type {sig}; the host provides it with type {expected}"
            )));
        }
        return Ok(WasiImport::Provided(WASI_PROVIDED[k]));
    }
    let returns_errno = sig.results == [WasmType::I32];
    Ok(if WRITING_CALLS.contains(&name) && returns_errno {
        WasiImport::Refused(name.to_string())
    } else {
        WasiImport::Unprovided(format!(
            "WASI function `{name}` is not provided by the host"
        ))
    })
}

/// Runs the import `import` with `args` (typed as [`plan_import`] checked).
pub fn dispatch(
    import: &WasiImport,
    host: &mut WasiHost,
    mem: &mut dyn GuestMemory,
    args: &[WasmValue],
) -> Result<Option<WasmValue>, HostTrap> {
    let name = match import {
        WasiImport::Provided(name) => *name,
        WasiImport::Refused(call) => return Ok(Some(WasmValue::I32(refuse(host, call, "")))),
        WasiImport::Unprovided(msg) => return Err(HostTrap::Unprovided(msg.clone())),
    };
    let a = Args(args);
    let errno = match name {
        "fd_write" => fd_write(host, mem, a)?,
        "fd_fdstat_get" => {
            let (fd, buf) = (a.i(0), a.i(1));
            if let Some(stat) = host.fs.fdstat(fd) {
                put(mem, buf, &stat)
            } else if !(0..=2).contains(&fd) {
                Errno::BADF.0
            } else {
                // fdstat: filetype u8 (2 = character device), flags u16, rights u64 ×2.
                let mut stat = [0u8; 24];
                stat[0] = 2;
                stat[8..16].copy_from_slice(&u64::MAX.to_le_bytes());
                put(mem, buf, &stat)
            }
        }
        "proc_exit" => return Err(HostTrap::Exit(a.i(0))),
        "environ_sizes_get" | "args_sizes_get" => match put(mem, a.i(0), &0u32.to_le_bytes()) {
            0 => put(mem, a.i(1), &0u32.to_le_bytes()),
            e => e,
        },
        "environ_get" | "args_get" | "sched_yield" => Errno::SUCCESS.0,
        "clock_time_get" => put(mem, a.i(2), &0u64.to_le_bytes()),
        "clock_res_get" => put(mem, a.i(1), &0u64.to_le_bytes()),
        "random_get" => random_get(host, mem, a)?,
        // No clock advances and nothing can be waited for: sleeping returns at once.
        "poll_oneoff" => put(mem, a.i(3), &0u32.to_le_bytes()),
        fs => dispatch_fs(fs, host, mem, a)?,
    };
    Ok(Some(WasmValue::I32(errno)))
}

/// The arguments of an import call, read by position.
#[derive(Clone, Copy)]
pub(super) struct Args<'a>(&'a [WasmValue]);

impl Args<'_> {
    pub fn i(self, k: usize) -> i32 {
        self.0.get(k).and_then(|v| v.as_i32()).unwrap_or(0)
    }

    pub fn l(self, k: usize) -> i64 {
        self.0.get(k).and_then(|v| v.as_i64()).unwrap_or(0)
    }
}

fn fd_write(host: &mut WasiHost, mem: &mut dyn GuestMemory, a: Args<'_>) -> Result<i32, HostTrap> {
    let (fd, iovs, n, out) = (a.i(0), a.i(1), a.i(2), a.i(3));
    if fd != 1 && fd != 2 {
        let what = format!(" to file descriptor {fd}");
        return Ok(if host.fs.fdstat(fd).is_some() {
            refuse(host, "fd_write", &what)
        } else {
            Errno::BADF.0
        });
    }
    let ranges = match iovecs(mem, iovs, n) {
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
        let at = text.len();
        text.resize(at + r.len() - cut, 0);
        mem.read((r.start + cut) as u32, &mut text[at..]);
    }
    host.append(&String::from_utf8_lossy(&text));
    charge(mem, total)?;
    Ok(put(mem, out, &(total as u32).to_le_bytes()))
}

fn random_get(
    host: &mut WasiHost,
    mem: &mut dyn GuestMemory,
    a: Args<'_>,
) -> Result<i32, HostTrap> {
    let Some(r) = guest_range(mem.size(), a.i(0), a.i(1)) else {
        return Ok(Errno::FAULT.0);
    };
    if r.len() > MAX_BYTES_PER_CALL {
        return Ok(Errno::INVAL.0);
    }
    let mut bytes = alloc::vec![0u8; r.len()];
    for b in &mut bytes {
        // xorshift64 (Marsaglia 2003): reproducible, not secure.
        let s = &mut host.rng;
        *s ^= *s << 13;
        *s ^= *s >> 7;
        *s ^= *s << 17;
        *b = *s as u8;
    }
    mem.write(r.start as u32, &bytes);
    charge(mem, bytes.len())?;
    Ok(Errno::SUCCESS.0)
}

/// The NUL-terminated string at `ptr` (at most 4096 bytes; empty outside memory).
pub(super) fn read_cstr(mem: &dyn GuestMemory, ptr: i32) -> String {
    let start = ptr as u32 as usize;
    let Some(avail) = mem.size().checked_sub(start) else {
        return String::new();
    };
    let mut buf = alloc::vec![0u8; avail.min(4096)];
    mem.read(start as u32, &mut buf);
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).into_owned()
}

/// The `fmi3LogMessageCallback(env, status, category, message)` of every engine: one
/// line in the module log.
pub fn log_message(
    host: &mut WasiHost,
    mem: &dyn GuestMemory,
    status: i32,
    category: i32,
    message: i32,
) {
    let level = ["OK", "Warning", "Discard", "Error", "Fatal"]
        .get(status as usize)
        .copied()
        .unwrap_or("?");
    let line = format!(
        "[{level}] {}: {}\n",
        read_cstr(mem, category),
        read_cstr(mem, message)
    );
    host.append(&line);
}

/// `ptr..ptr + len` if it lies inside a memory of `size` bytes (both read as unsigned 32-bit).
pub(super) fn guest_range(size: usize, ptr: i32, len: i32) -> Option<Range<usize>> {
    let start = ptr as u32 as usize;
    let end = start.checked_add(len as u32 as usize)?;
    (end <= size).then_some(start..end)
}

/// Writes `bytes` at `ptr`: `SUCCESS`, or `FAULT` if it does not fit in memory.
pub(super) fn put(mem: &mut dyn GuestMemory, ptr: i32, bytes: &[u8]) -> i32 {
    if mem.write(ptr as u32, bytes) {
        Errno::SUCCESS.0
    } else {
        Errno::FAULT.0
    }
}

/// The guest ranges of `n` iovecs at `iovs`, each checked against memory, at most
/// [`MAX_IOVECS`] of them.
pub(super) fn iovecs(mem: &dyn GuestMemory, iovs: i32, n: i32) -> Result<Vec<Range<usize>>, Errno> {
    let n = n as u32 as usize;
    if n > MAX_IOVECS {
        return Err(Errno::INVAL);
    }
    let size = mem.size();
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let at = u32::try_from(iovs as u32 as usize + 8 * i).map_err(|_| Errno::FAULT)?;
        let mut iov = [0u8; 8];
        if !mem.read(at, &mut iov) {
            return Err(Errno::FAULT);
        }
        let ptr = i32::from_le_bytes([iov[0], iov[1], iov[2], iov[3]]);
        let len = i32::from_le_bytes([iov[4], iov[5], iov[6], iov[7]]);
        out.push(guest_range(size, ptr, len).ok_or(Errno::FAULT)?);
    }
    Ok(out)
}

/// Charges host work on `bytes` bytes to the call's fuel (see [`GuestMemory::charge`]).
pub(super) fn charge(mem: &mut dyn GuestMemory, bytes: usize) -> Result<(), HostTrap> {
    if mem.charge(bytes) {
        Ok(())
    } else {
        Err(HostTrap::OutOfFuel)
    }
}
