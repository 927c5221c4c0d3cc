//! The scenario format (JSON), its validation, presets and the high-level [`Simulation`]
//! that the CLI and the page's worker drive.

mod binary;
mod build;
mod link;
mod parse;
mod presets;
mod schema;
mod simulation;
mod validate;

pub use crate::time::MAX_MACRO_STEPS;
#[cfg(feature = "binary-modules")]
pub use binary::{data_url, fmu_bytes};
pub use binary::{is_embedded, BINARY_MODEL};
pub use build::build_module;
pub use link::{
    decode_link, decode_link_json, encode_link, LINK_VERSION, MAX_LINK_CHARS, MAX_LINK_JSON_BYTES,
};
pub use parse::{parse, to_json, MAX_SCENARIO_BYTES};
pub use presets::{preset, presets, Preset, TOPIC_TWO_MASS};
pub use schema::*;
pub use simulation::{summary, Signal, Simulation, SimulationResult};
pub use validate::{ValidatedScenario, MAX_EXTRAPOLATION_ORDER};
