//! Built-in scenarios, kept as data in `core/presets/`: one scenario document per preset,
//! `<id>.json`, exactly what `cosim preset ID` prints, and `index.json`, which lists the ids
//! in picker order, grouped by topic, each with its "try this next" suggestion (kept apart
//! because the scenario format refuses unknown fields and a shared link carries the
//! scenario only). The files are embedded at build time and parsed when asked for;
//! `presets/tests.rs` checks that every one parses, validates and runs, and
//! `presets/what_they_show.rs` that each shows what its description says.

use super::parse::parse;
use super::schema::Scenario;
use alloc::string::String;
use alloc::vec::Vec;
use serde::Deserialize;

#[cfg(test)]
mod energy_benchmarks;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod what_they_show;

/// A named built-in scenario.
#[derive(Clone, Debug)]
pub struct Preset {
    /// Identifier used by `cosim preset ID`, the page's picker and links (`#preset=ID`).
    pub id: &'static str,
    /// Group in the page's picker, e.g. [`TOPIC_TWO_MASS`]; presets of one topic are listed
    /// together, in the order of [`presets`].
    pub topic: &'static str,
    /// What to change next and what to look for, one or two sentences of plain text
    /// (not part of the scenario JSON: a shared link carries the scenario only).
    pub try_next: String,
    /// The scenario.
    pub scenario: Scenario,
}

/// Topic of the linear two-mass oscillator presets (seed 000).
pub const TOPIC_TWO_MASS: &str = "Two-mass oscillator (linear, seed 000)";

/// `(id, scenario JSON)` of `core/presets/<id>.json`, so a file's name is its id.
macro_rules! embed {
    ($($id:literal),* $(,)?) => {
        [$(($id, include_str!(concat!("../../presets/", $id, ".json")))),*]
    };
}

/// Every preset file (alphabetical; `index.json` gives the order).
const FILES: [(&str, &str); 55] = embed![
    "analysis-accuracy-map",
    "analysis-convergence",
    "analysis-rho-versus-step",
    "analysis-stability-map",
    "binary-c-spring-damper",
    "binary-rust-oscillator",
    "chain-1000-masses",
    "chain-10000-masses",
    "contact-oscillator-ex-local",
    "contact-oscillator-ex-milne",
    "contact-oscillator-ex-s-local",
    "contact-oscillator-im-milne",
    "contact-oscillator-im-s-local",
    "contact-oscillator-order-control",
    "defect-controlled",
    "defect-exact-variable-step",
    "defect-fixed-step",
    "energy-crane-corrected",
    "energy-crane-uncorrected",
    "energy-multiple-3",
    "energy-multiple-5",
    "energy-nonlinear-cap-unlimited",
    "energy-nonlinear-damped",
    "energy-nonlinear-nu-0",
    "energy-nonlinear-nu-010",
    "energy-nonlinear-nu-025",
    "energy-nonlinear-nu-050",
    "energy-nonlinear-uncorrected",
    "energy-oscillator-corrected",
    "energy-oscillator-damped",
    "energy-oscillator-df-fast-foh",
    "energy-oscillator-drift",
    "energy-oscillator-light-receiver",
    "energy-oscillator-multirate-corrected",
    "energy-oscillator-multirate-zoh",
    "energy-pendula-corrected",
    "energy-pendula-uncorrected",
    "equation-module-mass1",
    "mass-chain-explicit-high-damping",
    "mass-chain-explicit-low-damping",
    "mass-chain-implicit-high-damping",
    "mass-chain-implicit-low-damping",
    "nonlinear-soh-corrected",
    "nonlinear-zoh",
    "nonlinear-zoh-corrected",
    "reference-bouncing-ball",
    "reference-dahlquist-macro-step",
    "reference-feedthrough",
    "reference-stair",
    "reference-state-space",
    "reference-van-der-pol",
    "two-mass-corrected",
    "two-mass-gauss-seidel",
    "two-mass-oscillator",
    "two-mass-rk4",
];

const INDEX: &str = include_str!("../../presets/index.json");

/// One topic of `index.json`. Ids and topics are borrowed from the embedded text, which
/// is why they may not contain JSON escapes.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Topic<'a> {
    topic: &'a str,
    #[serde(borrow)]
    presets: Vec<Entry<'a>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry<'a> {
    id: &'a str,
    try_next: String,
}

// The embedded files are fixed at build time and every one is parsed by
// `presets/tests.rs`, so a failure below is a build defect, never bad input.
fn index() -> Vec<Topic<'static>> {
    serde_json::from_str(INDEX).unwrap_or_else(|e| panic!("core/presets/index.json: {e}"))
}

fn embedded(id: &str) -> Option<Scenario> {
    let (_, json) = FILES.iter().find(|(name, _)| *name == id)?;
    Some(parse(json).unwrap_or_else(|e| panic!("core/presets/{id}.json: {e}")))
}

/// All built-in presets; the first is the page's default.
pub fn presets() -> Vec<Preset> {
    let mut out = Vec::new();
    for group in index() {
        for entry in group.presets {
            out.push(Preset {
                id: entry.id,
                topic: group.topic,
                try_next: entry.try_next,
                scenario: embedded(entry.id)
                    .unwrap_or_else(|| panic!("index.json lists `{}`, no file", entry.id)),
            });
        }
    }
    out
}

/// The preset with this id.
pub fn preset(id: &str) -> Option<Scenario> {
    embedded(id)
}
