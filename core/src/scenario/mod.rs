//! The scenario format (JSON) as data: the document ([`Scenario`]), parsing, validation
//! into a [`ValidatedScenario`] with JSON-path errors, presets and share links. Turning a
//! scenario into running modules is the job of the layer above, the composition root
//! (`simulation/`).

mod binary;
mod chain;
mod link;
mod parse;
mod presets;
mod schema;
mod validate;

pub use crate::time::MAX_MACRO_STEPS;
#[cfg(feature = "binary-modules")]
pub(crate) use binary::load as load_binary;
#[cfg(feature = "binary-modules")]
pub use binary::{data_url, fmu_bytes};
#[cfg(feature = "binary-modules")]
pub use binary::{declared_parameters, not_connectable};
pub use binary::{is_embedded, BINARY_MODEL};
pub use chain::{
    CHAIN_PARAMETERS, DEFAULT_RECORDED_CUTS, MAX_CHAIN_MASSES, MAX_SEGMENT_MASSES,
    PAGE_CHAIN_MASSES,
};
pub use link::{
    decode_link, decode_link_json, encode_link, LINK_VERSION, MAX_LINK_CHARS, MAX_LINK_JSON_BYTES,
};
pub use parse::{parse, to_json, MAX_SCENARIO_BYTES};
pub use presets::{preset, presets, Preset, TOPIC_TWO_MASS};
pub use schema::*;
pub use validate::{
    whole_steps_needed, ValidatedScenario, MAX_EXTRAPOLATION_ORDER, MAX_PARAMETER_MAGNITUDE,
};
