//! Every FMI 3.0 variable type through the CLI, with `tests/fixtures/fmus/c_types.fmu`
//! (built by `cargo xtask fmus` from `examples/fmus/c_types`): `cosim run` writes the
//! same CSV as the core in process (integers as integers, one column per array element),
//! a scenario link carries parameters of every type, and `cosim validate` names the JSON
//! path of a type or dimension mismatch and of a wrong-typed parameter.

use cosim_core::scenario::{self, decode_link, encode_link, Scenario};
use cosim_core::simulation::Simulation;
use serde_json::{json, Value};
use std::path::PathBuf;

mod fmu_fixture;
use fmu_fixture::cosim;

const FMU: &str = "c_types.fmu";

fn fixture() -> Vec<u8> {
    fmu_fixture::fixture(FMU)
}

fn temp_dir(tag: &str) -> PathBuf {
    fmu_fixture::temp_dir(FMU, tag)
}

fn validate_error(tag: &str, s: Value) -> String {
    fmu_fixture::validate_error(FMU, tag, s)
}

fn scenario(parameters: Value, connections: Value) -> Value {
    json!({
        "schema_version": 1,
        "title": "Every FMI 3.0 type",
        "modules": [
            { "name": "src", "model": "Equations",
              "source": "state x = 1\nder(x) = -x\noutput xo = x\n" },
            { "name": "t", "model": "Binary", "source": "fmus/c_types.fmu",
              "parameters": parameters }
        ],
        "connections": connections,
        "master": { "algorithm": "gauss_seidel", "macro_step": 0.125 },
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

fn params() -> Value {
    json!({ "gain": 0.5, "offset": -7, "flag": false, "label": "abcd", "blob": "ff0001",
            "mode": 3, "u64": 9007199254740000u64, "i64": -9007199254740000i64 })
}

#[test]
fn cosim_run_writes_the_same_csv_as_the_core_with_exact_integers() {
    let dir = temp_dir("run");
    let s = scenario(params(), connections());
    std::fs::write(dir.join("types.json"), s.to_string()).unwrap();
    let out = cosim(&dir, &["run", "types.json", "--out", "types.csv"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let cli = std::fs::read_to_string(dir.join("types.csv")).unwrap();

    let mut parsed: Scenario = scenario::parse(&s.to_string()).unwrap();
    parsed.embed_fmu("fmus/c_types.fmu", &fixture());
    let v = parsed.validate().unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Simulation::new(&v).unwrap();
    sim.run_to_end().unwrap();
    assert_eq!(cli, sim.to_csv(), "CLI and core, byte for byte");

    let header = cli.lines().next().unwrap();
    assert!(header.contains(",t.arr[1],t.arr[2],t.arr[3],"), "{header}");
    let last: Vec<&str> = cli.lines().last().unwrap().split(',').collect();
    // At t = 2: eight time events; flag false keeps odd at 0; big = u64 + count.
    assert_eq!(&last[2..4], ["8", "0"]);
    assert_eq!(last[11], "9007199254740008");
    // param_sum = -7 - 300 + 250 + 60000 + 4e9 - 9007199254740000 + 0 + 3 + 4 + 3.
    assert_eq!(
        last[10],
        format!(
            "{}",
            -7 - 300 + 250 + 60000 + 4_000_000_000i64 - 9007199254740000 + 10
        )
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_link_carries_parameters_of_every_type() {
    let s: Scenario = scenario::parse(&scenario(params(), connections()).to_string()).unwrap();
    let back = decode_link(&encode_link(&s).unwrap()).unwrap();
    assert_eq!(back, s);
    assert_eq!(back.modules[1].typed_parameters["label"], json!("abcd"));
    assert_eq!(back.modules[1].typed_parameters["flag"], json!(false));
}

#[test]
fn cosim_validate_names_the_path_of_a_type_or_dimension_mismatch() {
    let mut c = connections();
    c[0] = json!({ "from": "src.xo", "to": "t.k_in" });
    c[1] = json!({ "from": "t.count", "to": "t.u" });
    let err = validate_error("type", scenario(json!({}), c));
    assert!(
        err.contains("connections[0].to: type mismatch: `src.xo` is Float64 but `t.k_in` is Int32"),
        "{err}"
    );
    let mut c = connections();
    c[2] = json!({ "from": "t.arr", "to": "t.u" });
    c[0] = json!({ "from": "src.xo", "to": "t.arr_in" });
    let err = validate_error("shape", scenario(json!({}), c));
    assert!(
        err.contains(
            "connections[0].to: dimension mismatch: `src.xo` is a scalar but `t.arr_in` is an array [3]"
        ),
        "{err}"
    );
}

#[test]
fn cosim_validate_names_the_path_of_a_wrong_typed_parameter() {
    let err = validate_error("param", scenario(json!({ "offset": 1.5 }), connections()));
    assert!(
        err.contains(
            "modules[1].parameters.offset: module `t`: `offset`: Int8 expects a whole number in \
             -128..=127, got 1.5"
        ),
        "{err}"
    );
}
