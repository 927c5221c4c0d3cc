//! `cosim ssp import|export` and `.ssp` files for `run` and `validate`: core maps SSP to
//! scenarios both ways (`cosim_core::ssp`); this file writes `SystemStructure.ssd` with
//! quick-xml, which needs std and so lives in the CLI rather than in no_std core.

use crate::io::{self, Failure, Output};
use cosim_core::limits::MAX_FMU_FILE_BYTES;
use cosim_core::scenario::{self, Scenario};
use cosim_core::ssp::{self, SspPlan, ANNOTATION_TYPE, NS_PLAYGROUND, NS_SSC, NS_SSD, NS_SSV};
use quick_xml::events::{BytesDecl, BytesEnd, BytesStart, BytesText, Event};
use quick_xml::Writer;
use std::path::{Path, PathBuf};

/// An `ssp` subcommand.
#[derive(Debug, PartialEq)]
pub enum SspCommand {
    /// `.ssp` to scenario JSON on standard output.
    Import { ssp: PathBuf },
    /// Scenario of binary modules to an `.ssp` file.
    Export { scenario: PathBuf, out: PathBuf },
}

/// Parses the arguments after `ssp`.
pub fn parse(rest: &[&str]) -> Result<SspCommand, String> {
    match rest {
        ["import", file] if !file.starts_with("--") => Ok(SspCommand::Import { ssp: file.into() }),
        ["export", file, "--out" | "-o", out] | ["export", "--out" | "-o", out, file] => {
            Ok(SspCommand::Export {
                scenario: file.into(),
                out: out.into(),
            })
        }
        _ => Err(
            "usage: `ssp import SYSTEM.ssp` or `ssp export SCENARIO.json --out SYSTEM.ssp`".into(),
        ),
    }
}

/// Runs an `ssp` subcommand.
pub fn execute(command: SspCommand, stdout: &mut Output) -> Result<(), Failure> {
    match command {
        SspCommand::Import { ssp } => stdout.line(&scenario::to_json(&read_ssp(&ssp)?)),
        SspCommand::Export {
            scenario: path,
            out,
        } => {
            io::refuse_same_file(&path, Some(&out))?;
            let text = io::read_text(&path, scenario::MAX_SCENARIO_BYTES, "scenario")?;
            let mut s = scenario::parse(&text).map_err(|e| format!("{}: {e}", path.display()))?;
            crate::fmus::embed(&mut s, &path).map_err(|e| format!("{}: {e}", path.display()))?;
            let bytes = export(&s).map_err(|e| format!("{}: {e}", path.display()))?;
            std::fs::write(&out, bytes)
                .map_err(|e| format!("cannot write {}: {e}", out.display()))?;
            Ok(())
        }
    }
}

/// True if `path` names an `.ssp` file (by its extension).
pub fn is_ssp(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("ssp"))
}

/// The scenario of the `.ssp` file at `path`.
pub fn read_ssp(path: &Path) -> Result<Scenario, String> {
    let bytes = io::read_bytes(path, MAX_FMU_FILE_BYTES, ".ssp file").map_err(|e| e.to_string())?;
    ssp::import(&bytes).map_err(|e| format!("{}: {e}", path.display()))
}

/// The `.ssp` archive of a scenario whose binary modules carry their archives.
pub fn export(s: &Scenario) -> Result<Vec<u8>, String> {
    let plan = ssp::export_plan(s).map_err(|e| e.to_string())?;
    let ssd = write_ssd(&plan).map_err(|e| format!("cannot write the SSD: {e}"))?;
    Ok(plan.archive(&ssd))
}

/// Shortest text that parses back to the same `f64` (`1e-5`, `0.01`, `1000000.0`).
fn number(v: f64) -> String {
    format!("{v:?}")
}

type Xml = Writer<Vec<u8>>;

fn start(w: &mut Xml, name: &str, attrs: &[(&str, &str)]) -> std::io::Result<()> {
    w.write_event(Event::Start(
        BytesStart::new(name).with_attributes(attrs.iter().copied()),
    ))
}

fn empty(w: &mut Xml, name: &str, attrs: &[(&str, &str)]) -> std::io::Result<()> {
    w.write_event(Event::Empty(
        BytesStart::new(name).with_attributes(attrs.iter().copied()),
    ))
}

fn end(w: &mut Xml, name: &str) -> std::io::Result<()> {
    w.write_event(Event::End(BytesEnd::new(name)))
}

