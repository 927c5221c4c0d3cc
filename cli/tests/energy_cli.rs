//! `cosim energy` and the energy columns of `cosim run` on the double-oscillator presets:
//! key=value lines for scripts, per-bond and total dP/dE columns and E; a scenario without
//! bonds is refused with a message.

use std::process::{Command, Output};

fn cosim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cosim"))
        .args(args)
        .output()
        .expect("cosim runs")
}

fn preset_file(id: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("cosim-energy-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let out = cosim(&["preset", id]);
    assert!(out.status.success());
    let path = dir.join(format!("{id}.json"));
    std::fs::write(&path, &out.stdout).expect("written");
    path
}

fn values(stdout: &[u8]) -> std::collections::BTreeMap<String, f64> {
    String::from_utf8_lossy(stdout)
        .lines()
        .map(|l| {
            let (k, v) = l.split_once('=').expect("key=value");
            (k.to_string(), v.parse().expect("a number"))
        })
        .collect()
}

#[test]
fn energy_prints_mean_dp_de_and_the_energy_ratio() {
    let path = preset_file("energy-oscillator-drift");
    let out = cosim(&["energy", path.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = values(&out.stdout);
    assert!(v["mean_dP"] > 0.0);
    assert_eq!(v["bond.m2.F.dE_T"], v["dE_T"]);
    assert_eq!(v["E0"], 1e4);
    assert!((v["E_T/E0"] - v["E_T"] / v["E0"]).abs() < 1e-12);
    assert!((v["E_T/E0"] - 1.69).abs() < 0.01, "{v:?}");
    assert!((v["E_ref_T/E0"] - 1.0).abs() < 1e-6);
}

#[test]
fn run_writes_dp_de_per_bond_and_in_total_and_e() {
    let path = preset_file("energy-oscillator-multirate-corrected");
    let out = cosim(&["run", path.to_str().unwrap()]);
    assert!(out.status.success());
    let csv = String::from_utf8_lossy(&out.stdout);
    let header: Vec<&str> = csv.lines().next().expect("header").split(',').collect();
    let tail = &header[header.len() - 6..];
    assert_eq!(tail, ["dP.m2.F", "dE.m2.F", "dP", "dE", "E", "E:reference"]);
    assert_eq!(csv.lines().count(), 10_002);
}

#[test]
fn energy_without_bonds_is_refused() {
    let path = preset_file("two-mass-oscillator");
    let out = cosim(&["energy", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("bonds"));
}
