//! The scenario format (JSON), its validation, presets and the high-level `Simulation`
//! that the CLI and the page's worker drive.

mod parse;
mod presets;
mod schema;

pub use parse::{parse, to_json, MAX_SCENARIO_BYTES};
pub use presets::{preset, presets, Preset};
pub use schema::*;