/// `SystemStructure.ssd` (SSP 1.0) of the plan.
pub fn write_ssd(plan: &SspPlan) -> std::io::Result<String> {
    let mut w = Writer::new_with_indent(Vec::new(), b' ', 2);
    w.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))?;
    let mut root = vec![
        ("xmlns:ssd", NS_SSD),
        ("xmlns:ssc", NS_SSC),
        ("xmlns:ssv", NS_SSV),
        ("version", "1.0"),
        ("name", plan.name.as_str()),
        ("generationTool", "cosim-playground"),
    ];
    if !plan.description.is_empty() {
        root.push(("description", plan.description.as_str()));
    }
    start(&mut w, "ssd:SystemStructureDescription", &root)?;
    start(&mut w, "ssd:System", &[("name", "root")])?;
    start(&mut w, "ssd:Elements", &[])?;
    for c in &plan.components {
        let attrs = [
            ("name", c.name.as_str()),
            ("type", "application/x-fmu-sharedlibrary"),
            ("source", c.source.as_str()),
            ("implementation", "CoSimulation"),
        ];
        start(&mut w, "ssd:Component", &attrs)?;
        start(&mut w, "ssd:Connectors", &[])?;
        for k in &c.connectors {
            start(
                &mut w,
                "ssd:Connector",
                &[("name", &k.name), ("kind", k.kind)],
            )?;
            match k.unit.as_str() {
                "" => empty(&mut w, "ssc:Real", &[])?,
                unit => empty(&mut w, "ssc:Real", &[("unit", unit)])?,
            }
            end(&mut w, "ssd:Connector")?;
        }
        end(&mut w, "ssd:Connectors")?;
        if !c.parameters.is_empty() {
            start(&mut w, "ssd:ParameterBindings", &[])?;
            start(&mut w, "ssd:ParameterBinding", &[])?;
            start(&mut w, "ssd:ParameterValues", &[])?;
            start(
                &mut w,
                "ssv:ParameterSet",
                &[("version", "1.0"), ("name", c.name.as_str())],
            )?;
            start(&mut w, "ssv:Parameters", &[])?;
            for (name, value) in &c.parameters {
                start(&mut w, "ssv:Parameter", &[("name", name.as_str())])?;
                empty(&mut w, "ssv:Real", &[("value", &number(*value))])?;
                end(&mut w, "ssv:Parameter")?;
            }
            for tag in [
                "ssv:Parameters",
                "ssv:ParameterSet",
                "ssd:ParameterValues",
                "ssd:ParameterBinding",
                "ssd:ParameterBindings",
            ] {
                end(&mut w, tag)?;
            }
        }
        end(&mut w, "ssd:Component")?;
    }
    end(&mut w, "ssd:Elements")?;
    if !plan.connections.is_empty() {
        start(&mut w, "ssd:Connections", &[])?;
        for [se, sc, ee, ec] in &plan.connections {
            let attrs = [
                ("startElement", se.as_str()),
                ("startConnector", sc.as_str()),
                ("endElement", ee.as_str()),
                ("endConnector", ec.as_str()),
            ];
            empty(&mut w, "ssd:Connection", &attrs)?;
        }
        end(&mut w, "ssd:Connections")?;
    }
    end(&mut w, "ssd:System")?;
    let (t0, t1) = (number(plan.start), number(plan.stop));
    start(
        &mut w,
        "ssd:DefaultExperiment",
        &[("startTime", &t0), ("stopTime", &t1)],
    )?;
    start(&mut w, "ssd:Annotations", &[])?;
    start(&mut w, "ssc:Annotation", &[("type", ANNOTATION_TYPE)])?;
    start(&mut w, "pg:Scenario", &[("xmlns:pg", NS_PLAYGROUND)])?;
    w.write_event(Event::Text(BytesText::new(&plan.settings_json)))?;
    for tag in [
        "pg:Scenario",
        "ssc:Annotation",
        "ssd:Annotations",
        "ssd:DefaultExperiment",
        "ssd:SystemStructureDescription",
    ] {
        end(&mut w, tag)?;
    }
    String::from_utf8(w.into_inner()).map_err(std::io::Error::other)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subcommands_parse() {
        assert_eq!(
            parse(&["import", "a.ssp"]),
            Ok(SspCommand::Import {
                ssp: "a.ssp".into()
            })
        );
        assert_eq!(
            parse(&["export", "s.json", "--out", "a.ssp"]),
            Ok(SspCommand::Export {
                scenario: "s.json".into(),
                out: "a.ssp".into()
            })
        );
        assert!(parse(&["export", "s.json"]).unwrap_err().contains("--out"));
        assert!(parse(&[]).is_err());
    }

    #[test]
    fn numbers_are_written_to_parse_back_exactly() {
        for v in [0.1, 1e-5, 2e5, 1e-4 * 3.0, 1.0 / 3.0, 123456789.0, 1e300] {
            assert_eq!(number(v).parse::<f64>(), Ok(v), "{v}");
        }
    }
}
