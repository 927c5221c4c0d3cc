//! Issue 13, errors that say where: a binary module that refuses to instantiate fails
//! `cosim validate` (and `Scenario::validate`, which the page calls) with the module's
//! JSON path and name; a missing `.fmu` next to a scenario given without a folder names
//! no empty folder; `cosim --version` prints the version.

use cosim_core::fmu::archive::{write_stored, Archive};
use cosim_core::scenario::{self, Scenario};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn fixture(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/fmus")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn temp_dir(tag: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("cosim-binary-errors-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The C example with another instantiationToken in its modelDescription.xml.
fn wrong_token_fmu() -> Vec<u8> {
    let bytes = fixture("c_spring_damper.fmu");
    let archive = Archive::parse(&bytes).unwrap();
    let files: Vec<(String, Vec<u8>)> = archive
        .names()
        .map(|n| {
            let data = archive.read(n).unwrap().unwrap();
            let data = match n {
                "modelDescription.xml" => String::from_utf8(data)
                    .unwrap()
                    .replace("{5b0d3c55", "{00000000")
                    .into_bytes(),
                _ => data,
            };
            (n.to_string(), data)
        })
        .collect();
    let refs: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(n, d)| (n.as_str(), d.as_slice()))
        .collect();
    write_stored(&refs)
}

fn cosim(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cosim"))
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap()
}

fn binary_preset() -> Scenario {
    scenario::preset("binary-c-spring-damper").unwrap()
}

#[test]
fn a_module_that_refuses_to_instantiate_fails_validation_with_its_path() {
    let mut s = binary_preset();
    let url = s.modules[1].source.clone().unwrap();
    s.embed_fmu(&url, &wrong_token_fmu());
    let e = s
        .validate()
        .err()
        .expect("a wrong token is a validation error");
    let msg = e.to_string();
    let name = &s.modules[1].name;
    assert!(
        msg.starts_with(&format!(
            "modules[1].source: module `{name}`: fmi3InstantiateCoSimulation"
        )),
        "{msg}"
    );
    assert!(
        msg.contains("c_spring_damper: wrong instantiationToken"),
        "the module's own words: {msg}"
    );

    let dir = temp_dir("token");
    std::fs::create_dir_all(dir.join("fmus")).unwrap();
    std::fs::write(dir.join("fmus/c_spring_damper.fmu"), wrong_token_fmu()).unwrap();
    std::fs::write(dir.join("s.json"), scenario::to_json(&binary_preset())).unwrap();
    let out = cosim(&dir, &["validate", "s.json"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("modules[1].source: module `"), "{err}");
    assert!(err.contains("wrong instantiationToken"), "{err}");
}

#[test]
fn a_missing_fmu_names_the_folders_it_looked_in() {
    let dir = temp_dir("missing");
    std::fs::write(dir.join("s.json"), scenario::to_json(&binary_preset())).unwrap();
    let out = cosim(&dir, &["validate", "s.json"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("(looked in the working directory;"), "{err}");
    assert!(!err.contains("looked in  and"), "{err}");
    let out = cosim(
        dir.parent().unwrap(),
        &["validate", &dir.join("s.json").to_string_lossy()],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!(
            "looked in `{}` and the working directory",
            dir.display()
        )),
        "{err}"
    );
}

#[test]
fn version_is_printed() {
    let out = cosim(Path::new("."), &["--version"]);
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("cosim {}\n", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn a_one_gib_fmu_is_refused_without_being_read() {
    let dir = temp_dir("huge");
    std::fs::create_dir_all(dir.join("fmus")).unwrap();
    // Sparse: no disk space used; reading it whole would allocate 1 GiB.
    let file = std::fs::File::create(dir.join("fmus/c_spring_damper.fmu")).unwrap();
    file.set_len(1 << 30).unwrap();
    std::fs::write(dir.join("s.json"), scenario::to_json(&binary_preset())).unwrap();
    let out = cosim(&dir, &["validate", "s.json"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(
            "fmus/c_spring_damper.fmu: the .fmu file is larger than the limit of 67108864 bytes"
        ),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).ok();
}
