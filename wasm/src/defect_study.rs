//! The sweeps E3–E6 of seed 003 on the rotational two-mass oscillator for the page's study
//! view (docs/methods.md §15, "Experiments"): a thin wrapper over
//! `cosim_core::analysis::defect_study` (the runs of `cosim defects`) that returns each
//! run's RMS defects, errors and mean step with the fitted log–log slopes per order.

use crate::error::to_js;
use cosim_core::analysis::defect_study::{axis_value, slopes, sweep, Experiment};
use cosim_core::master::Initialisation;
use cosim_core::models::rotational_oscillator::Method;
use serde::Serialize;
use wasm_bindgen::prelude::*;

/// Fitting range of h (E3–E5), as `cosim defects` uses by default: the asymptotic range.
const FIT_H: (f64, f64) = (1e-2, 0.16);
/// Fitting range of tol (E6), as `cosim defects` uses by default: the whole sweep.
const FIT_TOL: (f64, f64) = (1e-3, 1.0);

/// One run of the sweep. Ports: outputs `[t2o.omega, o2t.tau]`, inputs `[t2o.tau, o2t.omega_in]`.
#[derive(Serialize)]
struct Run {
    order: usize,
    x: f64,
    steps: usize,
    mean_h: f64,
    output_defect: Vec<f64>,
    connection_defect: Vec<f64>,
    error: Vec<f64>,
}

/// Slopes of one order (null where the series is at the rounding floor).
#[derive(Serialize)]
struct OrderSlopes {
    order: usize,
    output_defect: Vec<Option<f64>>,
    connection_defect: Vec<Option<f64>>,
    error: Vec<Option<f64>>,
    mean_h: Option<f64>,
}

#[derive(Serialize)]
struct Study {
    experiment: &'static str,
    /// `h` (fixed steps) or `tol` (defect control).
    axis: &'static str,
    fit: (f64, f64),
    outputs: [&'static str; 2],
    inputs: [&'static str; 2],
    runs: Vec<Run>,
    slopes: Vec<OrderSlopes>,
}

/// Runs sweep `experiment` (`E3`…`E6`) for orders 0–2 with `slaves` (`euler` | `exact`)
/// and `initialisation` (`consistent` | `zero`): `{experiment, axis, fit, outputs, inputs,
/// runs: [{order, x, steps, mean_h, output_defect, connection_defect, error}], slopes:
/// [{order, output_defect, connection_defect, error, mean_h}]}`.
#[wasm_bindgen(js_name = defectStudy)]
pub fn defect_study(
    experiment: &str,
    slaves: &str,
    initialisation: &str,
) -> Result<JsValue, JsError> {
    let e = Experiment::parse(experiment)
        .filter(|e| e.is_sweep())
        .ok_or_else(|| {
            JsError::new(&format!(
                "experiment: `{experiment}` is not E3, E4, E5 or E6"
            ))
        })?;
    let slaves = match slaves {
        "euler" => Method::Euler,
        "exact" => Method::Exact,
        v => {
            return Err(JsError::new(&format!(
                "slaves: `{v}` is not euler or exact"
            )))
        }
    };
    let init = match initialisation {
        "consistent" => Initialisation::Consistent,
        "zero" => Initialisation::ZeroDerivatives,
        v => {
            return Err(JsError::new(&format!(
                "initialisation: `{v}` is not consistent or zero"
            )))
        }
    };
    let results = sweep(e, slaves, init, &[0, 1, 2], None).map_err(to_js)?;
    let fit = if e == Experiment::E6 { FIT_TOL } else { FIT_H };
    let runs = results
        .iter()
        .map(|r| Run {
            order: if e == Experiment::E5 {
                r.case.input_order
            } else {
                r.case.output_order
            },
            x: axis_value(r),
            steps: r.steps,
            mean_h: r.mean_h,
            output_defect: r.output_defect.clone(),
            connection_defect: r.connection_defect.clone(),
            error: r.error.clone(),
        })
        .collect();
    let slopes = slopes(e, &results, fit)
        .into_iter()
        .map(|s| OrderSlopes {
            order: s.order,
            output_defect: s.output_defect,
            connection_defect: s.connection_defect,
            error: s.error,
            mean_h: s.mean_h,
        })
        .collect();
    let study = Study {
        experiment: e.id(),
        axis: if e == Experiment::E6 { "tol" } else { "h" },
        fit,
        outputs: ["t2o.omega", "o2t.tau"],
        inputs: ["t2o.tau", "o2t.omega_in"],
        runs,
        slopes,
    };
    let serializer = serde_wasm_bindgen::Serializer::json_compatible();
    study.serialize(&serializer).map_err(to_js)
}
