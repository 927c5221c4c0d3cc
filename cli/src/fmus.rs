//! Binary modules in CLI scenarios: the `.fmu` a `Binary` module's `source` names is read
//! from disk (relative to the scenario file, then to the working directory) and embedded
//! into the scenario before validation, so core runs it exactly as the page does.

use cosim_core::limits::MAX_FMU_FILE_BYTES;
use cosim_core::scenario::Scenario;
use std::path::{Path, PathBuf};

/// Replaces each binary-module file name in `s` by the file's bytes.
pub fn embed(s: &mut Scenario, scenario_path: &Path) -> Result<(), String> {
    let scenario_dir = match scenario_path.parent() {
        Some(p) if scenario_path.as_os_str() != "-" => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    for url in s.binary_urls() {
        if url.contains("://") {
            return Err(format!(
                "the .fmu `{url}` is a URL; the CLI reads local files only (download it and give its path)"
            ));
        }
        let candidates = [scenario_dir.join(&url), PathBuf::from(&url)];
        let Some(found) = candidates.iter().find(|p| p.is_file()) else {
            return Err(format!(
                "cannot read the .fmu `{url}` (looked in {} and the working directory; \
                 `cargo xtask wasm` builds the examples into www/fmus/)",
                scenario_dir.display()
            ));
        };
        let bytes = crate::io::read_bytes(found, MAX_FMU_FILE_BYTES, ".fmu file")
            .map_err(|e| e.to_string())?;
        s.embed_fmu(&url, &bytes);
    }
    Ok(())
}
