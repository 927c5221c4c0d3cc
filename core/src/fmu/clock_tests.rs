//! The C clock test FMU (`examples/fmus/c_clocks`, built by `cargo xtask fmus` into
//! `tests/fixtures/fmus/c_clocks.fmu`): two instances whose output clocks drive each
//! other's input clock, run, and the CSV compared cell by cell with what the model's
//! definition gives (ticks, clocked counter, activations, String and Binary outputs);
//! clock and String connections that cannot be made are refused at their JSON path.

use crate::scenario::{self, data_url};
use crate::simulation::Simulation;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use serde_json::{json, Value};

const C_CLOCKS: &[u8] = include_bytes!("../../../tests/fixtures/fmus/c_clocks.fmu");
const H: f64 = 0.05;
const ROWS: usize = 21;

/// `a` ticks every 0.25 s (every 5th row), `b` every 0.1 s (every 2nd row).
fn scenario(algorithm: &str, connections: Value) -> Value {
    json!({
        "schema_version": 1,
        "modules": [
            { "name": "a", "model": "Binary", "source": data_url(C_CLOCKS) },
            { "name": "b", "model": "Binary", "source": data_url(C_CLOCKS),
              "parameters": { "period": 0.1 } }
        ],
        "connections": connections,
        "master": { "algorithm": algorithm, "macro_step": H },
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

fn run(s: &Value) -> String {
    let v = scenario::parse(&s.to_string())
        .and_then(|p| p.validate())
        .unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Simulation::new(&v).unwrap_or_else(|e| panic!("{e}"));
    sim.run_to_end().unwrap_or_else(|e| panic!("{e}"));
    sim.to_csv()
}

/// A CSV line split at commas outside double quotes (RFC 4180).
fn cells(line: &str) -> Vec<String> {
    let (mut out, mut cell, mut quoted) = (Vec::new(), String::new(), false);
    for c in line.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                cell.push(c);
            }
            ',' if !quoted => out.push(core::mem::take(&mut cell)),
            _ => cell.push(c),
        }
    }
    out.push(cell);
    out
}

/// What one instance shows at row `i`: it ticks on the rows that are multiples of
/// `every`; its input clock was activated at the start of each step that began on a row
/// where the other ticked (`other`), so a tick at row j is counted from row j + 1 on.
fn expected(i: usize, every: usize, other: usize) -> (String, String, i64, i64, f64) {
    let ticks = (i / every) as i64;
    let activations: Vec<usize> = (1..i).filter(|j| j % other == 0).collect();
    let triggered = activations.len() as i64;
    let last = activations.last().map_or(-1.0, |&j| j as f64 * H);
    let status = format!("\"tick {ticks}, \"\"trigger\"\" {triggered}\"");
    let frame = format!("ca{:02x}{:02x}", ticks as u8, triggered as u8);
    (status, frame, ticks, triggered, last)
}

#[test]
fn output_clocks_tick_into_input_clocks_and_text_outputs_are_recorded() {
    let csv = run(&scenario("jacobi", crossed()));
    let mut lines = csv.lines();
    let header = lines.next().unwrap();
    assert_eq!(
        header,
        "time,a.tick,a.ticks,a.triggered,a.last_trigger,b.tick,b.ticks,b.triggered,\
         b.last_trigger,a.status,a.frame,b.status,b.frame"
    );
    let rows: Vec<Vec<String>> = lines.map(cells).collect();
    assert_eq!(rows.len(), ROWS);
    for (i, row) in rows.iter().enumerate() {
        let (a, b) = (expected(i, 5, 2), expected(i, 2, 5));
        let tick = |every: usize| (i > 0 && i % every == 0).then_some("1").unwrap_or("0");
        let at = |k: usize| row[k].as_str();
        assert_eq!(at(1), tick(5), "a.tick at row {i}");
        assert_eq!(at(2), a.2.to_string(), "a.ticks at row {i}");
        assert_eq!(at(3), a.3.to_string(), "a.triggered at row {i}");
        let last: f64 = at(4).parse().unwrap();
        assert!(
            (last - a.4).abs() < 1e-12,
            "a.last_trigger at row {i}: {last}"
        );
        assert_eq!(at(5), tick(2), "b.tick at row {i}");
        assert_eq!(at(6), b.2.to_string(), "b.ticks at row {i}");
        assert_eq!(at(7), b.3.to_string(), "b.triggered at row {i}");
        let last: f64 = at(8).parse().unwrap();
        assert!(
            (last - b.4).abs() < 1e-12,
            "b.last_trigger at row {i}: {last}"
        );
        assert_eq!(
            (at(9), at(10)),
            (a.0.as_str(), a.1.as_str()),
            "a texts, row {i}"
        );
        assert_eq!(
            (at(11), at(12)),
            (b.0.as_str(), b.1.as_str()),
            "b texts, row {i}"
        );
    }
    // Spot checks written out: a ticked for the 4th time at t = 1; b's 5 ticks before
    // t = 1 (rows 2, 4, ..., 18) activated a's trigger 9 times.
    let last = &rows[ROWS - 1];
    assert_eq!(last[0], "1e0");
    assert_eq!(last[9], "\"tick 4, \"\"trigger\"\" 9\"");
    assert_eq!(last[10], "ca0409");
    assert_eq!(last[12], "ca0a03");
}

#[test]
fn a_clock_joins_only_a_clock_and_a_string_output_is_not_a_port() {
    let refused = |connections: Value| {
        let s = scenario("jacobi", connections);
        let e = scenario::parse(&s.to_string())
            .unwrap()
            .validate()
            .err()
            .expect("refused");
        (e.path.clone(), e.to_string())
    };
    let (path, msg) = refused(json!([
        { "from": "a.tick", "to": "b.trigger" },
        { "from": "b.ticks", "to": "a.trigger" }
    ]));
    assert_eq!(path, "connections[1].to");
    assert!(
        msg.contains("type mismatch: `b.ticks` is Int32 but `a.trigger` is Clock"),
        "{msg}"
    );
    let (path, msg) = refused(json!([
        { "from": "a.tick", "to": "b.trigger" },
        { "from": "b.status", "to": "a.trigger" }
    ]));
    assert_eq!(path, "connections[1].from");
    assert!(
        msg.contains("`b.status` is a String output")
            && msg.contains("only numbers and clocks can be connected"),
        "{msg}"
    );
}
