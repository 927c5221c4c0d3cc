//! Property-based tests (proptest, modest case counts) of the two readers a `.fmu` goes
//! through before any of its code runs: the zip reader (`Archive::parse`, then every
//! entry read) and the `modelDescription.xml` reader. On arbitrary bytes and on valid
//! inputs with mutated bytes neither may panic; every refusal is a non-empty, bounded message.

use cosim_core::error::MAX_MESSAGE_CHARS;
use cosim_core::fmu::archive::{write_stored, Archive};
use cosim_core::fmu::{model_description, FmuError};
use proptest::prelude::*;

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// A clear refusal: something to read, and not a wall of quoted input.
fn clear(e: &FmuError) -> Result<(), TestCaseError> {
    let m = e.to_string();
    prop_assert!(!m.trim().is_empty(), "empty message from {e:?}");
    prop_assert!(
        m.chars().count() <= MAX_MESSAGE_CHARS + 200,
        "{} characters: {}",
        m.chars().count(),
        &m[..m.char_indices().nth(300).map_or(m.len(), |(i, _)| i)]
    );
    Ok(())
}

/// Parses `bytes` as a `.fmu` and reads every entry and the resources, as loading does.
fn read_archive(bytes: &[u8]) -> Result<(), TestCaseError> {
    match Archive::parse(bytes) {
        Err(e) => clear(&e),
        Ok(archive) => {
            let names: Vec<String> = archive.names().map(str::to_string).collect();
            for name in &names {
                if let Err(e) = archive.read(name) {
                    clear(&e)?;
                }
            }
            if let Err(e) = archive.resources() {
                clear(&e)?;
            }
            Ok(())
        }
    }
}

const XML: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<fmiModelDescription fmiVersion="3.0" modelName="Props" instantiationToken="{t}">
  <CoSimulation modelIdentifier="props" canHandleVariableCommunicationStepSize="true"/>
  <ModelVariables>
    <Float64 name="time" valueReference="0" causality="independent" variability="continuous"/>
    <Float64 name="x" valueReference="1" causality="output" variability="continuous" initial="exact" start="1.5"/>
    <Float64 name="u" valueReference="2" causality="input" variability="continuous" start="0"/>
    <Float64 name="k" valueReference="3" causality="parameter" variability="fixed" start="2"/>
  </ModelVariables>
  <ModelStructure><Output valueReference="1" dependencies="2"/></ModelStructure>
</fmiModelDescription>"#;

/// A valid stored archive of a description and a resource, and the fixture with
/// deflated entries.
fn valid_archives() -> Vec<Vec<u8>> {
    let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/fmus/c_table.fmu");
    vec![
        write_stored(&[
            ("modelDescription.xml", XML.as_bytes()),
            ("binaries/wasm32/props.wasm", b"\0asm\x01\0\0\0"),
            ("resources/table.txt", b"0 1\n1 2\n"),
        ]),
        std::fs::read(fixture).expect("fixture .fmu"),
    ]
}

/// `(position, byte)` pairs; positions are taken modulo the input's length.
fn mutations() -> impl Strategy<Value = Vec<(usize, u8)>> {
    prop::collection::vec((any::<usize>(), any::<u8>()), 1..8)
}

fn mutate(mut bytes: Vec<u8>, edits: &[(usize, u8)]) -> Vec<u8> {
    for &(at, b) in edits {
        let n = bytes.len();
        bytes[at % n] = b;
    }
    bytes
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn archive_reader_never_panics_on_arbitrary_bytes(
        bytes in prop::collection::vec(any::<u8>(), 0..512),
    ) {
        read_archive(&bytes)?;
    }

    #[test]
    fn archive_reader_never_panics_on_arbitrary_bytes_after_a_zip_signature(
        tail in prop::collection::vec(any::<u8>(), 0..512),
    ) {
        // Past the first signature check, into the local and central headers.
        let mut bytes = b"PK\x03\x04".to_vec();
        bytes.extend_from_slice(&tail);
        bytes.extend_from_slice(b"PK\x05\x06");
        bytes.extend_from_slice(&tail[..tail.len().min(18)]);
        read_archive(&bytes)?;
    }

    #[test]
    fn archive_reader_never_panics_on_mutated_archives(
        which in 0usize..2,
        edits in mutations(),
        cut in any::<usize>(),
        truncate in any::<bool>(),
    ) {
        let mut bytes = mutate(valid_archives().swap_remove(which), &edits);
        if truncate {
            bytes.truncate(cut % bytes.len());
        }
        read_archive(&bytes)?;
    }

    #[test]
    fn xml_reader_never_panics_on_arbitrary_text(text in "\\PC{0,400}") {
        if let Err(e) = model_description::parse(&text) {
            clear(&e)?;
        }
    }

    #[test]
    fn xml_reader_never_panics_on_arbitrary_markup(
        text in "(<[a-zA-Z]{0,12}( [a-zA-Z]{1,8}=\"[^\"]{0,12}\")*/?>|</[a-zA-Z]{0,12}>|[^<]{0,8}){0,40}",
    ) {
        if let Err(e) = model_description::parse(&text) {
            clear(&e)?;
        }
    }

    #[test]
    fn xml_reader_never_panics_on_mutated_descriptions(
        edits in prop::collection::vec((any::<usize>(), "\\PC{0,6}"), 1..6),
        cut in any::<usize>(),
        truncate in any::<bool>(),
    ) {
        // Edits replace one character with a short string (quotes, brackets, numbers ...).
        let mut chars: Vec<String> = XML.chars().map(String::from).collect();
        for (at, s) in &edits {
            let n = chars.len();
            chars[at % n] = s.clone();
        }
        let mut text: String = chars.concat();
        if truncate {
            let keep = cut % (text.chars().count() + 1);
            text = text.chars().take(keep).collect();
        }
        if let Err(e) = model_description::parse(&text) {
            clear(&e)?;
        }
    }
}

#[test]
fn the_unmutated_inputs_are_accepted() {
    // The properties above mutate inputs that parse; a reader that refused everything
    // would pass them vacuously.
    for bytes in valid_archives() {
        let archive = Archive::parse(&bytes).expect("valid archive");
        let xml = archive
            .read("modelDescription.xml")
            .expect("readable")
            .expect("present");
        model_description::parse(core::str::from_utf8(&xml).unwrap()).expect("valid description");
    }
    model_description::parse(XML).expect("valid description");
}
