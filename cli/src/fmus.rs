//! Binary modules in CLI scenarios: the `.fmu` a `Binary` module's `source` names is read
//! from disk (relative to the scenario file, then to the working directory) and embedded
//! into the scenario before validation, so core runs it exactly as the page does.

use cosim_core::fmu::archive::MAX_ARCHIVE_BYTES;
use cosim_core::scenario::Scenario;
use std::io::Read;
use std::path::{Path, PathBuf};

/// The bytes of the `.fmu` at `path`, read only if it is within [`MAX_ARCHIVE_BYTES`]
/// (a larger file is refused before it is read); `None` if it cannot be opened.
fn read_bounded(path: &Path, url: &str) -> Option<Result<Vec<u8>, String>> {
    let file = std::fs::File::open(path).ok()?;
    let mut bytes = Vec::new();
    let limit = MAX_ARCHIVE_BYTES as u64;
    let too_large = || {
        format!("the .fmu `{url}` is larger than {limit} bytes, the limit for a binary module's archive")
    };
    // A regular file says its size: refused before a byte is read. `take` guards the rest.
    if file.metadata().is_ok_and(|m| m.len() > limit) {
        return Some(Err(too_large()));
    }
    let read = file.take(limit + 1).read_to_end(&mut bytes);
    Some(match read {
        Err(e) => Err(format!("cannot read the .fmu `{url}`: {e}")),
        Ok(n) if n as u64 > limit => Err(too_large()),
        Ok(_) => Ok(bytes),
    })
}

/// Replaces each binary-module file name in `s` by the file's bytes.
pub fn embed(s: &mut Scenario, scenario_path: &Path) -> Result<(), String> {
    // `s.json` has the parent "": that is the working directory, not an empty name.
    let scenario_dir = match scenario_path.parent() {
        Some(p) if scenario_path.as_os_str() != "-" && !p.as_os_str().is_empty() => {
            Some(p.to_path_buf())
        }
        _ => None,
    };
    for url in s.binary_urls() {
        if url.contains("://") {
            return Err(format!(
                "the .fmu `{url}` is a URL; the CLI reads local files only (download it and give its path)"
            ));
        }
        let mut candidates: Vec<PathBuf> = scenario_dir.iter().map(|d| d.join(&url)).collect();
        candidates.push(PathBuf::from(&url));
        let Some(bytes) = candidates.iter().find_map(|p| read_bounded(p, &url)) else {
            let looked = match &scenario_dir {
                Some(d) => format!("looked in `{}` and the working directory", d.display()),
                None => String::from("looked in the working directory"),
            };
            return Err(format!(
                "cannot read the .fmu `{url}` ({looked}; `cargo xtask wasm` builds the examples \
                 into www/fmus/)"
            ));
        };
        s.embed_fmu(&url, &bytes?);
    }
    Ok(())
}
