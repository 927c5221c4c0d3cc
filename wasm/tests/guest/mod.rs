//! What the browser-engine tests share: a test module's instance in the browser's engine
//! and its exported functions.

use cosim_core::fmu::sandbox::{Export, ExportFn, GuestInstance, Sandbox};
use cosim_core::fmu::wasi::WasiHost;
use cosim_core::fmu::{ResourceTree, RuntimeLimits};
use cosim_wasm::engine::BrowserSandbox;
use std::collections::BTreeMap;

/// An instance of the module `wat` in the browser's engine, with an empty WASI host.
pub fn instance(wat: &str) -> Box<dyn GuestInstance> {
    let wasm = wat::parse_str(wat).expect("the test module parses");
    let host = WasiHost::new(1024, ResourceTree::new(BTreeMap::new(), false));
    match BrowserSandbox.instantiate(&wasm, host, &RuntimeLimits::default()) {
        Ok(g) => g,
        Err(e) => panic!("instantiate: {e}"),
    }
}

/// The exported function `name`.
pub fn func(g: &dyn GuestInstance, name: &str) -> ExportFn {
    match g.export(name) {
        Export::Function(f, _) => f,
        other => panic!("{name}: {other:?}"),
    }
}
