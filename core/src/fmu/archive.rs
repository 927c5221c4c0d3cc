//! Reading `.fmu` files: zip archives (PKWARE APPNOTE 6.3, §4.3) with stored or deflated
//! entries. Only what an FMU needs: the central directory, local headers, CRC-32 checks,
//! and limits so that a hostile archive cannot exhaust memory.

use super::FmuError;
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// Largest uncompressed entry accepted, in bytes.
pub const MAX_ENTRY_BYTES: usize = 64 << 20;
/// Largest `.fmu` archive accepted, in bytes (front ends refuse a larger file before
/// reading it).
pub const MAX_ARCHIVE_BYTES: usize = 256 << 20;
/// Largest total of the files under `resources/`, uncompressed, in bytes.
pub const MAX_RESOURCE_BYTES: usize = 64 << 20;

const EOCD_SIGNATURE: u32 = 0x0605_4b50;
const CENTRAL_SIGNATURE: u32 = 0x0201_4b50;
const LOCAL_SIGNATURE: u32 = 0x0403_4b50;
const EOCD_LEN: usize = 22;

/// One file of the archive, as listed in the central directory.
#[derive(Clone, Debug)]
struct Entry {
    name: String,
    method: u16,
    flags: u16,
    crc: u32,
    compressed: usize,
    uncompressed: usize,
    local_offset: usize,
}

/// A parsed zip archive borrowing its bytes.
pub struct Archive<'a> {
    bytes: &'a [u8],
    entries: Vec<Entry>,
}

fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(b.get(at..at + 2)?.try_into().ok()?))
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

fn truncated(what: &str) -> FmuError {
    FmuError::Archive(format!("truncated {what}"))
}

impl<'a> Archive<'a> {
    /// Reads the central directory.
    pub fn parse(bytes: &'a [u8]) -> Result<Self, FmuError> {
        if bytes.len() > MAX_ARCHIVE_BYTES {
            return Err(FmuError::Archive(format!(
                "{} bytes is more than {MAX_ARCHIVE_BYTES}, the limit for a .fmu",
                bytes.len()
            )));
        }
        if bytes.len() < EOCD_LEN {
            return Err(FmuError::Archive(format!(
                "{} bytes is too short for a zip file",
                bytes.len()
            )));
        }
        // The end-of-central-directory record is last, followed by a comment of < 64 KiB.
        let lowest = bytes.len().saturating_sub(EOCD_LEN + 0xFFFF);
        let eocd = (lowest..=bytes.len() - EOCD_LEN)
            .rev()
            .find(|&i| u32_at(bytes, i) == Some(EOCD_SIGNATURE))
            .ok_or_else(|| {
                FmuError::Archive("no end-of-central-directory record (not a zip file)".into())
            })?;
        let count = u16_at(bytes, eocd + 10).ok_or_else(|| truncated("end record"))? as usize;
        let cd_offset = u32_at(bytes, eocd + 16).ok_or_else(|| truncated("end record"))? as usize;
        if cd_offset == 0xFFFF_FFFF || count == 0xFFFF {
            return Err(FmuError::Archive("ZIP64 archives are not supported".into()));
        }
        let mut entries = Vec::with_capacity(count);
        let mut at = cd_offset;
        for _ in 0..count {
            if u32_at(bytes, at) != Some(CENTRAL_SIGNATURE) {
                return Err(FmuError::Archive("corrupt central directory".into()));
            }
            let field =
                |off: usize| u16_at(bytes, at + off).ok_or_else(|| truncated("central directory"));
            let word =
                |off: usize| u32_at(bytes, at + off).ok_or_else(|| truncated("central directory"));
            let (name_len, extra_len, comment_len) = (
                field(28)? as usize,
                field(30)? as usize,
                field(32)? as usize,
            );
            let name = bytes
                .get(at + 46..at + 46 + name_len)
                .ok_or_else(|| truncated("file name"))?;
            entries.push(Entry {
                name: String::from_utf8_lossy(name).into_owned(),
                flags: field(8)?,
                method: field(10)?,
                crc: word(16)?,
                compressed: word(20)? as usize,
                uncompressed: word(24)? as usize,
                local_offset: word(42)? as usize,
            });
            at += 46 + name_len + extra_len + comment_len;
        }
        Ok(Archive { bytes, entries })
    }

