//! A test FMU of `tests/fixtures/fmus` (built by `cargo xtask fmus`) in a scratch folder,
//! and the CLI run there: shared by the binary-module CLI tests.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The bytes of the fixture `name` (e.g. `c_types.fmu`).
pub fn fixture(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/fmus")
        .join(name);
    std::fs::read(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (run `cargo xtask fmus`)", path.display()))
}

/// A scratch folder with the fixture `name` at `fmus/name`, one per test `tag`.
pub fn temp_dir(name: &str, tag: &str) -> PathBuf {
    let stem = name.trim_end_matches(".fmu");
    let dir = std::env::temp_dir().join(format!("cosim-{stem}-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("fmus")).unwrap();
    std::fs::write(dir.join("fmus").join(name), fixture(name)).unwrap();
    dir
}

/// `cosim args` run in `dir`.
pub fn cosim(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cosim"))
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap()
}

/// What `cosim validate` prints when it refuses scenario `s` beside the fixture `name`.
pub fn validate_error(name: &str, tag: &str, s: Value) -> String {
    let dir = temp_dir(name, tag);
    std::fs::write(dir.join("bad.json"), s.to_string()).unwrap();
    let out = cosim(&dir, &["validate", "bad.json"]);
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(out.status.code(), Some(1));
    String::from_utf8_lossy(&out.stderr).into_owned()
}
