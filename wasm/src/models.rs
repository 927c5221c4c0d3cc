//! The model catalog for the page's editor: every built-in model with its parameters and
//! start values (name, unit, default, description) and the solvers it allows.

use crate::error::to_js;
use cosim_core::models;
use cosim_core::module::Variable;
use cosim_core::scenario::SolverSpec;
use serde::Serialize;
use wasm_bindgen::prelude::*;

/// One model as the editor sees it.
#[derive(Serialize)]
struct JsModel<'a> {
    id: &'static str,
    summary: &'static str,
    /// `{name, valueRef, causality, variability, start, unit, description}` each.
    parameters: &'a [Variable],
    /// `{method, ...suggested settings}` each, as in the scenario JSON.
    solvers: &'a [SolverSpec],
}

/// All built-in models: `[{id, summary, parameters, solvers}]`.
#[wasm_bindgen]
pub fn catalog() -> Result<JsValue, JsError> {
    let list = models::catalog();
    let view: Vec<JsModel<'_>> = list
        .iter()
        .map(|m| JsModel {
            id: m.id,
            summary: m.summary,
            parameters: &m.parameters,
            solvers: &m.solvers,
        })
        .collect();
    // Plain objects (not Maps) so the page can read fields directly.
    let serializer = serde_wasm_bindgen::Serializer::json_compatible();
    view.serialize(&serializer).map_err(to_js)
}
