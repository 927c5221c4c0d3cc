//! [`JsModuleAlone`]: one module of a scenario stepped without a master
//! ([`cosim_core::simulation::ModuleAlone`]), for `www/bench.js` to time a binary module's
//! engine apart from the master (docs/benchmarks.md).

use crate::error::to_js_with_kind;
use crate::scenario::validate_for_page;
use cosim_core::simulation::ModuleAlone;
use wasm_bindgen::prelude::*;

/// The scenario's module, instantiated and initialised, stepped by [`JsModuleAlone::advance`].
#[wasm_bindgen]
pub struct JsModuleAlone(ModuleAlone);

#[wasm_bindgen]
impl JsModuleAlone {
    /// Module `name` of `scenario_json`, its inputs held at their start values.
    #[wasm_bindgen(constructor)]
    pub fn new(scenario_json: &str, name: &str) -> Result<JsModuleAlone, JsValue> {
        let validated = validate_for_page(scenario_json).map_err(to_js_with_kind)?;
        let alone = ModuleAlone::new(&validated, name).map_err(to_js_with_kind)?;
        Ok(JsModuleAlone(alone))
    }

    /// `steps` more macro-steps: set inputs, `do_step`, get outputs.
    pub fn advance(&mut self, steps: u32) -> Result<(), JsValue> {
        self.0.advance(steps).map_err(to_js_with_kind)
    }

    /// Macro-steps taken.
    #[wasm_bindgen(getter, js_name = stepsDone)]
    pub fn steps_done(&self) -> u32 {
        self.0.steps_done()
    }

    /// The Float64 outputs after the last step.
    pub fn outputs(&self) -> Vec<f64> {
        self.0.outputs().to_vec()
    }
}
