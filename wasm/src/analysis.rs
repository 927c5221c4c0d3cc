//! Propagation-matrix analysis for the page's analysis workers (seed 000, Figs. 4–8).
//!
//! Bindings only: [`JsParameterMap`] wraps the core's `ParameterMap` (one per worker, rows
//! computed on request so the page can spread tiles over workers and draw each as it
//! arrives); [`sweep`], [`stability_crossings`], [`convergence`], [`stability`] and
//! [`analysis_parameters`] are stateless. Values cross as `Float64Array`s, statuses as
//! `Uint8Array`s with the core's codes (0 ok, 1 ill-conditioned, 2 diverged, 3 failed);
//! the text of a failure is kept so the read-out can name it (no silent NaN).

use crate::error::to_js;
use cosim_core::analysis::convergence::convergence_study;
use cosim_core::analysis::sweep::{self, CellStatus, LinearAnalysis, MapMetric, ParameterMap};
use cosim_core::analysis::{spectrum, PropagationMatrix};
use cosim_core::master::Scheme;
use cosim_core::module::Causality;
use cosim_core::scenario::{self, AxisSpec};
use cosim_core::simulation;
use js_sys::{Array, Float64Array, Object, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;

fn linear_analysis(scenario_json: &str) -> Result<LinearAnalysis, JsError> {
    let v = scenario::parse(scenario_json)
        .and_then(|s| s.validate_for_analysis_within(&cosim_core::limits::Limits::PAGE))
        .map_err(to_js)?;
    LinearAnalysis::new(&v).map_err(to_js)
}

fn axis(json: &str, path: &str) -> Result<AxisSpec, JsError> {
    serde_json::from_str(json).map_err(|e| JsError::new(&format!("{path}: {e}")))
}

/// `rho`, `eg` or `el` (as `cosim map --metric`).
fn metric(name: &str) -> Result<MapMetric, JsError> {
    match name {
        "rho" => Ok(MapMetric::SpectralRadius),
        "eg" => Ok(MapMetric::GlobalError),
        "el" => Ok(MapMetric::LocalError),
        other => Err(JsError::new(&format!(
            "metric `{other}`: expected rho, eg or el"
        ))),
    }
}

fn set(obj: &Object, key: &str, value: &JsValue) {
    // Reflect::set on a plain object cannot fail.
    let _ = Reflect::set(obj, &JsValue::from_str(key), value);
}

/// Failure text of a status, `null` unless it failed.
fn failure_text(s: &CellStatus) -> JsValue {
    match s {
        CellStatus::Failed(e) => JsValue::from_str(&e.to_string()),
        _ => JsValue::NULL,
    }
}

/// `{values: Float64Array, status: Uint8Array, failures: Array<string|null>}` of cells.
fn cells_object<'a>(
    values: &[f64],
    statuses: impl Iterator<Item = &'a CellStatus> + Clone,
) -> Object {
    let out = Object::new();
    set(&out, "values", &Float64Array::from(values).into());
    let codes: Vec<u8> = statuses.clone().map(CellStatus::code).collect();
    set(&out, "status", &Uint8Array::from(&codes[..]).into());
    let failures = Array::new();
    let any_failed = codes.contains(&3);
    if any_failed {
        for s in statuses {
            failures.push(&failure_text(s));
        }
    }
    set(&out, "failures", &failures.into());
    out
}

/// A metric over two parameters, computed in row tiles.
#[wasm_bindgen]
pub struct JsParameterMap {
    map: ParameterMap,
}

#[wasm_bindgen]
impl JsParameterMap {
    /// `x_json`/`y_json` are `AxisSpec` documents (`{parameter, from, to, points, log}`);
    /// `metric` is `rho`, `eg` or `el`. Errors name the field (`analysis.x.from: …`).
    #[wasm_bindgen(constructor)]
    pub fn new(
        scenario_json: &str,
        x_json: &str,
        y_json: &str,
        metric_name: &str,
    ) -> Result<JsParameterMap, JsError> {
        let a = linear_analysis(scenario_json)?;
        let (x, y) = (axis(x_json, "analysis.x")?, axis(y_json, "analysis.y")?);
        let map = ParameterMap::new(a, &x, &y, metric(metric_name)?).map_err(to_js)?;
        Ok(JsParameterMap { map })
    }

    /// x sample values.
    #[wasm_bindgen(js_name = xValues)]
    pub fn x_values(&self) -> Float64Array {
        Float64Array::from(self.map.x_values())
    }

    /// y sample values.
    #[wasm_bindgen(js_name = yValues)]
    pub fn y_values(&self) -> Float64Array {
        Float64Array::from(self.map.y_values())
    }

    /// Rows `start..end` (clamped): `{values, status, failures}`, row-major, `nx` per row.
    #[wasm_bindgen(js_name = computeRows)]
    pub fn compute_rows(&self, start: u32, end: u32) -> Object {
        let tile = self.map.compute_rows(start..end);
        cells_object(&tile.values, tile.status.iter())
    }
}

/// The metric along one axis: `{x, values, status, failures}` (Figs. 5 and 7).
#[wasm_bindgen]
pub fn sweep(scenario_json: &str, axis_json: &str, metric_name: &str) -> Result<Object, JsError> {
    let a = linear_analysis(scenario_json)?;
    let spec = axis(axis_json, "analysis.x")?;
    let points = sweep::sweep(&a, &spec, metric(metric_name)?).map_err(to_js)?;
    let xs: Vec<f64> = points.iter().map(|p| p.0).collect();
    let values: Vec<f64> = points.iter().map(|p| p.1.value).collect();
    let out = cells_object(&values, points.iter().map(|p| &p.1.status));
    set(&out, "x", &Float64Array::from(&xs[..]).into());
    Ok(out)
}

