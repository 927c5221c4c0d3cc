//! Hostile inputs, one table per category of issue 16: each is refused with a clear error
//! (the JSON path, the module or parameter, the estimate and the limit) before the work it
//! refuses is done. "Before" is measured, not timed: a counting allocator records the peak
//! bytes the refusing thread held (well under 256 MB, far below what the work would take),
//! and refusals come from validation or analysis set-up, which step nothing.

mod hostile;

use cosim_core::analysis::convergence;
use cosim_core::analysis::sweep::{AxisSpec, LinearAnalysis, MapMetric, ParameterMap};
use cosim_core::scenario::{self, Scenario};
use hostile::{peak_bytes_during, preset_json, with};
use serde_json::json;

/// Peak memory any refusal may take (the bound is 256 MB).
const REFUSAL_PEAK_BYTES: usize = 64 << 20;

/// Parses and validates `doc`, expecting a refusal; returns `path: message`.
fn refused(doc: &serde_json::Value) -> String {
    let text = doc.to_string();
    let (result, peak) = peak_bytes_during(|| scenario::parse(&text).and_then(|s| s.validate()));
    let e = match result {
        Ok(_) => panic!("accepted: {}", &text[..text.len().min(300)]),
        Err(e) => e.to_string(),
    };
    assert!(peak < REFUSAL_PEAK_BYTES, "{peak} bytes to refuse: {e}");
    assert!(e.len() <= 2100, "message of {} bytes", e.len());
    e
}

fn contains_all(e: &str, parts: &[&str]) {
    for p in parts {
        assert!(e.contains(p), "`{p}` missing in: {e}");
    }
}

#[test]
fn bad_input_is_refused_with_its_path_and_the_nearest_name() {
    let base = preset_json("two-mass-oscillator");
    let cases: Vec<(serde_json::Value, &[&str])> = vec![
        // Unknown fields next to a method without settings were accepted silently.
        (
            with(&base, |d| {
                d["modules"][0]["solver"] = json!({"method": "default", "rtol": 1})
            }),
            &["modules[0].solver", "unknown field `rtol`"],
        ),
        (
            with(&base, |d| {
                d["modules"][1]["solver"] = json!({"method": "exact", "step": 1})
            }),
            &["modules[1].solver", "unknown field `step`"],
        ),
        (
            with(&base, |d| {
                let m = d["master"].as_object_mut().unwrap();
                let h = m.remove("macro_step").unwrap();
                m.insert("macro_stpe".into(), h);
            }),
            &["master.macro_stpe", "did you mean `macro_step`?"],
        ),
        // An axis naming no parameter was accepted.
        (
            with(&base, |d| {
                d["analysis"] = json!({"view": "stability_map",
                    "x": {"parameter": "mass2.nope", "from": 1, "to": 2, "points": 3},
                    "y": {"parameter": "master.macro_step", "from": 1e-5, "to": 1e-4, "points": 3}})
            }),
            &[
                "analysis.x.parameter",
                "`mass2` has no parameter `nope`",
                "ck",
            ],
        ),
        (
            with(&base, |d| {
                d["analysis"] = json!({"view": "error_versus_parameter",
                    "x": {"parameter": "nobody.ck", "from": 1, "to": 2, "points": 3}})
            }),
            &["analysis.x.parameter", "no module named `nobody`"],
        ),
        // A connection without a dot reported "has no variable ``" without its path.
        (
            with(&base, |d| d["connections"][1]["from"] = json!("mass1")),
            &[
                "connections[1].from",
                "`mass1` names a module but no variable",
            ],
        ),
        // An overflowing parameter failed later in the reference's matrix exponential.
        (
            with(&base, |d| {
                d["modules"][1]["parameters"] = json!({"ck": 1e308})
            }),
            &[
                "modules[1].parameters.ck",
                "module `mass2`",
                "parameter `ck`",
                "1e308",
            ],
        ),
        (
            with(&base, |d| {
                d["modules"][0]["parameters"] = json!({"m1": 1e-300})
            }),
            &["modules[0].parameters.m1", "module `mass1`", "out of range"],
        ),
    ];
    for (doc, parts) in &cases {
        contains_all(&refused(doc), parts);
    }
}

