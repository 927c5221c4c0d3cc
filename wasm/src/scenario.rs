//! Stateless scenario functions for the page: the presets, validation without running,
//! and the model catalog the editor builds its parameter fields from.

use crate::error::to_js;
use cosim_core::scenario;
use serde::Serialize;
use wasm_bindgen::prelude::*;

/// One preset as the page sees it.
#[derive(Serialize)]
struct JsPreset {
    id: &'static str,
    title: String,
    /// Group in the picker.
    topic: &'static str,
    /// What to try next (plain text).
    #[serde(rename = "tryNext")]
    try_next: String,
    /// The scenario document, pretty JSON (exactly what `cosim preset ID` prints).
    scenario: String,
}

/// The built-in presets, first is the default: `[{id, title, topic, tryNext, scenario}]`.
#[wasm_bindgen]
pub fn presets() -> Result<JsValue, JsError> {
    let list: Vec<JsPreset> = scenario::presets()
        .into_iter()
        .map(|p| JsPreset {
            id: p.id,
            title: p.scenario.title.clone(),
            topic: p.topic,
            try_next: p.try_next,
            scenario: scenario::to_json(&p.scenario),
        })
        .collect();
    serde_wasm_bindgen::to_value(&list).map_err(to_js)
}

/// Parses and validates a scenario document without running it; the error names the field.
#[wasm_bindgen]
pub fn validate(scenario_json: &str) -> Result<(), JsError> {
    validate_for_page(scenario_json).map(|_| ()).map_err(to_js)
}

/// Parses and validates as the page runs it: a `chain` above the page's limit is refused
/// with the CLI command that runs it, before anything grows with the chain.
pub(crate) fn validate_for_page(
    scenario_json: &str,
) -> Result<scenario::ValidatedScenario, cosim_core::error::ScenarioError> {
    let parsed = scenario::parse(scenario_json)?;
    if let Some(chain) = &parsed.chain {
        chain.check_for_page()?;
    }
    parsed.validate_within(&cosim_core::limits::Limits::PAGE)
}
