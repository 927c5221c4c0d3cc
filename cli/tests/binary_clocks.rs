//! Clocks and String/Binary outputs through the CLI, with
//! `tests/fixtures/fmus/c_clocks.fmu` (built by `cargo xtask fmus` from
//! `examples/fmus/c_clocks`): `cosim run` writes the same CSV as the core in process, the
//! output clock ticks into the other module's input clock, String cells are quoted as RFC
//! 4180 asks and Binary cells are hex; `cosim validate` names the path of a clock joined
//! to a number and of a String output in a connection.

use cosim_core::scenario::{self, Scenario};
use cosim_core::simulation::Simulation;
use serde_json::{json, Value};
use std::path::PathBuf;

mod fmu_fixture;
use fmu_fixture::cosim;

const FMU: &str = "c_clocks.fmu";

fn fixture() -> Vec<u8> {
    fmu_fixture::fixture(FMU)
}

fn temp_dir(tag: &str) -> PathBuf {
    fmu_fixture::temp_dir(FMU, tag)
}

fn validate_error(tag: &str, s: Value) -> String {
    fmu_fixture::validate_error(FMU, tag, s)
}

/// `a` ticks every 0.25 s, `b` every 0.5 s; each tick activates the other's trigger.
fn scenario(connections: Value) -> Value {
    json!({
        "schema_version": 1,
        "modules": [
            { "name": "a", "model": "Binary", "source": "fmus/c_clocks.fmu" },
            { "name": "b", "model": "Binary", "source": "fmus/c_clocks.fmu",
              "parameters": { "period": 0.5 } }
        ],
        "connections": connections,
        "master": { "algorithm": "jacobi", "macro_step": 0.125 },
        "run": { "start": 0.0, "stop": 1.0 },
        "reference": false
    })
}

fn crossed() -> Value {
    json!([
        { "from": "a.tick", "to": "b.trigger" },
        { "from": "b.tick", "to": "a.trigger" }
    ])
}

