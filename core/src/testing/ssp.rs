//! Hand-written SSP archives of the two example FMUs (`tests/fixtures/fmus`): mass 1 the
//! Rust oscillator, mass 2 the C spring-damper, connected both ways, with an optional `.ssv`
//! parameter set and inline parameter values. The SSP import tests of the core and the
//! CLI's tests build their systems here, varying the version, the connections and the
//! default experiment.

use crate::fmu::archive::write_stored;
use crate::ssp::SSD_ENTRY;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// The Rust example FMU (mass 1).
pub const RUST_FMU: &[u8] = include_bytes!("../../../tests/fixtures/fmus/rust_oscillator.fmu");
/// The C example FMU (mass 2).
pub const C_FMU: &[u8] = include_bytes!("../../../tests/fixtures/fmus/c_spring_damper.fmu");

/// A two-mass system as `SystemStructure.ssd` text and, with [`Self::archive`], as an `.ssp`.
#[derive(Clone, Debug)]
pub struct TwoMasses {
    /// SSP version on the documents; `"1.0"` writes connector types as `ssc:Real`, any
    /// other as `ssc:Float64`.
    pub version: &'static str,
    /// Name of the system's parameter set `resources/NAME.ssv`, bound at the system; `None`:
    /// no binding.
    pub parameter_set: Option<&'static str>,
    /// Mass 1's inline parameter values `(name, value)`, as an inline `ssv:ParameterSet`.
    pub inline: &'static [(&'static str, &'static str)],
    /// Connections `[startElement, startConnector, endElement, endConnector]`.
    pub connections: &'static [[&'static str; 4]],
    /// What follows `</ssd:System>`: the default experiment and the document's end.
    pub experiment: String,
}