#[test]
fn duplicate_keys_are_refused_wherever_they_stand() {
    let text = preset_json("two-mass-oscillator").to_string();
    let cases = [
        (
            text.replacen("\"run\":{", "\"run\":{\"stop\":100,", 1),
            "run",
            "`stop`",
        ),
        (
            text.replacen("\"name\":\"mass1\"", "\"name\":\"x\",\"name\":\"mass1\"", 1),
            "modules[0]",
            "`name`",
        ),
        (text.replacen('{', "{\"title\":\"a\",", 1), "", "`title`"),
    ];
    for (doc, path, key) in cases {
        assert_ne!(doc, text, "the case adds a key");
        let e = scenario::parse(&doc).expect_err("a duplicate key is refused");
        assert_eq!(e.path, path, "{e}");
        contains_all(&e.message, &[key, "appears twice"]);
    }
}

#[test]
fn messages_are_capped_and_lists_shortened() {
    let mut base = preset_json("two-mass-oscillator");
    base["plot"] = json!(["x".repeat(100_000)]);
    let e = refused(&base);
    contains_all(&e, &["plot[0]", "more characters"]);
    // A model name of 20,000 characters, and 20,000 outputs listed after a wrong plot.
    let mut s: Scenario = serde_json::from_value(preset_json("two-mass-oscillator")).unwrap();
    s.modules[0].model = "M".repeat(20_000);
    let e = s.validate().unwrap_err().to_string();
    assert!(e.len() < 2200, "{}", e.len());
}

#[test]
fn run_budgets_refuse_before_anything_is_allocated() {
    let base = preset_json("two-mass-oscillator");
    // An RK4 micro-step of 1e-13 s: 10^12 micro-steps.
    let e = refused(&with(&base, |d| {
        d["modules"][0]["solver"] = json!({"method": "rk4", "step": 1e-13});
        d["master"]["start_up"] = json!("ramp_up");
    }));
    contains_all(
        &e,
        &["modules[0].solver.step", "1.00e12", "--max-micro-steps"],
    );
    // 5,000 outputs × 2,000,001 points: about 160 GB of recorded outputs.
    let mut wide = with(&base, |d| {
        d["master"]["macro_step"] = json!(5e-8);
        d["master"]["start_up"] = json!("ramp_up");
    });
    let source: String = (0..5_000).map(|i| format!("output y{i} = 0\n")).collect();
    wide["modules"].as_array_mut().unwrap().push(json!({
        "name": "wide", "model": "Equations", "source": "state x\nder(x) = 0\n".to_string() + &source
    }));
    let e = refused(&wide);
    contains_all(
        &e,
        &["master.macro_step", "recorded outputs", "--max-memory-mb"],
    );
    // A wrong plot entry lists 40 of the 5,003 outputs, not all of them.
    let e = refused(&with(&wide, |d| d["plot"] = json!(["wide.nope"])));
    contains_all(
        &e,
        &["plot[0]", "`wide.nope` is not an output", "and 4963 more"],
    );
    assert!(e.len() < 1000, "{e}");
}

