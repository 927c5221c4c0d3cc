//! The model catalog for the page's editor: every built-in model with its parameters and
//! start values (name, unit, default, description) and the solvers it allows; and the
//! ports of a scenario's modules for the page's system diagram (with a binary module's
//! declared parameters for the editor's typed fields).

use crate::error::to_js;
use cosim_core::models;
use cosim_core::module::{Causality, Variable};
use cosim_core::scenario;
use cosim_core::scenario::SolverSpec;
use cosim_core::simulation::build_module;
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

/// One module's ports for the diagram, or why it could not be built.
#[derive(Serialize)]
struct JsPorts<'a> {
    name: &'a str,
    model: &'a str,
    /// `{name, unit, description, ...}` of each input, in the module's order.
    inputs: Vec<Variable>,
    /// The same for each output.
    outputs: Vec<Variable>,
    /// The module's own error (unknown model, bad equation source, archive not loaded).
    error: Option<String>,
    /// A binary module's settable parameters with their declared FMI types, shapes and
    /// enumeration items (the editor's typed fields); absent for built-in models.
    #[serde(skip_serializing_if = "Option::is_none")]
    parameters: Option<Vec<cosim_core::fmu::parameter_list::ParameterInfo>>,
}

/// The inputs and outputs of every module of a scenario, built as a run would build them:
/// `[{name, model, inputs, outputs, error}]`. Only the document must parse; a scenario
/// that does not validate yet (an unconnected input) still has its ports listed.
#[wasm_bindgen(js_name = modulePorts)]
pub fn module_ports(scenario_json: &str) -> Result<JsValue, JsError> {
    let doc = scenario::parse(scenario_json).map_err(to_js)?;
    let list: Vec<JsPorts<'_>> = doc
        .modules
        .iter()
        .map(|spec| {
            let (inputs, outputs, error) = match build_module(spec) {
                Ok(m) => {
                    let of = |c: Causality| -> Vec<Variable> {
                        m.description().with_causality(c).cloned().collect()
                    };
                    (of(Causality::Input), of(Causality::Output), None)
                }
                Err(e) => (Vec::new(), Vec::new(), Some(e.to_string())),
            };
            JsPorts {
                name: &spec.name,
                model: &spec.model,
                inputs,
                outputs,
                error,
                parameters: scenario::declared_parameters(spec),
            }
        })
        .collect();
    let serializer = serde_wasm_bindgen::Serializer::json_compatible();
    list.serialize(&serializer).map_err(to_js)
}
