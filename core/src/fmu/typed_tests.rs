//! The C test FMU with every FMI 3.0 variable type (`examples/fmus/c_types`, built by
//! `cargo xtask fmus` into `tests/fixtures/fmus/c_types.fmu`): connected to a built-in
//! module and to itself, run, and its CSV compared with values computed here from the
//! model's definition; type, shape and parameter errors name their JSON path.

use crate::scenario::{self, data_url};
use crate::simulation::Simulation;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use serde_json::{json, Value};

const C_TYPES: &[u8] = include_bytes!("../../../tests/fixtures/fmus/c_types.fmu");
const H: f64 = 0.125;

/// A built-in source `xo = x`, `x' = -x`, and the test FMU fed by it and by itself.
fn scenario(parameters: Value, connections: Value) -> Value {
    json!({
        "schema_version": 1,
        "modules": [
            { "name": "src", "model": "Equations",
              "source": "state x = 1\nder(x) = -x\noutput xo = x\n" },
            { "name": "t", "model": "Binary", "source": data_url(C_TYPES),
              "parameters": parameters }
        ],
        "connections": connections,
        "master": { "algorithm": "gauss_seidel", "macro_step": H },
        "run": { "start": 0.0, "stop": 2.0 },
        "reference": false
    })
}

fn connections() -> Value {
    json!([
        { "from": "src.xo", "to": "t.u" },
        { "from": "t.count", "to": "t.k_in" },
        { "from": "t.arr", "to": "t.arr_in" }
    ])
}

fn validated(s: &Value) -> Result<scenario::ValidatedScenario, crate::error::ScenarioError> {
    scenario::parse(&s.to_string())?.validate()
}

fn run(s: &Value) -> String {
    let v = validated(s).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Simulation::new(&v).unwrap_or_else(|e| panic!("{e}"));
    sim.run_to_end().unwrap_or_else(|e| panic!("{e}"));
    sim.to_csv()
}

#[test]
fn every_type_runs_connected_to_a_built_in_and_to_itself() {
    let params = json!({ "gain": 0.5, "offset": -7, "flag": true, "label": "abcd",
                         "blob": "ff0001", "mode": 3, "u64": 9007199254740000u64 });
    let csv = run(&scenario(params, connections()));
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(
        header,
        [
            "time",
            "src.xo",
            "t.count",
            "t.odd",
            "t.y",
            "t.arr[1]",
            "t.arr[2]",
            "t.arr[3]",
            "t.small",
            "t.f32",
            "t.param_sum",
            "t.big",
            "t.mode_out",
            "t.in_sum",
            "t.k_echo"
        ]
    );
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 17);
    let num = |s: &str| s.parse::<f64>().unwrap();
    // offset + i16 + u8 + u16 + u32 + i64 + flag + mode + len(label) + len(blob).
    let param_sum: i64 = -7 - 300 + 250 + 60000 + 4_000_000_000 - 5_000_000_000 + 1 + 3 + 4 + 3;
    let weights = [1.5, -2.0, 0.25];
    let events = |t: f64| {
        (1..100)
            .filter(|&j| f64::from(j) * 0.25 <= t + 0.25e-9)
            .count() as i64
    };
    for (k, row) in rows.iter().enumerate() {
        let t = num(row[0]);
        assert_eq!(t, k as f64 * H);
        let count = events(t);
        let xo = num(row[1]);
        let arr: Vec<f64> = weights.iter().map(|w| w * t).collect();
        let previous_count = if k == 0 { 0 } else { events(t - H) };
        let expected = [
            format!("{count}"),
            format!("{}", i64::from(count % 2 == 1)),
            format!("{:e}", 0.5 * xo - 7.0),
            format!("{:e}", arr[0]),
            format!("{:e}", arr[1]),
            format!("{:e}", arr[2]),
            format!("{}", (250 + count) % 256),
            format!("{:e}", f64::from(0.5f32 * t as f32)),
            format!("{param_sum}"),
            format!("{}", 9007199254740000i64 + count),
            "3".to_string(),
            // arr_in holds arr of the previous point (set before the step), summed.
            format!(
                "{:e}",
                if k == 0 {
                    0.0
                } else {
                    weights.iter().map(|w| w * (t - H)).sum::<f64>()
                }
            ),
            format!("{previous_count}"),
        ];
        assert_eq!(&row[2..], expected.as_slice(), "row {k} (t = {t})");
    }
}

