//! wasm-bindgen bindings of cosim-core for the page's Web Workers.
use wasm_bindgen::prelude::*;

/// Version of the core, for the page footer.
#[wasm_bindgen(js_name = coreVersion)]
pub fn core_version() -> String {
    env!("CARGO_PKG_VERSION").into()
}
