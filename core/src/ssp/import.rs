//! `.ssp` into a scenario. One flat system of FMU components: each component becomes a
//! binary module carrying its FMU (a `data:` URL), each connection a scenario connection,
//! each Float64 parameter value a module parameter; the default experiment gives the run.
//! Parameter bindings are read in `values.rs`.

use super::values::supported_version;
use super::xml::{children, double, error_at, is, parse_document, refuse, required};
use super::{PlaygroundSettings, SspError, ANNOTATION_TYPE, NS_SSC, NS_SSD, SSD_ENTRY};
use crate::fmu::archive::Archive;
use crate::scenario::{
    data_url, Algorithm, ConnectionSpec, MasterSpec, ModuleSpec, RunSpec, Scenario, StartUp,
    BINARY_MODEL, SCHEMA_VERSION,
};
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use roxmltree::Node;

/// Without a macro-step in the playground's annotation or a `stepSize` in any FMU's
/// default experiment, the run takes this many macro-steps.
pub const DEFAULT_STEPS: u32 = 1000;

const FMU_TYPE: &str = "application/x-fmu-sharedlibrary";

/// A declared connector: its kind and unit.
struct Connector {
    kind: String,
    unit: Option<String>,
}

pub(super) struct Importer<'a> {
    pub(super) archive: Archive<'a>,
    pub(super) modules: Vec<ModuleSpec>,
    connectors: BTreeMap<(String, String), Connector>,
    /// The FMUs' own default experiments: smallest `stepSize`, largest `stopTime`.
    fmu_step: Option<f64>,
    fmu_stop: Option<f64>,
}

/// The scenario of an `.ssp` archive (its bytes).
pub fn import(ssp: &[u8]) -> Result<Scenario, SspError> {
    let archive = Archive::parse(ssp)
        .map_err(|e| SspError::new("", "", format!("not a readable .ssp archive: {e}")))?;
    let text = read_text(&archive, SSD_ENTRY, "")?.ok_or_else(|| {
        SspError::new(
            "",
            "",
            format!("the archive has no `{SSD_ENTRY}` at its root (is it an .ssp?)"),
        )
    })?;
    let doc = parse_document(SSD_ENTRY, &text)?;
    let root = doc.root_element();
    if !is(root, NS_SSD, "SystemStructureDescription") {
        return Err(error_at(
            SSD_ENTRY,
            root,
            "the root must be `ssd:SystemStructureDescription` in the SSP1 namespace",
        ));
    }
    let version = required(SSD_ENTRY, root, "version")?;
    if !supported_version(version) {
        return Err(error_at(
            SSD_ENTRY,
            root,
            format!("SSP version `{version}` is not supported (1.0 and 2.0 are)"),
        ));
    }
    let (mut system, mut experiment) = (None, None);
    for child in children(root) {
        match child.tag_name().name() {
            "System" if is(child, NS_SSD, "System") => system = Some(child),
            "DefaultExperiment" if is(child, NS_SSD, "DefaultExperiment") => {
                experiment = Some(child)
            }
            // Declarations and descriptions: nothing to run.
            "Enumerations" | "Units" | "MetaData" | "Signature" | "Annotations" => {}
            _ => return Err(refuse(SSD_ENTRY, child, "unknown content of the SSD")),
        }
    }
    let system = system.ok_or_else(|| error_at(SSD_ENTRY, root, "has no `ssd:System`"))?;
    let mut importer = Importer {
        archive,
        modules: Vec::new(),
        connectors: BTreeMap::new(),
        fmu_step: None,
        fmu_stop: None,
    };
    let connections = importer.system(system)?;
    let (run, settings) = importer.experiment(experiment)?;
    let master = match settings.master {
        Some(m) => m,
        None => default_master(
            importer
                .fmu_step
                .unwrap_or((run.stop - run.start) / f64::from(DEFAULT_STEPS)),
        ),
    };
    Ok(Scenario {
        schema_version: SCHEMA_VERSION,
        title: root.attribute("name").unwrap_or_default().to_string(),
        description: root
            .attribute("description")
            .unwrap_or_default()
            .to_string(),
        modules: importer.modules,
        connections,
        master,
        run,
        reference: settings.reference.unwrap_or(false),
        plot: settings.plot,
        analysis: settings.analysis,
        layout: settings.layout,
        variants: settings.variants,
        bonds: settings.bonds,
        chain: None,
    })
}

