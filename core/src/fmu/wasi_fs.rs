//! The `.fmu`'s `resources/` folder as a read-only WASI file system: one preopened
//! directory (fd 3, `/resources`), files opened from it (fd 4 on), and the preview1 calls
//! a C library makes to read them (`fd_prestat_get`, `fd_prestat_dir_name`, `path_open`,
//! `fd_read`, `fd_seek`, `fd_tell`, `fd_filestat_get`, `path_filestat_get`, `fd_close`).
//! `fmi3InstantiateCoSimulation` gets `resourcePath` = `/resources/`, so
//! `fopen(strcat(resourcePath, "table.txt"), "r")` works unchanged.
//!
//! Anything that would change a file is refused: the call returns `ERRNO_ROFS` to the
//! module and the refusal is recorded, so that the FMI call in progress fails with an
//! error naming the WASI call (see `Runtime::call`).

use super::sandbox::GuestMemory;
use super::wasi::{charge, guest_range, iovecs, put, Args, Errno, HostTrap};
use super::wasi_host::WasiHost;
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

/// The preopened directory's name, as the module sees it.
pub const RESOURCE_DIR: &str = "/resources";
/// The preopened directory's file descriptor (0-2 are the standard streams).
const DIR_FD: i32 = 3;
/// Files a module may have open at once.
const MAX_OPEN_FILES: usize = 64;
/// Bytes one `fd_read` moves at most (a short read is legal; the C library loops).
pub const MAX_BYTES_PER_CALL: usize = 1 << 20;

const FILETYPE_DIRECTORY: u8 = 3;
const FILETYPE_REGULAR: u8 = 4;
/// `oflags` that create or truncate: `O_CREAT`, `O_EXCL`, `O_TRUNC`.
const OFLAGS_WRITING: i32 = 1 | 4 | 8;
/// `fdflags` `APPEND`, `DSYNC`, `RSYNC`, `SYNC`: only meaningful for writing.
const FDFLAGS_WRITING: i32 = 1 | 2 | 8 | 16;
/// Rights that only a writer needs: `fd_datasync`, `fd_write`, `fd_allocate`,
/// `fd_filestat_set_size`.
const RIGHTS_WRITING: u64 = 1 | 1 << 6 | 1 << 8 | 1 << 22;
/// WASI calls that only change files: linked to [`refuse`], never to a trapping stub.
pub const WRITING_CALLS: [&str; 14] = [
    "fd_pwrite",
    "fd_allocate",
    "fd_datasync",
    "fd_sync",
    "fd_filestat_set_size",
    "fd_filestat_set_times",
    "fd_fdstat_set_flags",
    "path_create_directory",
    "path_filestat_set_times",
    "path_link",
    "path_remove_directory",
    "path_rename",
    "path_symlink",
    "path_unlink_file",
];

/// The resource files (paths relative to `resources/`) and the files the module opened.
#[derive(Default)]
pub struct ResourceTree {
    files: BTreeMap<String, Vec<u8>>,
    /// Whether the archive has a `resources/` folder (then fd 3 is preopened).
    present: bool,
    /// Open descriptors from fd 4 on: the path and the read position.
    open: Vec<Option<(String, u64)>>,
}

impl ResourceTree {
    /// A tree of `files`; `present` when the archive has a `resources/` folder at all.
    pub fn new(files: BTreeMap<String, Vec<u8>>, present: bool) -> Self {
        ResourceTree {
            files,
            present,
            open: Vec::new(),
        }
    }

    /// Whether the module gets a `resourcePath`.
    pub fn present(&self) -> bool {
        self.present
    }

    fn is_dir(&self, path: &str) -> bool {
        path.is_empty()
            || self
                .files
                .range(format!("{path}/")..)
                .next()
                .is_some_and(|(k, _)| k.starts_with(&format!("{path}/")))
    }

    /// The open file or directory behind `fd`: its path (`""` for the preopen).
    fn path_of(&self, fd: i32) -> Option<&str> {
        if fd == DIR_FD && self.present {
            return Some("");
        }
        let slot = usize::try_from(fd).ok()?.checked_sub(4)?;
        self.open.get(slot)?.as_ref().map(|(p, _)| p.as_str())
    }

