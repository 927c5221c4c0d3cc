//! SSP systems (System Structure and Parameterization 1.0 / 2.0): an `.ssp` archive holds
//! `SystemStructure.ssd`, the FMUs (usually under `resources/`) and optional `.ssv`
//! parameter sets. [`import`] maps one into a [`crate::scenario::Scenario`] of binary
//! modules (components, connections, parameter bindings, default experiment) and refuses,
//! by element and path, whatever a scenario cannot express. [`export_plan`] is the other
//! way: a scenario of binary modules as the parts of an `.ssp` (files, components with
//! their connectors, connections, parameters); the front end with an XML writer turns it
//! into text (the CLI, `cosim ssp export`), so core stays free of I/O and of a writer.
//!
//! What SSP has no words for (the master algorithm and its settings, the macro-step,
//! plots, layout, variants) travels in one annotation of the default experiment,
//! [`ANNOTATION_TYPE`], as the JSON of [`PlaygroundSettings`]; another tool ignores it.

mod export;
mod import;
mod values;
mod xml;

pub use export::{export_plan, ComponentPlan, ConnectorPlan, SspPlan};
pub use import::{import, DEFAULT_STEPS};

use crate::scenario::{AnalysisSpec, BondSpec, MasterSpec, VariantSpec};
use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;
use serde::{Deserialize, Serialize};

/// Namespace of `SystemStructure.ssd` (SSP 1.0 and 2.0 share it).
pub const NS_SSD: &str = "http://ssp-standard.org/SSP1/SystemStructureDescription";
/// Namespace of the common types (`ssc:Real`, `ssc:Annotation`, ...).
pub const NS_SSC: &str = "http://ssp-standard.org/SSP1/SystemStructureCommon";
/// Namespace of parameter sets (`.ssv` and inline `ssd:ParameterValues`).
pub const NS_SSV: &str = "http://ssp-standard.org/SSP1/SystemStructureParameterValues";
/// Namespace of parameter mappings (`.ssm`), refused on import.
pub const NS_SSM: &str = "http://ssp-standard.org/SSP1/SystemStructureParameterMapping";
/// Namespace of signal dictionaries (`.ssb`), refused on import.
pub const NS_SSB: &str = "http://ssp-standard.org/SSP1/SystemStructureSignalDictionary";
/// The `type` of the playground's own `ssc:Annotation`.
pub const ANNOTATION_TYPE: &str = "org.cosim-playground.scenario";
/// Namespace of the element inside that annotation (`<pg:Scenario>`, JSON text).
pub const NS_PLAYGROUND: &str = "https://cosim-playground.org/ssp/1";
/// The archive entry of the system structure.
pub const SSD_ENTRY: &str = "SystemStructure.ssd";

/// The scenario fields SSP cannot hold, carried in the [`ANNOTATION_TYPE`] annotation.
/// Every field is optional on import, so a hand-written annotation may give only
/// `{"master": {"algorithm": "jacobi", "macro_step": 1e-3}}`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlaygroundSettings {
    /// The master algorithm and its macro-step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub master: Option<MasterSpec>,
    /// Whether to compare with the monolithic reference.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<bool>,
    /// Outputs to plot.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub plot: Vec<String>,
    /// The analysis view.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub analysis: Option<AnalysisSpec>,
    /// The diagram's layout.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub layout: BTreeMap<String, [f64; 2]>,
    /// Pinned runs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub variants: Vec<VariantSpec>,
    /// Power bonds (docs/methods.md §13).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bonds: Vec<BondSpec>,
}

/// Why an `.ssp` cannot be read or a scenario cannot be written as one.
#[derive(Clone, Debug, PartialEq)]
pub struct SspError {
    /// The file inside the archive (`SystemStructure.ssd`, `resources/x.ssv`), or `scenario`
    /// on export; empty for the archive itself.
    pub file: String,
    /// Where in that file: an XPath-like element path such as
    /// `/ssd:SystemStructureDescription/ssd:System[@name='root']/ssd:Elements`, or the
    /// scenario's JSON path on export; empty for the whole file.
    pub element: String,
    /// What is wrong.
    pub message: String,
}

impl SspError {
    pub(crate) fn new(
        file: impl Into<String>,
        element: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        SspError {
            file: file.into(),
            element: element.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for SspError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.file.is_empty(), self.element.is_empty()) {
            (true, _) => write!(f, "{}", self.message),
            (false, true) => write!(f, "{}: {}", self.file, self.message),
            (false, false) => write!(f, "{} {}: {}", self.file, self.element, self.message),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for SspError {}

#[cfg(test)]
mod tests;
