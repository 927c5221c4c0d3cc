//! SSP systems for the page: a thin binding over `cosim_core::ssp::import` (the one
//! implementation, shared with `cosim ssp import`). No mapping logic here.

use crate::error::to_js;
use cosim_core::{scenario, ssp};
use wasm_bindgen::prelude::*;

/// The scenario of an `.ssp` archive (its bytes), as pretty JSON (what the editor shows).
/// Errors name the file in the archive and the element's path.
#[wasm_bindgen(js_name = importSsp)]
pub fn import_ssp(bytes: &[u8]) -> Result<String, JsError> {
    let s = ssp::import(bytes).map_err(to_js)?;
    Ok(scenario::to_json(&s))
}