    fn position(&mut self, fd: i32) -> Option<(&[u8], &mut u64)> {
        let slot = usize::try_from(fd).ok()?.checked_sub(4)?;
        let (path, pos) = self.open.get_mut(slot)?.as_mut()?;
        Some((self.files.get(path.as_str())?.as_slice(), pos))
    }

    /// `path` relative to the directory `fd`, normalised; `..` may not leave `resources/`.
    fn resolve(&self, fd: i32, path: &str) -> Result<String, Errno> {
        let base = self.path_of(fd).ok_or(Errno::BADF)?;
        let mut parts: Vec<&str> = base.split('/').filter(|p| !p.is_empty()).collect();
        for part in path.split('/') {
            match part {
                "" | "." => {}
                ".." => {
                    parts.pop().ok_or(Errno::NOTCAPABLE)?;
                }
                p => parts.push(p),
            }
        }
        Ok(parts.join("/"))
    }

    /// `filestat` (64 bytes) of `path`, or `NOENT`.
    fn filestat(&self, path: &str) -> Result<[u8; 64], Errno> {
        let (kind, size) = match self.files.get(path) {
            Some(data) => (FILETYPE_REGULAR, data.len() as u64),
            None if self.is_dir(path) => (FILETYPE_DIRECTORY, 0),
            None => return Err(Errno::NOENT),
        };
        let ino = self.files.range(..path.to_string()).count() as u64 + 1;
        let mut stat = [0u8; 64];
        stat[8..16].copy_from_slice(&ino.to_le_bytes());
        stat[16] = kind;
        stat[24..32].copy_from_slice(&1u64.to_le_bytes());
        stat[32..40].copy_from_slice(&size.to_le_bytes());
        Ok(stat)
    }

    /// `fdstat` (24 bytes) of an open file or directory; `None` if `fd` is not one.
    pub fn fdstat(&self, fd: i32) -> Option<[u8; 24]> {
        let path = self.path_of(fd)?;
        let mut stat = [0u8; 24];
        stat[0] = if self.files.contains_key(path) {
            FILETYPE_REGULAR
        } else {
            FILETYPE_DIRECTORY
        };
        // Base and inheriting rights: everything; writing is refused when asked for.
        stat[8..16].copy_from_slice(&u64::MAX.to_le_bytes());
        stat[16..24].copy_from_slice(&u64::MAX.to_le_bytes());
        Some(stat)
    }

    fn open(&mut self, path: String) -> Result<i32, Errno> {
        let slot = match self.open.iter().position(Option::is_none) {
            Some(k) => k,
            None if self.open.len() < MAX_OPEN_FILES => {
                self.open.push(None);
                self.open.len() - 1
            }
            None => return Err(Errno::MFILE),
        };
        self.open[slot] = Some((path, 0));
        Ok(slot as i32 + 4)
    }

    fn close(&mut self, fd: i32) -> Errno {
        let slot = usize::try_from(fd).ok().and_then(|f| f.checked_sub(4));
        match slot.and_then(|k| self.open.get_mut(k)) {
            Some(open @ Some(_)) => {
                *open = None;
                Errno::SUCCESS
            }
            _ => Errno::BADF,
        }
    }

    /// The resource file names, for a message (at most `n`, then how many more).
    fn listing(&self, n: usize) -> String {
        let names: Vec<&str> = self.files.keys().take(n).map(String::as_str).collect();
        match (names.len(), self.files.len().saturating_sub(n)) {
            (0, _) => String::from("no files"),
            (_, 0) => names.join(", "),
            (_, more) => format!("{} and {more} more", names.join(", ")),
        }
    }
}

/// Records that the module tried to change a file and answers `ERRNO_ROFS`.
pub fn refuse(host: &mut WasiHost, call: &str, what: &str) -> i32 {
    host.refuse(format!(
        "WASI {call}{what} was refused: a binary module may only read the files of its \
         resources/ folder"
    ));
    Errno::ROFS.0
}

fn guest_str(mem: &dyn GuestMemory, ptr: i32, len: i32) -> Result<String, Errno> {
    let r = guest_range(mem.size(), ptr, len).ok_or(Errno::FAULT)?;
    if r.len() > 4096 {
        return Err(Errno::NAMETOOLONG);
    }
    let mut bytes = alloc::vec![0u8; r.len()];
    mem.read(r.start as u32, &mut bytes);
    String::from_utf8(bytes).map_err(|_| Errno::INVAL)
}