fn default_master(macro_step: f64) -> MasterSpec {
    MasterSpec {
        algorithm: Algorithm::Jacobi,
        macro_step,
        extrapolation_order: 0,
        sequence: Vec::new(),
        start_up: StartUp::RampUp,
        correction: None,
        defects: None,
        step_control: None,
        module_steps: Default::default(),
        energy_correction: None,
    }
}

/// An entry of the archive as UTF-8 text; `source` is the path as the SSD wrote it.
pub(super) fn read_text(
    archive: &Archive,
    source: &str,
    from: &str,
) -> Result<Option<String>, SspError> {
    let name = source.strip_prefix("./").unwrap_or(source);
    let bytes = archive
        .read(name)
        .map_err(|e| SspError::new(from, "", e.to_string()))?;
    bytes
        .map(|b| {
            String::from_utf8(b)
                .map_err(|_| SspError::new(name, "", "is not UTF-8 text".to_string()))
        })
        .transpose()
}

/// Whether a `source` names a file inside the archive (a relative path, no URI scheme).
pub(super) fn inside_archive(source: &str) -> bool {
    !source.contains(':') && !source.starts_with('/') && !source.split('/').any(|p| p == "..")
}

impl Importer<'_> {
    /// The system's elements, bindings and connections.
    fn system(&mut self, system: Node) -> Result<Vec<ConnectionSpec>, SspError> {
        let (mut elements, mut bindings, mut connections) = (None, None, None);
        for child in children(system) {
            match child.tag_name().name() {
                "Elements" if is(child, NS_SSD, "Elements") => elements = Some(child),
                "ParameterBindings" if is(child, NS_SSD, "ParameterBindings") => {
                    bindings = Some(child)
                }
                "Connections" if is(child, NS_SSD, "Connections") => connections = Some(child),
                // The system's own connectors only matter if a connection uses them
                // (refused there); geometry and annotations are presentation.
                "Connectors" | "ElementGeometry" | "SystemGeometry" | "GraphicalElements"
                | "Annotations" => {}
                "SignalDictionaries" => {
                    return Err(refuse(
                        SSD_ENTRY,
                        child,
                        "signal dictionaries have no counterpart in a scenario",
                    ))
                }
                _ => return Err(refuse(SSD_ENTRY, child, "unknown content of a system")),
            }
        }
        for element in elements.into_iter().flat_map(children) {
            match element.tag_name().name() {
                "Component" if is(element, NS_SSD, "Component") => self.component(element)?,
                "System" => {
                    return Err(refuse(
                        SSD_ENTRY,
                        element,
                        "nested systems: a scenario is one flat system of modules",
                    ))
                }
                "SignalDictionaryReference" => {
                    return Err(refuse(
                        SSD_ENTRY,
                        element,
                        "signal dictionaries have no counterpart in a scenario",
                    ))
                }
                _ => return Err(refuse(SSD_ENTRY, element, "unknown element of a system")),
            }
        }
        if let Some(b) = bindings {
            self.bindings(b, None)?;
        }
        connections
            .into_iter()
            .flat_map(children)
            .map(|c| self.connection(c))
            .collect()
    }

    fn component(&mut self, node: Node) -> Result<(), SspError> {
        let name = required(SSD_ENTRY, node, "name")?.to_string();
        if self.modules.iter().any(|m| m.name == name) {
            return Err(error_at(
                SSD_ENTRY,
                node,
                format!("a second component named `{name}`"),
            ));
        }
        if let Some(t) = node.attribute("type").filter(|t| *t != FMU_TYPE) {
            return Err(error_at(
                SSD_ENTRY,
                node,
                format!(
                    "component type `{t}` is not supported: only FMUs ({FMU_TYPE}) become \
                     modules (a referenced .ssd or .ssp would be a nested system)"
                ),
            ));
        }
        if let Some(i) = node
            .attribute("implementation")
            .filter(|i| !matches!(*i, "any" | "CoSimulation"))
        {
            return Err(error_at(
                SSD_ENTRY,
                node,
                format!("implementation `{i}` is not supported: modules run as co-simulation FMUs"),
            ));
        }
        let source = required(SSD_ENTRY, node, "source")?;
        if !inside_archive(source) {
            return Err(error_at(
                SSD_ENTRY,
                node,
                format!("source `{source}` must be a relative path inside the archive"),
            ));
        }
        let file = source.strip_prefix("./").unwrap_or(source);
        let bytes = self
            .archive
            .read(file)
            .map_err(|e| error_at(SSD_ENTRY, node, e.to_string()))?
            .ok_or_else(|| {
                error_at(
                    SSD_ENTRY,
                    node,
                    format!("source `{source}` is not in the archive"),
                )
            })?;
        self.note_fmu_experiment(&bytes);
        self.modules.push(ModuleSpec {
            name: name.clone(),
            model: BINARY_MODEL.into(),
            source: Some(data_url(&bytes)),
            ..Default::default()
        });
        let mut bindings = None;
        for child in children(node) {
            match child.tag_name().name() {
                "Connectors" if is(child, NS_SSD, "Connectors") => {
                    for c in children(child) {
                        self.connector(&name, c)?;
                    }
                }
                "ParameterBindings" if is(child, NS_SSD, "ParameterBindings") => {
                    bindings = Some(child)
                }
                "ElementGeometry" | "Annotations" => {}
                _ => return Err(refuse(SSD_ENTRY, child, "unknown content of a component")),
            }
        }
        match bindings {
            Some(b) => self.bindings(b, Some(&name)),
            None => Ok(()),
        }
    }

    /// Reads `stepSize` and `stopTime` of the FMU's own default experiment; a broken FMU
    /// is left to the scenario's validation, which names the module.
    fn note_fmu_experiment(&mut self, fmu: &[u8]) {
        let Some(xml) = Archive::parse(fmu)
            .ok()
            .and_then(|a| a.read("modelDescription.xml").ok().flatten())
            .and_then(|b| String::from_utf8(b).ok())
        else {
            return;
        };
        let Ok(doc) = roxmltree::Document::parse(&xml) else {
            return;
        };
        let Some(exp) = children(doc.root_element()).find(|n| n.has_tag_name("DefaultExperiment"))
        else {
            return;
        };
        let number = |a: &str| exp.attribute(a).and_then(|v| v.trim().parse::<f64>().ok());
        if let Some(h) = number("stepSize").filter(|h| *h > 0.0 && h.is_finite()) {
            self.fmu_step = Some(self.fmu_step.map_or(h, |s| s.min(h)));
        }
        if let Some(t) = number("stopTime").filter(|t| t.is_finite()) {
            self.fmu_stop = Some(self.fmu_stop.map_or(t, |s| s.max(t)));
        }
    }

    fn connector(&mut self, component: &str, node: Node) -> Result<(), SspError> {
        if !is(node, NS_SSD, "Connector") {
            return Err(refuse(
                SSD_ENTRY,
                node,
                "`ssd:Connectors` lists `ssd:Connector`s",
            ));
        }
        let name = required(SSD_ENTRY, node, "name")?;
        let kind = required(SSD_ENTRY, node, "kind")?;
        if !matches!(kind, "input" | "output" | "parameter") {
            return Err(error_at(
                SSD_ENTRY,
                node,
                format!(
                    "connector `{name}` of kind `{kind}` is not supported: modules have inputs, \
                     outputs and parameters"
                ),
            ));
        }
        let mut unit = None;
        for child in children(node) {
            let local = child.tag_name().name();
            if is(child, NS_SSC, "Real") || is(child, NS_SSC, "Float64") {
                unit = child.attribute("unit").map(String::from);
            } else if matches!(local, "ConnectorGeometry" | "Annotations" | "Description") {
            } else if child.tag_name().namespace() == Some(NS_SSC) {
                return Err(refuse(
                    SSD_ENTRY,
                    child,
                    &format!(
                        "connector `{name}` is of type {local}; connections carry Float64 \
                         (ssc:Real or ssc:Float64)"
                    ),
                ));
            } else {
                return Err(refuse(SSD_ENTRY, child, "unknown content of a connector"));
            }
        }
        self.connectors.insert(
            (component.to_string(), name.to_string()),
            Connector {
                kind: kind.to_string(),
                unit,
            },
        );
        Ok(())
    }

    fn connection(&self, node: Node) -> Result<ConnectionSpec, SspError> {
        if !is(node, NS_SSD, "Connection") {
            return Err(refuse(
                SSD_ENTRY,
                node,
                "`ssd:Connections` lists connections",
            ));
        }
        for child in children(node) {
            match child.tag_name().name() {
                "ConnectionGeometry" | "Annotations" => {}
                "LinearTransformation"
                | "BooleanMappingTransformation"
                | "IntegerMappingTransformation"
                | "EnumerationMappingTransformation" => {
                    return Err(refuse(
                        SSD_ENTRY,
                        child,
                        "transformations and unit conversions on a connection: a scenario \
                         passes each output unchanged",
                    ))
                }
                _ => return Err(refuse(SSD_ENTRY, child, "unknown content of a connection")),
            }
        }
        let end = |element: &str, connector: &str| -> Result<(String, String), SspError> {
            let Some(e) = node.attribute(element) else {
                return Err(error_at(
                    SSD_ENTRY,
                    node,
                    format!(
                        "a connection without `{element}` uses the system's own connector; a \
                         scenario has no system inputs or outputs"
                    ),
                ));
            };
            if !self.modules.iter().any(|m| m.name == e) {
                return Err(error_at(
                    SSD_ENTRY,
                    node,
                    format!("`{element}` = `{e}` names no component"),
                ));
            }
            Ok((
                e.to_string(),
                required(SSD_ENTRY, node, connector)?.to_string(),
            ))
        };
        let mut from = end("startElement", "startConnector")?;
        let mut to = end("endElement", "endConnector")?;
        let kind = |k: &(String, String)| self.connectors.get(k).map(|c| c.kind.as_str());
        if kind(&from) == Some("parameter") || kind(&to) == Some("parameter") {
            return Err(error_at(
                SSD_ENTRY,
                node,
                "connections of parameters are not supported: connections join outputs to inputs",
            ));
        }
        // SSP connections are undirected in the XML; the declared kinds say which end feeds.
        if kind(&from) == Some("input") && kind(&to) == Some("output") {
            core::mem::swap(&mut from, &mut to);
        }
        let unit = |k: &(String, String)| self.connectors.get(k).and_then(|c| c.unit.clone());
        if let (Some(a), Some(b)) = (unit(&from), unit(&to)) {
            if a != b && node.attribute("suppressUnitConversion") != Some("true") {
                return Err(error_at(
                    SSD_ENTRY,
                    node,
                    format!(
                        "connecting `{}` in {a} to `{}` in {b} needs a unit conversion, which a \
                         scenario does not do",
                        qualified_port(&from),
                        qualified_port(&to)
                    ),
                ));
            }
        }
        Ok(ConnectionSpec {
            from: qualified_port(&from),
            to: qualified_port(&to),
        })
    }

    /// The run interval and the playground's settings from `ssd:DefaultExperiment`.
    fn experiment(&self, node: Option<Node>) -> Result<(RunSpec, PlaygroundSettings), SspError> {
        let mut settings = PlaygroundSettings::default();
        let (mut start, mut stop) = (None, None);
        if let Some(exp) = node {
            start = double(SSD_ENTRY, exp, "startTime")?;
            stop = double(SSD_ENTRY, exp, "stopTime")?;
            for a in children(exp).filter(|n| n.tag_name().name() == "Annotations") {
                for ann in children(a) {
                    if is(ann, NS_SSC, "Annotation")
                        && ann.attribute("type") == Some(ANNOTATION_TYPE)
                    {
                        settings = playground_settings(ann)?;
                    }
                }
            }
        }
        let stop = stop.or(self.fmu_stop).ok_or_else(|| {
            SspError::new(
                SSD_ENTRY,
                "/ssd:SystemStructureDescription",
                "no stop time: add <ssd:DefaultExperiment stopTime=\"…\"/>",
            )
        })?;
        Ok((
            RunSpec {
                start: start.unwrap_or(0.0),
                stop,
            },
            settings,
        ))
    }
}

fn qualified_port((module, variable): &(String, String)) -> String {
    format!("{module}.{variable}")
}

/// The JSON text of the element inside the playground's annotation.
fn playground_settings(ann: Node) -> Result<PlaygroundSettings, SspError> {
    let text: String = children(ann)
        .flat_map(|e| e.children())
        .filter_map(|n| n.text())
        .collect();
    serde_json::from_str(text.trim()).map_err(|e| {
        error_at(
            SSD_ENTRY,
            ann,
            format!("the {ANNOTATION_TYPE} annotation is not valid settings JSON: {e}"),
        )
    })
}
