//! Scenario links for the page: thin bindings over `cosim_core::scenario::{encode_link,
//! decode_link}` (the one implementation, shared with `cosim link`). No encoding logic here.

use crate::error::to_js;
use cosim_core::scenario;
use wasm_bindgen::prelude::*;

/// The link fragment (without `#`) of a scenario document: `s1.` + payload. The document
/// is parsed first, so the link carries its canonical form; an invalid document is an
/// error that names the field, as for a run.
#[wasm_bindgen(js_name = encodeLink)]
pub fn encode_link(scenario_json: &str) -> Result<String, JsError> {
    let s = scenario::parse(scenario_json).map_err(to_js)?;
    scenario::encode_link(&s).map_err(to_js)
}

/// The scenario a link carries, as pretty JSON (what the editor shows). Accepts a whole
/// URL, a fragment with or without `#`, or the bare `s1.…` text; older schema versions
/// are migrated on the way. Errors say what is wrong with the link.
#[wasm_bindgen(js_name = decodeLink)]
pub fn decode_link(link: &str) -> Result<String, JsError> {
    let s = scenario::decode_link(link).map_err(to_js)?;
    Ok(scenario::to_json(&s))
}