/// The file-system calls of [`super::wasi::dispatch`]: the errno they return.
pub(super) fn dispatch_fs(
    name: &str,
    host: &mut WasiHost,
    mem: &mut dyn GuestMemory,
    a: Args<'_>,
) -> Result<i32, HostTrap> {
    Ok(match name {
        "fd_prestat_get" => {
            if a.i(0) != DIR_FD || !host.fs.present {
                return Ok(Errno::BADF.0);
            }
            // prestat: tag u8 (0 = directory), then the name length as u32 at offset 4.
            let mut prestat = [0u8; 8];
            prestat[4..].copy_from_slice(&(RESOURCE_DIR.len() as u32).to_le_bytes());
            put(mem, a.i(1), &prestat)
        }
        "fd_prestat_dir_name" => {
            if a.i(0) != DIR_FD || !host.fs.present {
                return Ok(Errno::BADF.0);
            }
            let name = RESOURCE_DIR.as_bytes();
            if (a.i(2) as u32 as usize) < name.len() {
                return Ok(Errno::NAMETOOLONG.0);
            }
            put(mem, a.i(1), name)
        }
        "path_open" => path_open(host, mem, a)?,
        "fd_read" => fd_read(host, mem, a)?,
        "fd_seek" => {
            let (fd, offset, whence, out) = (a.i(0), a.l(1), a.i(2), a.i(3));
            let Some((file, pos)) = host.fs.position(fd) else {
                return Ok(if (0..=2).contains(&fd) {
                    Errno::SPIPE.0
                } else {
                    Errno::BADF.0
                });
            };
            let base = match whence {
                0 => 0,
                1 => *pos as i64,
                2 => file.len() as i64,
                _ => return Ok(Errno::INVAL.0),
            };
            let Some(new) = base.checked_add(offset).filter(|p| *p >= 0) else {
                return Ok(Errno::INVAL.0);
            };
            *pos = new as u64;
            put(mem, out, &(new as u64).to_le_bytes())
        }
        "fd_tell" => {
            let Some((_, pos)) = host.fs.position(a.i(0)) else {
                return Ok(Errno::BADF.0);
            };
            let at = *pos;
            put(mem, a.i(1), &at.to_le_bytes())
        }
        "fd_filestat_get" => {
            let (fd, fs) = (a.i(0), &host.fs);
            let stat = match fs.path_of(fd).map(|p| fs.filestat(p)) {
                Some(Ok(s)) => s,
                Some(Err(e)) => return Ok(e.0),
                None if (0..=2).contains(&fd) => {
                    let mut s = [0u8; 64];
                    s[16] = 2; // character device
                    s
                }
                None => return Ok(Errno::BADF.0),
            };
            put(mem, a.i(1), &stat)
        }
        "path_filestat_get" => {
            let (fd, path, len, buf) = (a.i(0), a.i(2), a.i(3), a.i(4));
            let stat = guest_str(mem, path, len)
                .and_then(|name| host.fs.resolve(fd, &name))
                .and_then(|full| host.fs.filestat(&full));
            match stat {
                Ok(s) => put(mem, buf, &s),
                Err(e) => e.0,
            }
        }
        "fd_close" => host.fs.close(a.i(0)).0,
        _ => Errno::BADF.0,
    })
}

