//! The time grid and the bindings' basics, checked inside headless Chromium.
//!
//! Run by `cargo xtask test` (stage "wasm browser tests") through wasm-bindgen-test-runner.
//! Native builds skip this file: it only means something in a browser.
#![cfg(target_arch = "wasm32")]

use cosim_core::time::FixedGrid;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// The page footer shows the version compiled into the wasm package.
#[wasm_bindgen_test]
fn core_version_is_the_crate_version() {
    assert_eq!(cosim_wasm::core_version(), env!("CARGO_PKG_VERSION"));
}

/// Grid times are `t_start + n h` from the integer index, in wasm's f64 exactly as natively:
/// 0.1 s at 1e-4 s is 1000 steps, and step 1000 lands on 0.1 up to the one rounding of `n h`.
#[wasm_bindgen_test]
fn grid_time_is_computed_from_the_step_index() {
    let g = FixedGrid::covering(0.0, 0.1, 1e-4);
    assert_eq!(g.steps, 1000);
    assert_eq!(g.time(0), 0.0);
    assert_eq!(g.time(1000), 1000.0 * 1e-4);
    assert_eq!(g.time(1000).to_bits(), 0.1f64.to_bits());
    let g = FixedGrid::covering(1.0, 2.0, 0.25);
    assert_eq!(g.time(3), 1.75);
}
