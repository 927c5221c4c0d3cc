//! Reading scenario JSON: syntax errors with line and column, type errors with the JSON
//! path of the field, and migration of older schema versions.

use super::schema::{Scenario, SCHEMA_VERSION};
use crate::error::ScenarioError;
use alloc::format;
use alloc::string::ToString;

/// Largest accepted scenario document, in bytes (a link or upload beyond this is refused
/// before parsing, so absurd input cannot exhaust memory).
pub const MAX_SCENARIO_BYTES: usize = 4 << 20;

/// Parses a scenario document, migrating older schema versions to [`SCHEMA_VERSION`].
pub fn parse(json: &str) -> Result<Scenario, ScenarioError> {
    if json.len() > MAX_SCENARIO_BYTES {
        return Err(ScenarioError::at(
            "",
            format!(
                "scenario is {} bytes; the limit is {MAX_SCENARIO_BYTES}",
                json.len()
            ),
        ));
    }
    let value: serde_json::Value = serde_json::from_str(json)
        .map_err(|e| ScenarioError::at("", format!("malformed JSON: {e}")))?;
    let version = match value.get("schema_version") {
        Some(v) => v.as_u64().ok_or_else(|| {
            ScenarioError::at(
                "schema_version",
                format!("expected a whole number, got {v}"),
            )
        })?,
        None => {
            return Err(ScenarioError::at(
                "schema_version",
                "missing; this build writes 1",
            ))
        }
    };
    if version == 0 || version > u64::from(SCHEMA_VERSION) {
        return Err(ScenarioError::at(
            "schema_version",
            format!("version {version} is not supported; this build reads 1 to {SCHEMA_VERSION}"),
        ));
    }
    // Version 1 is the first format; later versions add a migration step here.
    let mut de = value;
    migrate(&mut de, version);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let path = if path == "." {
            alloc::string::String::new()
        } else {
            path
        };
        ScenarioError::at(path, e.into_inner().to_string())
    })
}

/// Upgrades a document of `from` to the current schema in place.
///
/// Version 1 is the only version so far, so there is nothing to upgrade yet, and no
/// "version 0" was ever written (0 is refused above). When a change to [`Scenario`] would
/// make old files or shared links fail to parse (a renamed or restructured field; adding
/// an optional field with a serde default needs no new version), the change is:
/// 1. bump [`SCHEMA_VERSION`] to 2 and write the new shape in `schema.rs`;
/// 2. add a step here, on the untyped JSON, before deserialising:
///    `if from < 2 { /* e.g. move doc["master"]["order"] to doc["master"]["extrapolation_order"] */ }`,
///    then set `doc["schema_version"] = 2`; steps chain (`from < 2`, `from < 3`, …) so a
///    version-1 document passes through every later step;
/// 3. keep a hand-written version-1 document as a test fixture that must parse into the
///    same [`Scenario`] as its version-2 rewrite.
///
/// Links (`link.rs`) carry the document's JSON with its `schema_version`, and decoding
/// goes through [`parse`], so links made by older builds open through the same steps.
fn migrate(_doc: &mut serde_json::Value, from: u64) {
    debug_assert!(from <= u64::from(SCHEMA_VERSION));
}

/// The scenario as pretty JSON (the CLI's `preset` output and the page's download).
pub fn to_json(s: &Scenario) -> alloc::string::String {
    // Serialising plain data structures into a String cannot fail.
    serde_json::to_string_pretty(s).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINIMAL: &str = r#"{"schema_version":1,"modules":[],"connections":[],
        "master":{"algorithm":"jacobi","macro_step":0.001},"run":{"stop":1}}"#;

    #[test]
    fn minimal_document_parses_with_defaults() {
        let s = parse(MINIMAL).expect("parses");
        assert_eq!(s.master.extrapolation_order, 0);
        assert!(s.reference);
        assert_eq!(s.run.start, 0.0);
    }

    #[test]
    fn syntax_error_names_line_and_column() {
        let e = parse("{\"schema_version\": 1,\n  \"modules\": [,]}").unwrap_err();
        assert!(e.message.contains("malformed JSON"), "{e}");
        assert!(e.message.contains("line 2"), "{e}");
    }

    #[test]
    fn type_error_names_the_field_path() {
        let doc = MINIMAL.replace("\"macro_step\":0.001", "\"macro_step\":\"fast\"");
        let e = parse(&doc).unwrap_err();
        assert_eq!(e.path, "master.macro_step", "{e}");
        let doc = r#"{"schema_version":1,"modules":[{"name":"a","model":"M","parameters":{"ck":null}}],
            "connections":[],"master":{"algorithm":"jacobi","macro_step":0.001},"run":{"stop":1}}"#;
        let e = parse(doc).unwrap_err();
        assert_eq!(e.path, "modules[0].parameters.ck", "{e}");
    }

    #[test]
    fn unknown_fields_and_versions_are_refused() {
        let e = parse(&MINIMAL.replace("\"run\"", "\"rnu\"")).unwrap_err();
        assert!(e.message.contains("rnu"), "{e}");
        let e =
            parse(&MINIMAL.replace("\"schema_version\":1", "\"schema_version\":99")).unwrap_err();
        assert_eq!(e.path, "schema_version");
    }

    #[test]
    fn round_trip_is_identical() {
        let s = parse(MINIMAL).unwrap();
        assert_eq!(parse(&to_json(&s)).unwrap(), s);
    }

    #[test]
    fn layout_and_variants_round_trip_and_are_omitted_when_empty() {
        assert!(!to_json(&parse(MINIMAL).unwrap()).contains("layout"));
        assert!(!to_json(&parse(MINIMAL).unwrap()).contains("variants"));
        let doc = MINIMAL.replace(
            "\"run\"",
            r#""layout":{"a":[10,20.5]},"variants":[{"label":"order 1","patch":{"master":{"extrapolation_order":1}}}],"run""#,
        );
        let s = parse(&doc).expect("parses");
        assert_eq!(s.layout.get("a"), Some(&[10.0, 20.5]));
        assert_eq!(s.variants[0].label, "order 1");
        assert_eq!(s.variants[0].patch["master"]["extrapolation_order"], 1);
        assert_eq!(parse(&to_json(&s)).unwrap(), s);
        let e = parse(&doc.replace("\"patch\"", "\"ptach\"")).unwrap_err();
        assert!(e.message.contains("ptach"), "{e}");
    }
}
