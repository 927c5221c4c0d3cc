//! wasm-bindgen bindings of cosim-core for the page's Web Worker.
//!
//! Bindings only, no numerics: [`simulation::JsSimulation`] wraps the core's `Simulation`
//! (the one stateful object a worker holds), [`scenario`] has the stateless functions
//! (presets, validation, model catalog), [`link`] encodes and decodes shared links, [`ssp`]
//! opens SSP systems, [`engine`] runs binary modules on the browser's own WebAssembly,
//! [`error`] turns core errors and panics into JS errors. Every export returns a `Result` or a plain value; none panics on user input.

pub mod analysis;
pub mod defect_study;
pub mod engine;
pub mod error;
pub mod link;
pub mod models;
pub mod module_alone;
pub mod scenario;
pub mod simulation;
pub mod ssp;

use wasm_bindgen::prelude::*;

/// Version of the core, for the page footer.
#[wasm_bindgen(js_name = coreVersion)]
pub fn core_version() -> String {
    env!("CARGO_PKG_VERSION").into()
}