fn error(s: &Value) -> crate::error::ScenarioError {
    validated(s).err().expect("refused")
}

#[test]
fn type_and_dimension_mismatches_name_the_connection() {
    let mut c = connections();
    c[1] = json!({ "from": "t.count", "to": "t.u" });
    c[0] = json!({ "from": "src.xo", "to": "t.k_in" });
    let e = error(&scenario(json!({}), c));
    assert_eq!(e.path, "connections[0].to", "{e}");
    assert!(
        e.message
            .contains("`src.xo` is Float64 but `t.k_in` is Int32"),
        "{e}"
    );
    let mut c = connections();
    c[2] = json!({ "from": "t.arr", "to": "t.u" });
    c[0] = json!({ "from": "src.xo", "to": "t.arr_in" });
    let e = error(&scenario(json!({}), c));
    assert_eq!(e.path, "connections[0].to", "{e}");
    assert!(
        e.message
            .contains("`src.xo` is a scalar but `t.arr_in` is an array [3]"),
        "{e}"
    );
}

#[test]
fn a_parameter_of_the_wrong_type_names_its_path() {
    for (name, value, says) in [
        (
            "offset",
            json!(300),
            "Int8 expects a whole number in -128..=127, got 300",
        ),
        ("flag", json!(1), "Boolean expects true or false, got 1"),
        ("label", json!(5), "String expects a JSON string"),
        ("blob", json!("xyz"), "Binary expects hexadecimal text"),
        (
            "u32",
            json!(-1),
            "UInt32 expects a whole number in 0..=4294967295",
        ),
        ("gain", json!([1, 2]), "Float32 is a scalar, not an array"),
        ("n", json!(4), "structural parameter"),
        (
            "time",
            json!(1),
            "is not a variable of `CTypes` with a settable start value",
        ),
    ] {
        let e = error(&scenario(json!({ name: value }), connections()));
        assert_eq!(e.path, format!("modules[1].parameters.{name}"), "{e}");
        assert!(e.message.contains(says), "{name}: {e}");
    }
    let e = error(&json!({
        "schema_version": 1,
        "modules": [{ "name": "a", "model": "TwoMassOscillator.Mass1", "parameters": { "m1": true } }],
        "master": { "algorithm": "jacobi", "macro_step": 0.1 },
        "run": { "start": 0.0, "stop": 1.0 }
    }));
    assert_eq!(e.path, "modules[0].parameters.m1", "{e}");
}

#[test]
fn a_missing_resource_fails_validation_naming_the_module() {
    use super::archive::{write_stored, Archive};
    let archive = Archive::parse(C_TYPES).unwrap();
    let files: Vec<(String, Vec<u8>)> = archive
        .names()
        .filter(|n| !n.starts_with("resources/"))
        .map(|n| (n.to_string(), archive.read(n).unwrap().unwrap()))
        .collect();
    let refs: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(n, d)| (n.as_str(), d.as_slice()))
        .collect();
    let mut s = scenario(json!({}), connections());
    s["modules"][1]["source"] = json!(data_url(&write_stored(&refs)));
    let e = error(&s);
    assert_eq!(e.path, "modules[1].source", "{e}");
    assert!(
        e.message.contains("module `t`")
            && e.message.contains("fmi3InstantiateCoSimulation")
            && e.message.contains("config.txt"),
        "{e}"
    );
}