#[test]
fn cosim_run_writes_clock_ticks_and_text_outputs_as_the_core_does() {
    let dir = temp_dir("run");
    let s = scenario(crossed());
    std::fs::write(dir.join("clocks.json"), s.to_string()).unwrap();
    let out = cosim(&dir, &["run", "clocks.json", "--out", "clocks.csv"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let cli = std::fs::read_to_string(dir.join("clocks.csv")).unwrap();
    std::fs::remove_dir_all(&dir).ok();

    let mut parsed: Scenario = scenario::parse(&s.to_string()).unwrap();
    parsed.embed_fmu("fmus/c_clocks.fmu", &fixture());
    let v = parsed.validate().unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Simulation::new(&v).unwrap();
    sim.run_to_end().unwrap();
    assert_eq!(cli, sim.to_csv(), "CLI and core, byte for byte");

    // Rows at t = 0, 0.125, ..., 1: a ticks at rows 2, 4, 6, 8 and b at rows 4, 8. b's
    // ticks at rows 4 activate a's trigger before the step from row 4 (counted from
    // row 5 on, at t = 0.5); a's ticks at rows 2, 4, 6 reach b by row 8.
    let lines: Vec<&str> = cli.lines().collect();
    assert_eq!(
        lines[0],
        "time,a.tick,a.ticks,a.triggered,a.last_trigger,b.tick,b.ticks,b.triggered,\
         b.last_trigger,a.status,a.frame,b.status,b.frame"
    );
    assert_eq!(lines.len(), 10);
    let expected_rows = [
        "0e0,0,0,0,-1e0,0,0,0,-1e0,\"tick 0, \"\"trigger\"\" 0\",ca0000,\"tick 0, \"\"trigger\"\" 0\",ca0000",
        "1.25e-1,0,0,0,-1e0,0,0,0,-1e0,\"tick 0, \"\"trigger\"\" 0\",ca0000,\"tick 0, \"\"trigger\"\" 0\",ca0000",
        "2.5e-1,1,1,0,-1e0,0,0,0,-1e0,\"tick 1, \"\"trigger\"\" 0\",ca0100,\"tick 0, \"\"trigger\"\" 0\",ca0000",
        "3.75e-1,0,1,0,-1e0,0,0,1,2.5e-1,\"tick 1, \"\"trigger\"\" 0\",ca0100,\"tick 0, \"\"trigger\"\" 1\",ca0001",
        "5e-1,1,2,0,-1e0,1,1,1,2.5e-1,\"tick 2, \"\"trigger\"\" 0\",ca0200,\"tick 1, \"\"trigger\"\" 1\",ca0101",
        "6.25e-1,0,2,1,5e-1,0,1,2,5e-1,\"tick 2, \"\"trigger\"\" 1\",ca0201,\"tick 1, \"\"trigger\"\" 2\",ca0102",
        "7.5e-1,1,3,1,5e-1,0,1,2,5e-1,\"tick 3, \"\"trigger\"\" 1\",ca0301,\"tick 1, \"\"trigger\"\" 2\",ca0102",
        "8.75e-1,0,3,1,5e-1,0,1,3,7.5e-1,\"tick 3, \"\"trigger\"\" 1\",ca0301,\"tick 1, \"\"trigger\"\" 3\",ca0103",
        "1e0,1,4,1,5e-1,1,2,3,7.5e-1,\"tick 4, \"\"trigger\"\" 1\",ca0401,\"tick 2, \"\"trigger\"\" 3\",ca0203",
    ];
    assert_eq!(&lines[1..], expected_rows);
}

#[test]
fn cosim_validate_names_a_clock_joined_to_a_number_and_a_string_in_a_connection() {
    let mut c = crossed();
    c[1] = json!({ "from": "b.triggered", "to": "a.trigger" });
    let err = validate_error("clock", scenario(c));
    assert!(
        err.contains(
            "connections[1].to: type mismatch: `b.triggered` is Int32 but `a.trigger` is Clock"
        ),
        "{err}"
    );
    let mut c = crossed();
    c[0] = json!({ "from": "a.frame", "to": "b.trigger" });
    let err = validate_error("binary", scenario(c));
    assert!(
        err.contains("connections[0].from: `a.frame` is a Binary output")
            && err.contains("only numbers and clocks can be connected"),
        "{err}"
    );
}

/// Under Gauss–Seidel a receiver stepping after its clock's source would miss the tick:
/// refused at the connection; with the receiver first the same connection runs.
#[test]
fn gauss_seidel_refuses_a_clock_whose_receiver_steps_after_its_source() {
    let gauss_seidel = |connections: Value, sequence: Value| {
        let mut s = scenario(connections);
        s["master"]["algorithm"] = json!("gauss_seidel");
        s["master"]["sequence"] = sequence;
        s
    };
    // b's clock triggers a, and b itself (every input must be connected).
    let one_way = || {
        json!([
            { "from": "b.tick", "to": "a.trigger" },
            { "from": "b.tick", "to": "b.trigger" }
        ])
    };
    let err = validate_error("gs", gauss_seidel(one_way(), json!(["b", "a"])));
    assert!(
        err.contains("connections[0]: the clock `b.tick` ticks in `b`'s step")
            && err.contains("list `a` before `b` in master.sequence"),
        "{err}"
    );
    // Crossed clocks: one of the two always steps second.
    let err = validate_error("gs-crossed", gauss_seidel(crossed(), json!(["a", "b"])));
    assert!(err.contains("connections[0]: the clock `a.tick`"), "{err}");

    let dir = temp_dir("gs-ok");
    let s = gauss_seidel(one_way(), json!(["a", "b"]));
    std::fs::write(dir.join("ok.json"), s.to_string()).unwrap();
    let out = cosim(&dir, &["run", "ok.json", "--out", "ok.csv"]);
    let csv = std::fs::read_to_string(dir.join("ok.csv")).unwrap_or_default();
    std::fs::remove_dir_all(&dir).ok();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // a is triggered by b's tick at t = 0.5 (row 5) from the step after it on.
    let triggered: Vec<&str> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(3).unwrap_or(""))
        .collect();
    assert_eq!(triggered[..6], ["0", "0", "0", "0", "0", "1"], "{csv}");
}