/// Every crossing of ρ = 1 + tol along the axis: `[{value, stableBelow}]` (Table 1).
#[wasm_bindgen(js_name = stabilityCrossings)]
pub fn stability_crossings(scenario_json: &str, axis_json: &str) -> Result<Array, JsError> {
    let a = linear_analysis(scenario_json)?;
    let spec = axis(axis_json, "analysis.x")?;
    let out = Array::new();
    for c in sweep::stability_crossings(&a, &spec).map_err(to_js)? {
        let o = Object::new();
        set(&o, "value", &c.value.into());
        set(&o, "stableBelow", &c.stable_below.into());
        out.push(&o);
    }
    Ok(out)
}

/// Local error against the macro-step for `orders`, plain and (Jacobi) with correction α
/// (the scenario's α, else 1): `[{order, corrected, macroSteps, localError, rho, status, slope}]`.
#[wasm_bindgen]
pub fn convergence(
    scenario_json: &str,
    macro_steps: &[f64],
    orders: &[u32],
) -> Result<Array, JsError> {
    let a = linear_analysis(scenario_json)?;
    if let Some(bad) = macro_steps.iter().find(|h| !(h.is_finite() && **h > 0.0)) {
        return Err(JsError::new(&format!(
            "analysis.macro_steps: {bad} is not a positive number of seconds"
        )));
    }
    if let Some(bad) = orders.iter().find(|o| **o > 4) {
        return Err(JsError::new(&format!(
            "analysis.orders: {bad} is above the highest order 4"
        )));
    }
    let alpha = match a.method().scheme {
        Scheme::Jacobi => Some(a.method().correction.unwrap_or(1.0)),
        Scheme::GaussSeidel(_) => None,
    };
    cosim_core::analysis::convergence::check_budget(&a, macro_steps, orders, alpha)
        .map_err(to_js)?;
    let out = Array::new();
    for c in convergence_study(&a, macro_steps, orders, alpha) {
        let o = Object::new();
        set(&o, "order", &c.order.into());
        set(&o, "corrected", &c.corrected.into());
        let col = |f: fn(&cosim_core::analysis::convergence::ConvergencePoint) -> f64| {
            Float64Array::from(&c.points.iter().map(f).collect::<Vec<f64>>()[..])
        };
        set(&o, "macroSteps", &col(|p| p.macro_step).into());
        set(&o, "localError", &col(|p| p.local_error).into());
        set(&o, "rho", &col(|p| p.spectral_radius).into());
        let codes: Vec<u8> = c.points.iter().map(|p| p.status.code()).collect();
        set(&o, "status", &Uint8Array::from(&codes[..]).into());
        set(&o, "slope", &c.slope.map_or(JsValue::NULL, JsValue::from));
        out.push(&o);
    }
    Ok(out)
}

/// ρ and eigenvalues of the scenario's own propagation matrix:
/// `{radius, re: Float64Array, im: Float64Array, illConditioned, dim}`.
#[wasm_bindgen]
pub fn stability(scenario_json: &str) -> Result<Object, JsError> {
    let a = linear_analysis(scenario_json)?;
    let pm = PropagationMatrix::build(a.blocks(), a.coupling(), a.method(), a.macro_step())
        .map_err(to_js)?;
    let s = spectrum(pm.phi()).ok_or_else(|| {
        JsError::new(
            "the eigenvalues of Φ could not be computed (non-finite entries or no convergence)",
        )
    })?;
    let o = Object::new();
    set(&o, "radius", &s.radius.into());
    set(&o, "illConditioned", &s.is_ill_conditioned().into());
    set(&o, "dim", &(pm.layout().dim() as u32).into());
    let re: Vec<f64> = s.eigenvalues.iter().map(|l| l.re).collect();
    let im: Vec<f64> = s.eigenvalues.iter().map(|l| l.im).collect();
    set(&o, "re", &Float64Array::from(&re[..]).into());
    set(&o, "im", &Float64Array::from(&im[..]).into());
    Ok(o)
}

/// What an axis can sweep: `[{name, unit, value}]` with every module parameter
/// (`module.param`, its unit and current value), then `master.macro_step`.
#[wasm_bindgen(js_name = analysisParameters)]
pub fn analysis_parameters(scenario_json: &str) -> Result<Array, JsError> {
    let s = scenario::parse(scenario_json).map_err(to_js)?;
    let out = Array::new();
    let push = |name: String, unit: &str, value: Option<f64>| {
        let o = Object::new();
        set(&o, "name", &JsValue::from_str(&name));
        set(&o, "unit", &JsValue::from_str(unit));
        set(&o, "value", &value.map_or(JsValue::NULL, JsValue::from));
        out.push(&o);
    };
    for m in &s.modules {
        let Ok(module) = simulation::build_module(m) else {
            continue;
        };
        for v in module
            .description()
            .variables
            .iter()
            .filter(|v| v.causality == Causality::Parameter)
        {
            let value = m.parameters.get(&v.name).copied().or(v.start);
            push(format!("{}.{}", m.name, v.name), &v.unit, value);
        }
    }
    push("master.macro_step".into(), "s", Some(s.master.macro_step));
    Ok(out)
}
