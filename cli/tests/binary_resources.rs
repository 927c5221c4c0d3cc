//! Issue 13, resources and files: `tests/fixtures/fmus/c_table.fmu` (built by `cargo
//! xtask fmus` from `examples/fmus/c_table`) is C compiled against wasi-libc that reads
//! `resources/table.txt` with `fopen`/`fscanf`/`fseek` at instantiation. It loads (the
//! C library's start-up finds the preopened `resources/`), reads its table, and a write
//! or a missing resource fails with an error naming the FMI and the WASI call.

use cosim_core::fmu::archive::{write_stored, Archive};
use cosim_core::fmu::{BinaryModule, RuntimeLimits};
use cosim_core::module::{InstantiateOptions, ModuleErrorKind, Subsystem, ValueRef};
use std::collections::BTreeMap;
use std::path::Path;

const VR_Y: ValueRef = ValueRef(2);
const VR_ROWS: ValueRef = ValueRef(4);

fn fixture() -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/fmus/c_table.fmu");
    std::fs::read(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (run `cargo xtask fmus`)", path.display()))
}

fn load(bytes: &[u8], params: &[(&str, f64)]) -> BinaryModule {
    let params: BTreeMap<String, f64> = params.iter().map(|(k, v)| (k.to_string(), *v)).collect();
    BinaryModule::from_fmu(bytes, &params, RuntimeLimits::default())
        .unwrap_or_else(|e| panic!("a module linking fopen loads: {e}"))
}

/// The fixture with its files renamed or dropped by `edit` (name, bytes).
fn repacked(edit: impl Fn(&str, Vec<u8>) -> Option<(String, Vec<u8>)>) -> Vec<u8> {
    let bytes = fixture();
    let archive = Archive::parse(&bytes).unwrap();
    let files: Vec<(String, Vec<u8>)> = archive
        .names()
        .filter_map(|n| {
            let data = archive.read(n).unwrap().unwrap();
            edit(n, data)
        })
        .collect();
    let refs: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(n, d)| (n.as_str(), d.as_slice()))
        .collect();
    write_stored(&refs)
}

fn read(s: &mut Subsystem, vr: ValueRef) -> f64 {
    let mut v = [0.0];
    s.get_float64(&[vr], &mut v).unwrap();
    v[0]
}

#[test]
fn a_c_module_reads_its_table_from_resources_with_fopen() {
    let m = load(&fixture(), &[("gain", 2.0)]);
    let mut s = Subsystem::instantiate(Box::new(m), InstantiateOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    s.enter_initialization_mode(None, 0.0, Some(2.0)).unwrap();
    s.exit_initialization_mode().unwrap();
    assert_eq!(
        read(&mut s, VR_ROWS),
        5.0,
        "every row of resources/table.txt"
    );
    // table.txt: (0, 0) (0.5, 1) (1, 1) (1.5, -0.5) (2, 0); y = 2 table(t).
    let expected = [1.0, 2.0, 2.0, 2.0, 0.5, -1.0, -0.5, 0.0, 0.0];
    for (k, want) in expected.iter().enumerate() {
        let t = 0.25 * k as f64;
        s.do_step(t, 0.25, true).unwrap();
        assert_eq!(read(&mut s, VR_Y), *want, "y({})", t + 0.25);
    }
}

#[test]
fn writing_a_file_is_refused_with_the_call_named() {
    let m = load(&fixture(), &[("write_test", 1.0)]);
    let mut s = Subsystem::instantiate(Box::new(m), InstantiateOptions::default()).unwrap();
    let e = s.enter_initialization_mode(None, 0.0, None).unwrap_err();
    assert!(
        matches!(e.kind, ModuleErrorKind::Refused(_)),
        "not a trap: {e:?}"
    );
    let msg = e.to_string();
    assert!(
        msg.starts_with("fmi3EnterInitializationMode: WASI path_open of `/resources/out.txt` for writing was refused"),
        "{msg}"
    );
}

#[test]
fn a_resource_the_archive_lacks_is_named() {
    let bytes = repacked(|name, data| match name {
        "resources/table.txt" => Some(("resources/notes.txt".into(), data)),
        _ => Some((name.into(), data)),
    });
    let e = Subsystem::instantiate(Box::new(load(&bytes, &[])), InstantiateOptions::default())
        .err()
        .expect("instantiation fails");
    let msg = e.to_string();
    assert!(msg.contains("fmi3InstantiateCoSimulation"), "{msg}");
    assert!(
        msg.contains(
            "path_open: `resources/table.txt` is not in the .fmu (its resources/ folder has notes.txt)"
        ),
        "{msg}"
    );
    assert!(
        msg.contains("cannot open /resources/table.txt"),
        "the module's own log: {msg}"
    );
    // Without any resources/ folder the module gets no resourcePath (NULL) and says so.
    let bytes =
        repacked(|name, data| (!name.starts_with("resources/")).then(|| (name.into(), data)));
    let e = Subsystem::instantiate(Box::new(load(&bytes, &[])), InstantiateOptions::default())
        .err()
        .expect("instantiation fails");
    assert!(e.to_string().contains("no resourcePath"), "{e}");
}
