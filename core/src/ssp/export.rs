//! A scenario of binary modules as the parts of an `.ssp`: the FMU files (one per distinct
//! archive, under `resources/`), one component per module with its inputs, outputs and
//! set parameters as Float64 connectors, the connections, the parameter values, the run
//! interval and the [`PlaygroundSettings`] JSON. Writing the XML is the front end's job
//! (`cosim ssp export` uses a writer crate); [`SspPlan::archive`] zips the result.

use super::{PlaygroundSettings, SspError, SSD_ENTRY};
use crate::fmu::archive::{write_stored, Archive};
use crate::fmu::model_description;
use crate::module::Causality;
use crate::scenario::{fmu_bytes, Scenario, BINARY_MODEL};
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

/// Everything an `SystemStructure.ssd` says, plus the files it refers to.
#[derive(Clone, Debug, PartialEq)]
pub struct SspPlan {
    /// `SystemStructureDescription@name` (the scenario's title, or `system`).
    pub name: String,
    /// `SystemStructureDescription@description`, empty for none.
    pub description: String,
    /// The FMUs: path inside the archive and bytes.
    pub files: Vec<(String, Vec<u8>)>,
    /// One component per module, in module order.
    pub components: Vec<ComponentPlan>,
    /// `(startElement, startConnector, endElement, endConnector)` per connection.
    pub connections: Vec<[String; 4]>,
    /// `DefaultExperiment@startTime`.
    pub start: f64,
    /// `DefaultExperiment@stopTime`.
    pub stop: f64,
    /// The JSON of [`PlaygroundSettings`] for the playground's annotation.
    pub settings_json: String,
}

/// One `ssd:Component`.
#[derive(Clone, Debug, PartialEq)]
pub struct ComponentPlan {
    /// The module's name.
    pub name: String,
    /// Its FMU inside the archive, e.g. `resources/rust_oscillator.fmu`.
    pub source: String,
    /// Inputs, outputs and the parameters the scenario sets, in declaration order.
    pub connectors: Vec<ConnectorPlan>,
    /// The scenario's parameter values (an inline parameter set).
    pub parameters: Vec<(String, f64)>,
}

/// One `ssd:Connector` of type `ssc:Real`.
#[derive(Clone, Debug, PartialEq)]
pub struct ConnectorPlan {
    /// Variable name.
    pub name: String,
    /// `input`, `output` or `parameter`.
    pub kind: &'static str,
    /// Unit, empty for none.
    pub unit: String,
}

/// The `.ssp` parts of `s`, whose binary modules carry their archives (`data:` URLs).
pub fn export_plan(s: &Scenario) -> Result<SspPlan, SspError> {
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    let mut components = Vec::new();
    for (i, m) in s.modules.iter().enumerate() {
        let at = |field: &str| format!("modules[{i}]{field}");
        if m.model != BINARY_MODEL {
            return Err(SspError::new(
                "scenario",
                at(".model"),
                format!(
                    "module `{}` is the built-in `{}`; only binary modules (FMUs) can go into an .ssp",
                    m.name, m.model
                ),
            ));
        }
        let bytes = fmu_bytes(m.source.as_deref().unwrap_or_default())
            .map_err(|e| SspError::new("scenario", at(".source"), e))?;
        let md = Archive::parse(&bytes)
            .and_then(|a| {
                a.read("modelDescription.xml")?.ok_or_else(|| {
                    crate::fmu::FmuError::Archive("no modelDescription.xml".to_string())
                })
            })
            .and_then(|x| model_description::parse(&String::from_utf8_lossy(&x)))
            .map_err(|e| SspError::new("scenario", at(".source"), e.to_string()))?;
        let source = match files.iter().find(|(_, b)| *b == bytes) {
            Some((path, _)) => path.clone(),
            None => {
                let mut path = format!("resources/{}.fmu", md.model_identifier);
                if files.iter().any(|(p, _)| *p == path) {
                    path = format!("resources/{}_{}.fmu", md.model_identifier, m.name);
                }
                files.push((path.clone(), bytes));
                path
            }
        };
        let connectors = md
            .module
            .variables
            .iter()
            .filter_map(|v| {
                let kind = match v.causality {
                    Causality::Input => "input",
                    Causality::Output => "output",
                    Causality::Parameter if m.parameters.contains_key(&v.name) => "parameter",
                    _ => return None,
                };
                Some(ConnectorPlan {
                    name: v.name.clone(),
                    kind,
                    unit: v.unit.clone(),
                })
            })
            .collect();
        components.push(ComponentPlan {
            name: m.name.clone(),
            source,
            connectors,
            parameters: m.parameters.iter().map(|(k, v)| (k.clone(), *v)).collect(),
        });
    }
    let mut connections = Vec::new();
    for (i, c) in s.connections.iter().enumerate() {
        let split = |port: &str, field: &str| {
            port.split_once('.')
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .ok_or_else(|| {
                    SspError::new(
                        "scenario",
                        format!("connections[{i}].{field}"),
                        format!("`{port}` is not `module.variable`"),
                    )
                })
        };
        let (from, to) = (split(&c.from, "from")?, split(&c.to, "to")?);
        connections.push([from.0, from.1, to.0, to.1]);
    }
    let settings = PlaygroundSettings {
        master: Some(s.master.clone()),
        reference: Some(s.reference),
        plot: s.plot.clone(),
        analysis: s.analysis.clone(),
        layout: s.layout.clone(),
        bonds: s.bonds.clone(),
        variants: s.variants.clone(),
    };
    Ok(SspPlan {
        name: if s.title.is_empty() {
            "system".into()
        } else {
            s.title.clone()
        },
        description: s.description.clone(),
        files,
        components,
        connections,
        start: s.run.start,
        stop: s.run.stop,
        // Serialising plain data into a String cannot fail.
        settings_json: serde_json::to_string(&settings).unwrap_or_default(),
    })
}

impl SspPlan {
    /// The `.ssp` archive: `ssd` (the XML text of the plan) and the FMUs, stored.
    pub fn archive(&self, ssd: &str) -> Vec<u8> {
        let mut entries: Vec<(&str, &[u8])> = alloc::vec![(SSD_ENTRY, ssd.as_bytes())];
        entries.extend(self.files.iter().map(|(p, b)| (p.as_str(), b.as_slice())));
        write_stored(&entries)
    }
}
