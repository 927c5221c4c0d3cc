//! Checks on the embedded preset files: each is listed once, named for its id, in the
//! form `cosim preset` prints, and validates and runs; where a preset stands for a constant
//! of the code (the example equations, the binary model, a topic), the data agrees with it.

use super::*;
use crate::models::equations::{EQUATIONS_ID, EXAMPLE_SOURCE};
use crate::models::reference_fmus::{
    BOUNCING_BALL_ID, DAHLQUIST_ID, FEEDTHROUGH_ID, STAIR_ID, STATE_SPACE_ID, VAN_DER_POL_ID,
};
use crate::scenario::{to_json, BINARY_MODEL};
use crate::simulation::Simulation;
use alloc::collections::BTreeSet;
use alloc::format;
use alloc::vec;

extern crate std;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/presets");

fn ids() -> Vec<&'static str> {
    presets().iter().map(|p| p.id).collect()
}

#[test]
fn every_file_is_listed_once_and_named_for_its_id() {
    let listed = ids();
    let unique: BTreeSet<&str> = listed.iter().copied().collect();
    assert_eq!(
        unique.len(),
        listed.len(),
        "an id is listed twice: {listed:?}"
    );
    let embedded: BTreeSet<&str> = FILES.iter().map(|(id, _)| *id).collect();
    assert_eq!(embedded.len(), FILES.len(), "a file is embedded twice");
    assert_eq!(unique, embedded, "index.json and the embedded files differ");
    // No file in the folder is left out of the build.
    let mut on_disk = BTreeSet::new();
    for entry in std::fs::read_dir(DIR).expect("core/presets") {
        let name = entry
            .expect("entry")
            .file_name()
            .into_string()
            .expect("utf-8");
        if let Some(id) = name.strip_suffix(".json").filter(|id| *id != "index") {
            on_disk.insert(String::from(id));
        }
    }
    let embedded: BTreeSet<String> = embedded.into_iter().map(String::from).collect();
    assert_eq!(
        on_disk, embedded,
        "files in core/presets that are not embedded"
    );
}

/// `cosim preset ID` prints `to_json` and a newline: that is the file, byte for byte.
#[test]
fn every_file_is_in_the_form_cosim_preset_prints() {
    for (id, json) in FILES {
        let scenario = preset(id).expect(id);
        assert_eq!(format!("{}\n", to_json(&scenario)), json, "{id}");
    }
}

/// Binary modules stand for a half of the two-mass oscillator; core cannot read their
/// `.fmu`, so the built-in half takes its place.
fn with_built_in_halves(mut s: Scenario) -> Scenario {
    for m in s.modules.iter_mut().filter(|m| m.model == BINARY_MODEL) {
        m.model = match m.name.as_str() {
            "mass1" => "TwoMassOscillator.Mass1".into(),
            _ => "TwoMassOscillator.Mass2".into(),
        };
        m.source = None;
    }
    s
}

#[test]
fn every_preset_validates_and_runs_a_few_steps() {
    for p in presets() {
        let sentences = p.scenario.description.matches(". ").count() + 1;
        assert!(
            (3..=6).contains(&sentences),
            "{}: {sentences} sentences",
            p.id
        );
        assert!(!p.try_next.is_empty() && !p.topic.is_empty(), "{}", p.id);
        let v = with_built_in_halves(p.scenario)
            .validate()
            .unwrap_or_else(|e| panic!("{}: {e}", p.id));
        let mut sim = Simulation::new(&v).unwrap_or_else(|e| panic!("{}: {e}", p.id));
        sim.advance(3).unwrap_or_else(|e| panic!("{}: {e}", p.id));
        assert_eq!(sim.steps_done(), 3, "{}", p.id);
        let signals = &sim.result().signals;
        assert!(!signals.is_empty(), "{}", p.id);
        assert!(
            signals
                .iter()
                .all(|s| s.cosim.iter().all(|y| y.is_finite())),
            "{}",
            p.id
        );
    }
}

#[test]
fn topics_are_contiguous_and_the_default_is_the_two_mass_oscillator() {
    let all = presets();
    assert_eq!(all[0].id, "two-mass-oscillator");
    assert_eq!(all[0].topic, TOPIC_TWO_MASS);
    let mut seen: Vec<&str> = Vec::new();
    for p in &all {
        if seen.last() != Some(&p.topic) {
            assert!(!seen.contains(&p.topic), "topic `{}` split", p.topic);
            seen.push(p.topic);
        }
    }
    assert_eq!(seen.len(), 11, "{seen:?}");
}

#[test]
fn the_equation_preset_carries_the_example_source() {
    let s = preset("equation-module-mass1").expect("preset");
    assert_eq!(s.modules[0].model, EQUATIONS_ID);
    assert_eq!(s.modules[0].source.as_deref(), Some(EXAMPLE_SOURCE));
}

/// The page fetches `fmus/NAME.fmu`, which `cargo xtask wasm` builds from
/// `examples/fmus/NAME`.
#[test]
fn binary_presets_name_the_example_fmus_and_hold_their_inputs() {
    for (id, name) in [
        ("binary-rust-oscillator", "rust_oscillator"),
        ("binary-c-spring-damper", "c_spring_damper"),
    ] {
        let s = preset(id).expect(id);
        assert_eq!(s.binary_urls(), vec![format!("fmus/{name}.fmu")], "{id}");
        assert_eq!(
            s.modules.iter().filter(|m| m.model == BINARY_MODEL).count(),
            1,
            "{id}"
        );
        let example = format!("{}/../examples/fmus/{name}", env!("CARGO_MANIFEST_DIR"));
        assert!(std::path::Path::new(&example).is_dir(), "{example}");
        // FMI 3.0 has no input derivatives, so binary modules take held inputs (ZOH), and a
        // black box has no exact monolithic reference.
        assert_eq!(s.master.extrapolation_order, 0, "{id}");
        assert!(!s.reference, "{id}");
    }
}

#[test]
fn reference_presets_use_every_reference_fmu() {
    let used: BTreeSet<String> = presets()
        .into_iter()
        .filter(|p| p.id.starts_with("reference-"))
        .flat_map(|p| p.scenario.modules.into_iter().map(|m| m.model))
        .collect();
    let all = [
        BOUNCING_BALL_ID,
        DAHLQUIST_ID,
        FEEDTHROUGH_ID,
        STAIR_ID,
        STATE_SPACE_ID,
        VAN_DER_POL_ID,
    ];
    let all: BTreeSet<String> = all.into_iter().map(String::from).collect();
    assert_eq!(used, all);
}
