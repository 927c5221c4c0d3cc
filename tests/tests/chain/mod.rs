//! The substitute chain of seed 002's Examples 2 and 3 (docs/methods.md §14.14): 20 masses
//! in 4 segments of 5 on a tight BDF, 50 µs from the first impulses, built as a scenario and
//! run error-controlled, reporting macro-steps, rejections, mean H and the global error.
//! Shared by the test files that include it as `mod chain;`.

// Each including test file uses a part of it.
#![allow(dead_code)]

use cosim_core::scenario;
use cosim_core::simulation::Simulation;
use serde_json::{json, Value};

/// Segments of the substitute chain.
pub const SEGMENTS: usize = 4;
/// Masses per segment.
pub const MASSES: usize = 5;
/// Horizon in s: the first impulses and the chain's response to them.
pub const STOP: f64 = 5e-5;
/// Relative tolerance of the segments' BDF (absolute: 1e-3 times it) for the claims:
/// far tighter than the co-simulation (the estimators assume exact subsystems); at the
/// default rtol 1e-6 the segments' own error floors the global error.
pub const SEGMENT_RTOL: f64 = 1e-9;
/// The segments' tolerance for the tolerance study down to co-simulation rtol 1e-5: at
/// 1e-9 the segments' error (about 1e-6, growing with the macro-step count since each step
/// restarts the BDF) floors ExSLocal's error at rtol 1e-5 (measured 1.3e-6 against 3.9e-7
/// at 1e-11) and lifts ImSLocal's above its 1e-4 value (3.4e-7 against 2.9e-7).
pub const TIGHT_SEGMENT_RTOL: f64 = 1e-11;

/// Order setting of one run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Order {
    Fixed(u32),
    Variable,
}

/// What one controlled run gave: `None` when it ended early (H below H_min).
#[derive(Clone, Copy, Debug)]
pub struct Outcome {
    pub accepted: u32,
    pub rejected: u32,
    /// `STOP / accepted`.
    pub mean_h: f64,
    /// Global NRMSE (docs/methods.md §10.2) over every output (the coupling bodies'
    /// positions and velocities and the cut forces) against the whole chain on a BDF.
    pub error: f64,
}

/// The chain scenario: damping `d` in every spring-damper and cut, `estimator` with the
/// tolerances of seed 002's Example 3 (`atol_x = 1e-3·rtol`, `atol_v = rtol`,
/// `atol_λ = 1e2·rtol`, safety factor 6, r 0.5..2).
pub fn scenario_json(estimator: &str, d: f64, rtol: f64, order: Order, segment_rtol: f64) -> Value {
    let total = SEGMENTS * MASSES;
    let mut modules = Vec::new();
    let mut connections = Vec::new();
    for s in 0..SEGMENTS {
        modules.push(json!({
            "name": format!("seg{}", s + 1), "model": "MassChain.Segment",
            "parameters": {"n": MASSES, "first": s * MASSES + 1, "total": total, "seed": 1, "d": d},
            "solver": {"method": "bdf", "rtol": segment_rtol, "atol": 1e-3 * segment_rtol}
        }));
    }
    for s in 1..SEGMENTS {
        let (a, b, c) = (
            format!("seg{s}"),
            format!("seg{}", s + 1),
            format!("cut{s}"),
        );
        modules.push(json!({"name": c, "model": "MassChain.Cut", "parameters": {"dc": d}}));
        for (from, to) in [
            (format!("{a}.x_last"), format!("{c}.x_left")),
            (format!("{a}.v_last"), format!("{c}.v_left")),
            (format!("{b}.x_first"), format!("{c}.x_right")),
            (format!("{b}.v_first"), format!("{c}.v_right")),
            (format!("{c}.lambda"), format!("{a}.lambda_right")),
            (format!("{c}.lambda"), format!("{b}.lambda_left")),
        ] {
            connections.push(json!({"from": from, "to": to}));
        }
    }
    let order = match order {
        Order::Fixed(k) => json!({"fixed": k}),
        Order::Variable => json!({"variable": {"k_max": 5}}),
    };
    let implicit = estimator.starts_with("im_");
    json!({
        "schema_version": 1,
        "title": "substitute chain",
        "description": "seed 002 chain study",
        "modules": modules,
        "connections": connections,
        "master": {
            "algorithm": if implicit { "implicit" } else { "jacobi" },
            "macro_step": 1e-8,
            "step_control": {
                "method": "error", "estimator": estimator, "rtol": rtol,
                "atol": {"pos": 1e-3 * rtol, "vel": rtol, "u": 1e2 * rtol},
                "safety_factor": 6, "r_min": 0.5, "r_max": 2, "order": order
            }
        },
        "run": {"start": 0.0, "stop": STOP},
        "reference": true,
        "plot": []
    })
}

/// Runs one setting with the segments at [`SEGMENT_RTOL`]; `None` if the run ends before
/// `STOP`.
pub fn run(estimator: &str, d: f64, rtol: f64, order: Order) -> Option<Outcome> {
    run_with_segments(estimator, d, rtol, order, SEGMENT_RTOL)
}

/// [`run`] with the segments' BDF at `segment_rtol`.
pub fn run_with_segments(
    estimator: &str,
    d: f64,
    rtol: f64,
    order: Order,
    segment_rtol: f64,
) -> Option<Outcome> {
    let text = scenario_json(estimator, d, rtol, order, segment_rtol).to_string();
    let v = scenario::parse(&text)
        .expect("parses")
        .validate()
        .expect("valid");
    let mut sim = Simulation::new(&v).expect("built");
    sim.run_to_end().ok()?;
    let stats = sim.stats();
    Some(Outcome {
        accepted: stats.accepted,
        rejected: stats.rejected,
        mean_h: STOP / f64::from(stats.accepted),
        error: sim.global_nrmse().expect("a reference"),
    })
}