fn path_open(host: &mut WasiHost, mem: &mut dyn GuestMemory, a: Args<'_>) -> Result<i32, HostTrap> {
    let (fd, path, path_len, oflags) = (a.i(0), a.i(2), a.i(3), a.i(4));
    let (rights, fdflags, out) = (a.l(5), a.i(7), a.i(8));
    charge(mem, path_len as u32 as usize)?;
    let name = match guest_str(mem, path, path_len) {
        Ok(n) => n,
        Err(e) => return Ok(e.0),
    };
    let writing = oflags & OFLAGS_WRITING != 0
        || fdflags & FDFLAGS_WRITING != 0
        || rights as u64 & RIGHTS_WRITING != 0;
    if writing {
        let shown = match host.fs.resolve(fd, &name) {
            Ok(full) => format!("{RESOURCE_DIR}/{full}"),
            Err(_) => name,
        };
        return Ok(refuse(
            host,
            "path_open",
            &format!(" of `{shown}` for writing"),
        ));
    }
    let full = match host.fs.resolve(fd, &name) {
        Ok(p) => p,
        Err(e) => return Ok(e.0),
    };
    let is_file = host.fs.files.contains_key(&full);
    if !is_file && !host.fs.is_dir(&full) {
        let listing = host.fs.listing(10);
        host.append(&format!(
            "[host] path_open: `resources/{full}` is not in the .fmu (its resources/ \
             folder has {listing})\n"
        ));
        return Ok(Errno::NOENT.0);
    }
    let directory_wanted = oflags & 2 != 0;
    if directory_wanted && is_file {
        return Ok(Errno::NOTDIR.0);
    }
    let new_fd = match host.fs.open(full) {
        Ok(f) => f,
        Err(e) => return Ok(e.0),
    };
    if mem.write(out as u32, &new_fd.to_le_bytes()) {
        Ok(Errno::SUCCESS.0)
    } else {
        host.fs.close(new_fd);
        Ok(Errno::FAULT.0)
    }
}

fn fd_read(host: &mut WasiHost, mem: &mut dyn GuestMemory, a: Args<'_>) -> Result<i32, HostTrap> {
    let (fd, iovs, n, out) = (a.i(0), a.i(1), a.i(2), a.i(3));
    let mut total = 0usize;
    if fd != 0 {
        let is_dir = host.fs.path_of(fd).is_some();
        let Some((file, pos)) = host.fs.position(fd) else {
            return Ok(if is_dir {
                Errno::ISDIR.0
            } else {
                Errno::BADF.0
            });
        };
        let iovecs = match iovecs(mem, iovs, n) {
            Ok(v) => v,
            Err(e) => return Ok(e.0),
        };
        for r in iovecs {
            let start = (*pos as usize).min(file.len());
            let take = r
                .len()
                .min(file.len() - start)
                .min(MAX_BYTES_PER_CALL - total);
            mem.write(r.start as u32, &file[start..start + take]);
            *pos += take as u64;
            total += take;
            if take < r.len() {
                break;
            }
        }
    }
    if !mem.write(out as u32, &(total as u32).to_le_bytes()) {
        return Ok(Errno::FAULT.0);
    }
    charge(mem, total)?;
    Ok(Errno::SUCCESS.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree() -> ResourceTree {
        let mut files = BTreeMap::new();
        files.insert(String::from("table.txt"), alloc::vec![1u8, 2, 3]);
        files.insert(String::from("sub/deep.bin"), Vec::new());
        ResourceTree::new(files, true)
    }

    #[test]
    fn paths_resolve_inside_resources_only() {
        let fs = tree();
        assert_eq!(
            fs.resolve(DIR_FD, "./sub/../table.txt"),
            Ok("table.txt".into())
        );
        assert_eq!(fs.resolve(DIR_FD, "../etc/passwd"), Err(Errno::NOTCAPABLE));
        assert_eq!(fs.resolve(7, "table.txt"), Err(Errno::BADF));
        assert!(fs.is_dir("sub") && fs.is_dir("") && !fs.is_dir("su"));
        let stat = fs.filestat("table.txt").unwrap();
        assert_eq!((stat[16], stat[32]), (FILETYPE_REGULAR, 3));
        assert_eq!(fs.filestat("sub").unwrap()[16], FILETYPE_DIRECTORY);
        assert_eq!(fs.filestat("nope"), Err(Errno::NOENT));
    }

    #[test]
    fn descriptors_are_reused_and_bounded() {
        let mut fs = tree();
        let a = fs.open("table.txt".into()).unwrap();
        assert_eq!(a, 4);
        assert_eq!(fs.close(a), Errno::SUCCESS);
        assert_eq!(fs.close(a), Errno::BADF, "closed twice");
        for _ in 0..MAX_OPEN_FILES {
            fs.open("table.txt".into()).unwrap();
        }
        assert_eq!(fs.open("table.txt".into()), Err(Errno::MFILE));
        assert_eq!(fs.listing(1), "sub/deep.bin and 1 more");
    }
}
