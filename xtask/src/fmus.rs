//! The example binary modules (docs/modules.md): builds `examples/fmus/rust_oscillator`
//! (Rust, wasm32-unknown-unknown), `examples/fmus/c_spring_damper` and
//! `examples/fmus/c_table`, `examples/fmus/c_types`, `examples/fmus/c_clocks` and `examples/fmus/c_timers` (C, clang wasm32-wasi reactor), packages each with its
//! `modelDescription.xml` and `resources/` folder as a store-only `.fmu` zip (entries in
//! sorted order, zero timestamps: the same sources give the same bytes), and writes it to `www/fmus/` (served to the page), `target/fmus/` and
//! `tests/fixtures/fmus/` (what the native tests load). Example builds use their own
//! target dir, `target/examples`.
use crate::setup::{Toolchain, WasmRoute};
use crate::shell::{repo_root, run, section, which, Result};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Link flags both examples need: the host puts its `logMessage` function into the
/// exported, growable function table.
const TABLE_FLAGS: [&str; 2] = ["--export-table", "--growable-table"];

/// Builds and packages every example; returns the `.fmu` paths in `www/fmus`.
pub fn build(tc: &Toolchain) -> Result<Vec<PathBuf>> {
    section("example binary modules");
    let root = repo_root();
    let rust = rust_oscillator(tc)?;
    let mut built = vec![("rust_oscillator", Some(rust))];
    // The C examples need Debian's clang and wasi-libc; where they cannot be installed
    // (no root, another distribution) the committed fixtures are served instead.
    let c_ready = ensure_c_toolchain();
    for (id, source) in C_EXAMPLES {
        let wasm = c_ready.clone().and_then(|()| c_example(id, source));
        if let Err(e) = &wasm {
            println!("fmus: warning: {id} not built ({e}); using tests/fixtures/fmus/{id}.fmu");
        }
        built.push((id, wasm.ok()));
    }
    let mut out = Vec::new();
    for (id, wasm) in built {
        let zip = match wasm {
            Some(wasm) => package(id, &wasm)?,
            None => {
                let fixture = root.join("tests/fixtures/fmus").join(format!("{id}.fmu"));
                fs::read(&fixture).map_err(|e| format!("{}: {e}", fixture.display()))?
            }
        };
        for folder in ["www/fmus", "target/fmus", "tests/fixtures/fmus"] {
            let dest = root.join(folder);
            fs::create_dir_all(&dest).map_err(|e| format!("{}: {e}", dest.display()))?;
            let file = dest.join(format!("{id}.fmu"));
            // Unchanged bytes are not rewritten, so the committed fixtures stay untouched.
            if fs::read(&file).ok().as_deref() != Some(zip.as_slice()) {
                fs::write(&file, &zip).map_err(|e| format!("{}: {e}", file.display()))?;
            }
        }
        println!("fmus: {id}.fmu ({} bytes)", zip.len());
        out.push(root.join("www/fmus").join(format!("{id}.fmu")));
    }
    Ok(out)
}

/// The C examples: folder (= modelIdentifier) and source file.
const C_EXAMPLES: [(&str, &str); 5] = [
    ("c_spring_damper", "spring_damper.c"),
    ("c_table", "table.c"),
    ("c_types", "types.c"),
    ("c_clocks", "clocks.c"),
    ("c_timers", "timers.c"),
];

/// The `.fmu` of example `id`: its `modelDescription.xml`, the built `wasm` and the
/// files of its `resources/` folder, if it has one.
fn package(id: &str, wasm: &Path) -> Result<Vec<u8>> {
    let dir = repo_root().join("examples/fmus").join(id);
    let xml = fs::read(dir.join("modelDescription.xml"))
        .map_err(|e| format!("{id}/modelDescription.xml: {e}"))?;
    let binary = fs::read(wasm).map_err(|e| format!("{}: {e}", wasm.display()))?;
    let mut files = vec![
        ("modelDescription.xml".to_string(), xml),
        (format!("binaries/wasm32/{id}.wasm"), binary),
    ];
    let resources = dir.join("resources");
    if resources.is_dir() {
        let mut names: Vec<_> = fs::read_dir(&resources)
            .map_err(|e| format!("{}: {e}", resources.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_file())
            .collect();
        names.sort();
        for path in names {
            let bytes = fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            let name = path.file_name().unwrap_or_default().to_string_lossy();
            files.push((format!("resources/{name}"), bytes));
        }
    }
    let refs: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(n, b)| (n.as_str(), b.as_slice()))
        .collect();
    Ok(write_stored(&refs))
}

fn rust_oscillator(tc: &Toolchain) -> Result<PathBuf> {
    let root = repo_root();
    let dir = root.join("examples/fmus/rust_oscillator");
    let target_dir = root.join("target/examples");
    let flags = TABLE_FLAGS.map(|f| format!("-C link-arg={f}")).join(" ");
    let mut cmd = match &tc.wasm {
        WasmRoute::Rustup => {
            Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        }
        WasmRoute::Debian { linker } => {
            let mut c = Command::new("/usr/bin/cargo");
            c.env("RUSTC", "/usr/bin/rustc")
                .env("RUSTC_BOOTSTRAP", "1")
                .env("CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_LINKER", linker);
            c
        }
    };
    cmd.current_dir(&dir)
        .args([
            "build",
            "--release",
            "--target",
            "wasm32-unknown-unknown",
            "--target-dir",
        ])
        .arg(&target_dir)
        .env("CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS", flags);
    if matches!(tc.wasm, WasmRoute::Debian { .. }) {
        cmd.args(["-Z", "build-std=std,panic_abort"]);
    }
    run(&mut cmd)?;
    Ok(target_dir.join("wasm32-unknown-unknown/release/rust_oscillator.wasm"))
}