#[test]
fn matrix_budgets_refuse_large_references_before_they_are_built() {
    // An equation module of 3,200 states solved exactly.
    let n = 3200;
    let mut source: String = (0..n).map(|i| format!("state x{i}\n")).collect();
    source.extend((0..n).map(|i| format!("der(x{i})=-x{i}\n")));
    source.push_str("output y = x0\n");
    let doc = json!({"schema_version": 1,
        "modules": [{"name": "big", "model": "Equations", "source": source}],
        "connections": [], "master": {"algorithm": "jacobi", "macro_step": 0.01},
        "run": {"stop": 1}});
    contains_all(
        &refused(&doc),
        &["modules[0]", "3200 states", "--max-matrix-dimension"],
    );
    // 1,000 coupled linear pairs with their exact reference: a 4000 × 4000 exponential.
    let mut modules = Vec::new();
    let mut connections = Vec::new();
    for k in 0..1000 {
        modules.push(json!({"name": format!("a{k}"), "model": "TwoMassOscillator.Mass1"}));
        modules.push(json!({"name": format!("b{k}"), "model": "TwoMassOscillator.Mass2"}));
        for (from, to) in [
            ("b{k}.Fk", "a{k}.Fk"),
            ("a{k}.s1", "b{k}.s1"),
            ("a{k}.v1", "b{k}.v1"),
        ] {
            let k = k.to_string();
            connections.push(json!({"from": from.replace("{k}", &k), "to": to.replace("{k}", &k)}));
        }
    }
    let doc = with(&preset_json("two-mass-oscillator"), |d| {
        d["modules"] = json!(modules);
        d["connections"] = json!(connections);
        d["plot"] = json!([]);
    });
    contains_all(
        &refused(&doc),
        &["reference", "4000 states", "the limit is 1000"],
    );
    // Without the reference, the corrector's Jacobian over all 3000 coupled inputs.
    let doc = with(&doc, |d| {
        d["reference"] = json!(false);
        d["master"]["start_up"] = json!("ramp_up");
        d["master"]["correction"] = json!({"alpha": 1.0});
    });
    contains_all(&refused(&doc), &["connections", "3000 coupled inputs"]);
}

fn analysis(id: &str) -> LinearAnalysis {
    let v = scenario::preset(id).unwrap().validate().unwrap();
    LinearAnalysis::new(&v).expect("linear")
}

#[test]
fn map_and_convergence_budgets_refuse_before_any_cell_or_step() {
    let a = analysis("two-mass-oscillator");
    // 4096 × 4096 cells with 2 million macro-steps each.
    let axis = |parameter: &str, from: f64, to: f64| AxisSpec {
        parameter: parameter.into(),
        from,
        to,
        points: 4096,
        log: true,
    };
    let (result, peak) = peak_bytes_during(|| {
        ParameterMap::new(
            a.clone(),
            &axis("mass2.ck", 1.0, 1e10),
            &axis("master.macro_step", 5e-8, 1e-3),
            MapMetric::GlobalError,
        )
        .map(|_| ())
    });
    let e = result.unwrap_err().to_string();
    contains_all(&e, &["cells", "--max-map-work"]);
    assert!(peak < REFUSAL_PEAK_BYTES, "{peak}");
    // The same map of ρ is one matrix per cell: allowed.
    let rho = ParameterMap::new(
        a.clone(),
        &axis("mass2.ck", 1.0, 1e10),
        &axis("master.macro_step", 5e-8, 1e-3),
        MapMetric::SpectralRadius,
    );
    assert!(rho.is_ok());
    // A convergence study of 100,000 macro-steps of 1e-9 s.
    let steps = vec![1e-9; 100_000];
    let e = convergence::check_budget(&a, &steps, &[0, 1, 2, 3, 4], Some(1.0))
        .unwrap_err()
        .to_string();
    contains_all(
        &e,
        &["10 methods × 100000 macro-steps", "--max-convergence-steps"],
    );
    assert!(convergence::check_budget(&a, &[1e-3, 1e-4], &[0, 1], Some(1.0)).is_ok());
}

#[test]
fn page_limits_are_tighter_and_raising_a_limit_lets_work_through() {
    use cosim_core::limits::Limits;
    let mut s = scenario::preset("two-mass-rk4").unwrap();
    s.master.start_up = scenario::StartUp::RampUp;
    s.modules[0].solver = cosim_core::solvers::SolverSpec::Rk4 { step: 1e-10 };
    // 10^6 per macro-step × 1000 macro-steps = 10^9: fine for the CLI, too much for the page.
    assert!(s.validate_within(&Limits::CLI).is_ok());
    let e = s.validate_within(&Limits::PAGE).unwrap_err().to_string();
    contains_all(&e, &["1.00e9", "the limit is 200000000 micro-steps"]);
    let raised = Limits {
        micro_steps: 1 << 40,
        ..Limits::PAGE
    };
    assert!(s.validate_within(&raised).is_ok());
}
