//! Binary modules in CLI scenarios: the `.fmu` a `Binary` module's `source` names is read
//! from disk (relative to the scenario file, then to the working directory) and embedded
//! into the scenario before validation, so core runs it exactly as the page does.

use cosim_core::limits::MAX_FMU_FILE_BYTES;
use cosim_core::scenario::Scenario;
use std::path::{Path, PathBuf};

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
        let Some(found) = candidates.iter().find(|p| p.is_file()) else {
            let looked = match &scenario_dir {
                Some(d) => format!("looked in `{}` and the working directory", d.display()),
                None => String::from("looked in the working directory"),
            };
            return Err(format!(
                "cannot read the .fmu `{url}` ({looked}; `cargo xtask wasm` builds the examples \
                 into www/fmus/)"
            ));
        };
        let bytes = crate::io::read_bytes(found, MAX_FMU_FILE_BYTES, ".fmu file")
            .map_err(|e| e.to_string())?;
        s.embed_fmu(&url, &bytes);
    }
    Ok(())
}