/// clang, wasi-libc and the wasm32 compiler runtime from Debian, installed when missing.
fn ensure_c_toolchain() -> Result<()> {
    const PKGS: [&str; 4] = ["clang", "lld", "wasi-libc", "libclang-rt-dev-wasm32"];
    let missing: Vec<&str> = PKGS
        .into_iter()
        .filter(|p| {
            !Command::new("dpkg")
                .args(["-s", p])
                .output()
                .is_ok_and(|o| o.status.success())
        })
        .collect();
    if missing.is_empty() && which("clang").is_some() {
        return Ok(());
    }
    println!("fmus: installing {}", missing.join(" "));
    let apt = || {
        let root = Command::new("id")
            .arg("-u")
            .output()
            .is_ok_and(|o| o.stdout.starts_with(b"0"));
        let mut c = if root {
            Command::new("apt-get")
        } else {
            Command::new("sudo")
        };
        if !root {
            c.args(["-n", "apt-get"]);
        }
        c.env("DEBIAN_FRONTEND", "noninteractive");
        c
    };
    run(apt().args(["update", "-qq"]))?;
    run(apt().args(["install", "-y", "-qq"]).args(missing))
}

fn c_example(id: &str, source: &str) -> Result<PathBuf> {
    let root = repo_root();
    let dir = root.join("examples/fmus").join(id);
    let out_dir = root.join("target/examples/c");
    fs::create_dir_all(&out_dir).map_err(|e| format!("{}: {e}", out_dir.display()))?;
    let out = out_dir.join(format!("{id}.wasm"));
    let clang = which("clang")
        .ok_or("clang not found (apt-get install clang wasi-libc libclang-rt-dev-wasm32)")?;
    let mut cmd = Command::new(clang);
    cmd.current_dir(&dir)
        .args([
            "--target=wasm32-wasi",
            "--sysroot=/usr",
            "-O2",
            "-mexec-model=reactor",
        ])
        .args([
            "-Wl,--export-dynamic",
            "-Wl,--export=malloc",
            "-Wl,--export=free",
            "-Wl,--strip-all",
        ])
        .args(TABLE_FLAGS.map(|f| format!("-Wl,{f}")))
        .arg("-o")
        .arg(&out)
        .arg(source);
    run(&mut cmd)?;
    Ok(out)
}

/// A zip archive with stored (uncompressed) entries and zero timestamps, so the same
/// inputs always give the same bytes (PKWARE APPNOTE 6.3 §4.3).
fn write_stored(files: &[(&str, &[u8])]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (name, data) in files {
        let offset = out.len() as u32;
        let crc = crc32(data);
        let mut common = Vec::new();
        common.extend_from_slice(&20u16.to_le_bytes()); // version needed
        common.extend_from_slice(&[0; 4]); // flags, method 0 (stored)
        common.extend_from_slice(&[0; 4]); // time, date
        common.extend_from_slice(&crc.to_le_bytes());
        common.extend_from_slice(&(data.len() as u32).to_le_bytes());
        common.extend_from_slice(&(data.len() as u32).to_le_bytes());
        common.extend_from_slice(&(name.len() as u16).to_le_bytes());
        common.extend_from_slice(&0u16.to_le_bytes()); // extra length
        out.extend_from_slice(&0x0403_4b50u32.to_le_bytes());
        out.extend_from_slice(&common);
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(data);
        central.extend_from_slice(&0x0201_4b50u32.to_le_bytes());
        central.extend_from_slice(&20u16.to_le_bytes()); // version made by
        central.extend_from_slice(&common);
        central.extend_from_slice(&[0; 10]); // comment length, disk, internal and external attributes
        central.extend_from_slice(&offset.to_le_bytes());
        central.extend_from_slice(name.as_bytes());
    }
    let (cd_offset, cd_len) = (out.len() as u32, central.len() as u32);
    out.extend_from_slice(&central);
    out.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
    out.extend_from_slice(&[0; 4]); // disk numbers
    out.extend_from_slice(&(files.len() as u16).to_le_bytes());
    out.extend_from_slice(&(files.len() as u16).to_le_bytes());
    out.extend_from_slice(&cd_len.to_le_bytes());
    out.extend_from_slice(&cd_offset.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes()); // comment length
    out
}

/// CRC-32 as zip stores it (IEEE, reflected 0xEDB88320).
fn crc32(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                0xEDB8_8320 ^ (crc >> 1)
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32_matches_the_check_value() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
    }

    #[test]
    fn stored_zip_layout() {
        let zip = write_stored(&[("a", b"xyz")]);
        // local header 30 + 1 + 3, central header 46 + 1, end record 22.
        assert_eq!(zip.len(), 34 + 47 + 22);
        assert_eq!(&zip[34..38], &0x0201_4b50u32.to_le_bytes());
    }
}
