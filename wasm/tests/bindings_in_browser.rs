//! The worker's API (`JsSimulation`) in headless Chromium: the columns it hands to JS are
//! the core's numbers bit for bit, in the documented layout (time, outputs, references),
//! running in chunks as the worker does changes nothing, a bad scenario becomes a JS
//! error naming the field (kind `scenario`) instead of a panic, and a run that fails midway
//! is a `runtime` error after which the rows up to the failure can still be read.
//! Run by `cargo xtask test` (stage "wasm browser tests"); native builds skip this file.
#![cfg(target_arch = "wasm32")]

use cosim_core::scenario;
use cosim_core::simulation::Simulation;
use cosim_wasm::simulation::JsSimulation;
use js_sys::{Array, Float64Array};
use wasm_bindgen::JsValue;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn preset_json() -> String {
    scenario::to_json(&scenario::preset("two-mass-oscillator").expect("the preset exists"))
}

/// The `kind` property the page reads off an error.
fn kind_of(err: &JsValue) -> Option<String> {
    js_sys::Reflect::get(err, &JsValue::from_str("kind"))
        .ok()
        .and_then(|k| k.as_string())
}

fn column(cols: &Array, i: u32) -> Vec<f64> {
    Float64Array::from(cols.get(i)).to_vec()
}

#[wasm_bindgen_test]
fn chunked_columns_equal_the_cores_run() {
    let json = preset_json();
    let mut js = JsSimulation::new(&json)
        .map_err(JsValue::from)
        .expect("the preset is valid");
    // The worker advances in chunks and takes the new rows after each one.
    let mut taken: Vec<Vec<f64>> = Vec::new();
    loop {
        let done = js
            .advance(97)
            .map_err(JsValue::from)
            .expect("the preset runs");
        let chunk = js.take_columns();
        taken.resize(chunk.length() as usize, Vec::new());
        for (i, col) in taken.iter_mut().enumerate() {
            col.extend(column(&chunk, i as u32));
        }
        if done {
            break;
        }
    }
    assert_eq!(js.steps_done(), js.total_steps());

    let validated = scenario::parse(&json)
        .and_then(|s| s.validate())
        .expect("the preset is valid");
    let mut sim = Simulation::new(&validated).expect("the preset instantiates");
    sim.run_to_end().expect("the preset runs");
    let r = sim.result();
    let references: Vec<&Vec<f64>> = r
        .signals
        .iter()
        .filter_map(|s| s.reference.as_ref())
        .collect();

    let all = js.columns();
    assert_eq!(
        all.length() as usize,
        1 + r.signals.len() + references.len()
    );
    assert_eq!(taken.len(), all.length() as usize);
    assert_eq!(column(&all, 0), r.time);
    assert_eq!(taken[0], r.time);
    for (j, s) in r.signals.iter().enumerate() {
        assert_eq!(column(&all, 1 + j as u32), s.cosim, "{}", s.name);
        assert_eq!(taken[1 + j], s.cosim, "{} (chunked)", s.name);
    }
    for (k, reference) in references.iter().enumerate() {
        let i = 1 + r.signals.len() + k;
        assert_eq!(&column(&all, i as u32), *reference);
    }
    let names: Vec<String> = r.signals.iter().map(|s| s.name.clone()).collect();
    assert_eq!(js.signal_names(), names);
    assert_eq!(js.to_csv(), sim.to_csv());
    assert_eq!(js.global_nrmse(), sim.global_nrmse());
    // Everything was taken already: the next take is empty, not a repeat.
    let again = js.take_columns();
    assert!((0..again.length()).all(|i| column(&again, i).is_empty()));
}

#[wasm_bindgen_test]
fn invalid_scenario_is_a_js_error_naming_the_field() {
    let mut doc: serde_json::Value =
        serde_json::from_str(&preset_json()).expect("preset JSON parses");
    doc["master"]["macro_step"] = serde_json::json!(-1.0);
    let err = match JsSimulation::new(&doc.to_string()) {
        Ok(_) => panic!("a negative macro-step was accepted"),
        Err(e) => js_sys::Error::from(JsValue::from(e)),
    };
    let message = String::from(err.message());
    assert!(
        message.contains("macro_step"),
        "message does not name the field: {message}"
    );
    assert_eq!(kind_of(&err).as_deref(), Some("scenario"));
    let err = JsSimulation::new("{ not json")
        .err()
        .map(|e| js_sys::Error::from(JsValue::from(e)));
    let err = err.expect("broken JSON was accepted");
    assert_eq!(kind_of(&err).as_deref(), Some("scenario"));
}

#[wasm_bindgen_test]
fn a_run_that_fails_midway_is_a_runtime_error_and_keeps_its_rows() {
    // The nonlinear ZOH preset grows by about 15 decades every 0.3 s; run long enough,
    // mass2's solver meets a non-finite state at t = 6.263 s.
    let mut s = scenario::preset("nonlinear-zoh").expect("the preset exists");
    s.run.stop = 10.0;
    let json = scenario::to_json(&s);
    let mut js = JsSimulation::new(&json)
        .map_err(JsValue::from)
        .expect("the scenario is valid");
    let err = loop {
        match js.advance(1000) {
            Ok(true) => panic!("the run reached its stop time without failing"),
            Ok(false) => continue,
            Err(e) => break js_sys::Error::from(e),
        }
    };
    assert_eq!(kind_of(&err).as_deref(), Some("runtime"));

    // The same scenario natively fails with the same message at the same point.
    let validated = scenario::parse(&json)
        .and_then(|s| s.validate())
        .expect("the scenario is valid");
    let mut sim = Simulation::new(&validated).expect("the scenario instantiates");
    let native = sim.run_to_end().expect_err("the native run fails too");
    assert_eq!(String::from(err.message()), native.to_string());
    assert_eq!(js.steps_done(), sim.steps_done());
    assert!(js.steps_done() > 0 && js.steps_done() < js.total_steps());
    assert_eq!(js.time(), sim.result().time.last().copied());
    assert_eq!(column(&js.columns(), 0), sim.result().time);
    assert_eq!(js.rejected(), 0);
}