    /// Names of all entries, in archive order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().map(|e| e.name.as_str())
    }

    /// The names starting with `prefix`, for a message: at most `n`, then how many more
    /// (an archive may list thousands), or `no <prefix>` if there are none.
    pub fn listing(&self, prefix: &str, n: usize) -> String {
        let mut names = self.names().filter(|name| name.starts_with(prefix));
        let shown: Vec<&str> = names.by_ref().take(n).collect();
        let more = names.count();
        match (shown.is_empty(), more) {
            (true, _) => format!("no {prefix}"),
            (false, 0) => shown.join(", "),
            (false, more) => format!("{} and {more} more", shown.join(", ")),
        }
    }

    /// The files under `resources/` (names relative to it, uncompressed) and whether the
    /// archive has that folder at all.
    pub fn resources(&self) -> Result<(BTreeMap<String, Vec<u8>>, bool), FmuError> {
        let mut out = BTreeMap::new();
        let mut present = false;
        let mut total = 0usize;
        for e in &self.entries {
            let Some(rel) = e.name.strip_prefix("resources/") else {
                continue;
            };
            present = true;
            if rel.is_empty() || rel.ends_with('/') {
                continue;
            }
            total = total.saturating_add(e.uncompressed);
            if total > MAX_RESOURCE_BYTES {
                return Err(FmuError::Archive(format!(
                    "the files under resources/ are more than {MAX_RESOURCE_BYTES} bytes \
                     uncompressed (the limit for a binary module's resources)"
                )));
            }
            if let Some(bytes) = self.read(&e.name)? {
                out.insert(rel.into(), bytes);
            }
        }
        Ok((out, present))
    }

    /// The uncompressed bytes of `name`, `None` if there is no such entry.
    pub fn read(&self, name: &str) -> Result<Option<Vec<u8>>, FmuError> {
        let Some(e) = self.entries.iter().find(|e| e.name == name) else {
            return Ok(None);
        };
        if e.flags & 1 != 0 {
            return Err(FmuError::Archive(format!("`{name}` is encrypted")));
        }
        if e.uncompressed > MAX_ENTRY_BYTES {
            return Err(FmuError::Archive(format!(
                "`{name}` is {} bytes uncompressed; the limit is {MAX_ENTRY_BYTES}",
                e.uncompressed
            )));
        }
        let b = self.bytes;
        if u32_at(b, e.local_offset) != Some(LOCAL_SIGNATURE) {
            return Err(FmuError::Archive(format!(
                "corrupt local header of `{name}`"
            )));
        }
        let name_len =
            u16_at(b, e.local_offset + 26).ok_or_else(|| truncated("local header"))? as usize;
        let extra_len =
            u16_at(b, e.local_offset + 28).ok_or_else(|| truncated("local header"))? as usize;
        let start = e.local_offset + 30 + name_len + extra_len;
        let data = b
            .get(start..start.saturating_add(e.compressed))
            .ok_or_else(|| {
                FmuError::Archive(format!("data of `{name}` runs past the end of the file"))
            })?;
        let out = match e.method {
            0 => data.to_vec(),
            // Inflated no further than the declared size (already within the limit), so a
            // zip bomb costs at most that much memory before it is refused.
            8 => miniz_oxide::inflate::decompress_to_vec_with_limit(data, e.uncompressed)
                .map_err(|err| match err.status {
                    miniz_oxide::inflate::TINFLStatus::HasMoreOutput => FmuError::Archive(format!(
                        "`{name}` inflates to more than the {} bytes its header declares \
                         (a zip bomb or a damaged archive)",
                        e.uncompressed
                    )),
                    status => FmuError::Archive(format!(
                        "`{name}` does not inflate: {status:?} (damaged deflate data)"
                    )),
                })?,
            m => {
                return Err(FmuError::Archive(format!(
                    "`{name}` uses compression method {m}; only stored (0) and deflate (8) are supported"
                )))
            }
        };
        if out.len() != e.uncompressed || crc32(&out) != e.crc {
            return Err(FmuError::Archive(format!(
                "`{name}` is corrupt (size or CRC-32 mismatch)"
            )));
        }
        Ok(Some(out))
    }
}

/// CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320), as zip stores it.
pub fn crc32(data: &[u8]) -> u32 {
    let mut table = [0u32; 256];
    for (i, slot) in table.iter_mut().enumerate() {
        let mut c = i as u32;
        for _ in 0..8 {
            c = if c & 1 != 0 {
                0xEDB8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
        }
        *slot = c;
    }
    !data.iter().fold(!0u32, |c, &b| {
        table[((c ^ u32::from(b)) & 0xFF) as usize] ^ (c >> 8)
    })
}

/// A store-only zip of `files` (name, bytes): enough to build test archives, and the
/// format `cargo xtask` writes for the examples.
pub fn write_stored(files: &[(&str, &[u8])]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (name, data) in files {
        let offset = out.len() as u32;
        let crc = crc32(data);
        let header = |sig: u32, central: bool| {
            let mut h = Vec::new();
            h.extend_from_slice(&sig.to_le_bytes());
            if central {
                h.extend_from_slice(&20u16.to_le_bytes()); // version made by
            }
            h.extend_from_slice(&20u16.to_le_bytes()); // version needed
            h.extend_from_slice(&0u16.to_le_bytes()); // flags
            h.extend_from_slice(&0u16.to_le_bytes()); // method: stored
            h.extend_from_slice(&0u32.to_le_bytes()); // time, date
            h.extend_from_slice(&crc.to_le_bytes());
            h.extend_from_slice(&(data.len() as u32).to_le_bytes());
            h.extend_from_slice(&(data.len() as u32).to_le_bytes());
            h.extend_from_slice(&(name.len() as u16).to_le_bytes());
            h.extend_from_slice(&0u16.to_le_bytes()); // extra length
            if central {
                h.extend_from_slice(&[0u8; 6]); // comment length, disk, internal attributes
                h.extend_from_slice(&0u32.to_le_bytes()); // external attributes
                h.extend_from_slice(&offset.to_le_bytes());
            }
            h.extend_from_slice(name.as_bytes());
            h
        };
        out.extend(header(LOCAL_SIGNATURE, false));
        out.extend_from_slice(data);
        central.extend(header(CENTRAL_SIGNATURE, true));
    }
    let cd_offset = out.len() as u32;
    out.extend_from_slice(&central);
    out.extend_from_slice(&EOCD_SIGNATURE.to_le_bytes());
    out.extend_from_slice(&[0u8; 4]);
    out.extend_from_slice(&(files.len() as u16).to_le_bytes());
    out.extend_from_slice(&(files.len() as u16).to_le_bytes());
    out.extend_from_slice(&(central.len() as u32).to_le_bytes());
    out.extend_from_slice(&cd_offset.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;

    #[test]
    fn stored_archive_round_trips() {
        let zip = write_stored(&[("a.txt", b"hello"), ("dir/b.bin", &[1, 2, 3])]);
        let a = Archive::parse(&zip).unwrap();
        assert_eq!(a.names().collect::<Vec<_>>(), ["a.txt", "dir/b.bin"]);
        assert_eq!(a.read("a.txt").unwrap().unwrap(), b"hello");
        assert_eq!(a.read("dir/b.bin").unwrap().unwrap(), [1, 2, 3]);
        assert!(a.read("missing").unwrap().is_none());
    }

    #[test]
    fn deflated_entry_inflates() {
        // `zip -9` of "aaaa...a" (100 bytes) hand-assembled: raw deflate stream.
        let text = [b'a'; 100];
        let deflated = miniz_oxide_deflate(&text);
        let mut zip = write_stored(&[("x", &deflated)]);
        // Patch method to 8, CRC and uncompressed size to those of `text` (local and central).
        let crc = crc32(&text).to_le_bytes();
        let local = 0;
        let central = 30 + 1 + deflated.len();
        for (h, method_at) in [(local, 8), (central, 10)] {
            zip[h + method_at..h + method_at + 2].copy_from_slice(&8u16.to_le_bytes());
            zip[h + method_at + 6..h + method_at + 10].copy_from_slice(&crc);
            zip[h + method_at + 14..h + method_at + 18].copy_from_slice(&100u32.to_le_bytes());
        }
        assert_eq!(
            Archive::parse(&zip).unwrap().read("x").unwrap().unwrap(),
            text
        );
    }

    /// A fixed-Huffman deflate stream of `data` built by hand is long-winded; a stored
    /// deflate block (BTYPE 00) exercises the same inflate path.
    fn miniz_oxide_deflate(data: &[u8]) -> Vec<u8> {
        let mut out = alloc::vec![1u8]; // BFINAL = 1, BTYPE = 00
        out.extend_from_slice(&(data.len() as u16).to_le_bytes());
        out.extend_from_slice(&(!(data.len() as u16)).to_le_bytes());
        out.extend_from_slice(data);
        out
    }

    #[test]
    fn a_zip_bomb_is_named_and_not_inflated_past_its_declared_size() {
        let text = alloc::vec![0u8; 1 << 20];
        let deflated = miniz_oxide::deflate::compress_to_vec(&text, 9);
        let mut zip = write_stored(&[("bomb.bin", &deflated)]);
        // Method 8 and a declared size of 1000 bytes, in the local and the central header.
        let central = 30 + 8 + deflated.len();
        for (h, method_at) in [(0, 8), (central, 10)] {
            zip[h + method_at..h + method_at + 2].copy_from_slice(&8u16.to_le_bytes());
            zip[h + method_at + 14..h + method_at + 18].copy_from_slice(&1000u32.to_le_bytes());
        }
        let e = Archive::parse(&zip).unwrap().read("bomb.bin").unwrap_err();
        assert_eq!(
            e.to_string(),
            "not a readable .fmu (zip) archive: `bomb.bin` inflates to more than the 1000 bytes \
             its header declares (a zip bomb or a damaged archive)"
        );
    }

    #[test]
    fn listings_of_many_entries_are_capped() {
        let names: Vec<String> = (0..20_000)
            .map(|k| alloc::format!("binaries/x/{k}"))
            .collect();
        let files: Vec<(&str, &[u8])> = names.iter().map(|n| (n.as_str(), &b""[..])).collect();
        let zip = write_stored(&files);
        let listing = Archive::parse(&zip).unwrap().listing("binaries/", 10);
        assert!(
            listing.ends_with("binaries/x/9 and 19990 more"),
            "{listing}"
        );
        assert!(listing.len() < 200);
    }

    #[test]
    fn damaged_archives_are_reported() {
        assert!(matches!(
            Archive::parse(b"not a zip at all, clearly"),
            Err(FmuError::Archive(_))
        ));
        let mut zip = write_stored(&[("a.txt", b"hello")]);
        zip[30 + 5] ^= 0xFF; // flip a data byte: CRC mismatch
        let e = Archive::parse(&zip).unwrap().read("a.txt").unwrap_err();
        assert!(e.to_string().contains("CRC"), "{e}");
        let zip = write_stored(&[("a.txt", b"hello")]);
        assert!(Archive::parse(&zip[..zip.len() - 30]).is_err());
    }
}