impl TwoMasses {
    /// Both masses' outputs to the other's inputs, output first.
    pub const CONNECTIONS: &'static [[&'static str; 4]] = &[
        ["mass2", "Fk", "mass1", "Fk"],
        ["mass1", "s1", "mass2", "s1"],
        ["mass1", "v1", "mass2", "v1"],
    ];

    /// The default experiment from 0 to `stop`, with `annotation` inside it if not empty.
    pub fn experiment(stop: &str, annotation: &str) -> String {
        let inner = match annotation {
            "" => String::new(),
            a => format!("\n    <ssd:Annotations>\n      {a}\n    </ssd:Annotations>\n  "),
        };
        let tag = match inner.is_empty() {
            true => format!("<ssd:DefaultExperiment startTime=\"0\" stopTime=\"{stop}\"/>"),
            false => format!(
                "<ssd:DefaultExperiment startTime=\"0\" stopTime=\"{stop}\">{inner}</ssd:DefaultExperiment>"
            ),
        };
        format!("\n  {tag}\n</ssd:SystemStructureDescription>")
    }

    /// The `SystemStructure.ssd` text.
    pub fn ssd(&self) -> String {
        let v = self.version;
        let real = if v == "1.0" { "Real" } else { "Float64" };
        let connector = |name: &str, kind: &str, unit: &str| {
            format!(
                "\n          <ssd:Connector name=\"{name}\" kind=\"{kind}\"><ssc:{real} unit=\"{unit}\"/></ssd:Connector>"
            )
        };
        // Mass 1 sends s1 and v1 and receives Fk; mass 2 the other way round.
        let connectors = |sends_position: bool| {
            let (position, force) = match sends_position {
                true => ("output", "input"),
                false => ("input", "output"),
            };
            [
                connector("s1", position, "m"),
                connector("v1", position, "m/s"),
                connector("Fk", force, "N"),
            ]
            .concat()
        };
        let binding = self.parameter_set.map_or(String::new(), |name| {
            format!(
                "\n    <ssd:ParameterBindings>\n      <ssd:ParameterBinding source=\"resources/{name}.ssv\"/>\n    </ssd:ParameterBindings>"
            )
        });
        let inline = match self.inline {
            [] => String::new(),
            values => format!(
                "\n        <ssd:ParameterBindings>\n          <ssd:ParameterBinding>\n            <ssd:ParameterValues>{}\n            </ssd:ParameterValues>\n          </ssd:ParameterBinding>\n        </ssd:ParameterBindings>",
                parameter_set(v, "mass1", values)
            ),
        };
        let connections: String = self
            .connections
            .iter()
            .map(|[a, b, c, d]| {
                format!(
                    "\n      <ssd:Connection startElement=\"{a}\" startConnector=\"{b}\" endElement=\"{c}\" endConnector=\"{d}\"/>"
                )
            })
            .collect();
        [
            &format!(
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<ssd:SystemStructureDescription version=\"{v}\" name=\"Two masses\"\n    xmlns:ssd=\"http://ssp-standard.org/SSP1/SystemStructureDescription\"\n    xmlns:ssc=\"http://ssp-standard.org/SSP1/SystemStructureCommon\"\n    xmlns:ssv=\"http://ssp-standard.org/SSP1/SystemStructureParameterValues\">\n  <ssd:System name=\"root\">"
            ),
            &binding,
            "\n    <ssd:Elements>\n      <ssd:Component name=\"mass1\" type=\"application/x-fmu-sharedlibrary\" source=\"resources/rust_oscillator.fmu\">\n        <ssd:Connectors>",
            &connectors(true),
            "\n        </ssd:Connectors>",
            &inline,
            "\n      </ssd:Component>\n      <ssd:Component name=\"mass2\" source=\"./resources/c_spring_damper.fmu\">\n        <ssd:Connectors>",
            &connectors(false),
            "\n        </ssd:Connectors>\n      </ssd:Component>\n    </ssd:Elements>\n    <ssd:Connections>",
            &connections,
            "\n    </ssd:Connections>\n  </ssd:System>",
            &self.experiment,
        ]
        .concat()
    }

    /// The `.ssp` of `ssd` (this system's text, perhaps edited) with the example FMUs,
    /// `rust_fmu` as mass 1's, and `ssv` as the parameter set (if the system binds one).
    pub fn archive(&self, ssd: &str, ssv: &str, rust_fmu: &[u8]) -> Vec<u8> {
        let ssv_entry = self.parameter_set.map(|n| format!("resources/{n}.ssv"));
        let mut entries: Vec<(&str, &[u8])> = Vec::from([
            (SSD_ENTRY, ssd.as_bytes()),
            ("resources/rust_oscillator.fmu", rust_fmu),
            ("resources/c_spring_damper.fmu", C_FMU),
        ]);
        if let Some(entry) = &ssv_entry {
            entries.push((entry.as_str(), ssv.as_bytes()));
        }
        write_stored(&entries)
    }
}

/// An `ssv:ParameterSet` element named `name` whose parameters are `(name, value element)`:
/// the value element is written as is if it starts with `<`, else as `<ssv:Real value=".."/>`.
pub fn parameter_set(version: &str, name: &str, values: &[(&str, &str)]) -> String {
    let parameters: String = values
        .iter()
        .map(|(p, value)| {
            let element = match value.starts_with('<') {
                true => String::from(*value),
                false => format!("<ssv:Real value=\"{value}\"/>"),
            };
            format!("\n    <ssv:Parameter name=\"{p}\">{element}</ssv:Parameter>")
        })
        .collect();
    format!(
        "\n<ssv:ParameterSet version=\"{version}\" name=\"{name}\"\n    xmlns:ssv=\"http://ssp-standard.org/SSP1/SystemStructureParameterValues\">\n  <ssv:Parameters>{parameters}\n  </ssv:Parameters>\n</ssv:ParameterSet>"
    )
}

/// A parameter-set file: the XML declaration and [`parameter_set`].
pub fn parameter_file(version: &str, name: &str, values: &[(&str, &str)]) -> String {
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>{}",
        parameter_set(version, name, values)
    )
}
