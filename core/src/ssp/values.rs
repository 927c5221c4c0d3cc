//! Parameter bindings and sets (`ssv:ParameterSet`), from an `.ssv` file of the archive or
//! inline in `ssd:ParameterValues`: Float64 values by name. A scenario's parameters are
//! Float64, so a parameter of any other type is refused by name. Bindings of a component
//! apply first, then the system's (an enclosing system overrides its elements), each list
//! in order, later values winning.

use super::import::{inside_archive, read_text, Importer};
use super::xml::{children, double, error_at, is, parse_document, qualified, refuse, required};
use super::{SspError, NS_SSC, NS_SSD, NS_SSV, SSD_ENTRY};
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use roxmltree::Node;

const PARAMETER_SET_TYPE: &str = "application/x-ssp-parameter-set";

/// One parameter value of a set: its name as written (before a binding's prefix) and value.
#[derive(Clone, Debug, PartialEq)]
pub struct ParameterValue {
    pub name: String,
    pub value: f64,
}

/// The SSP versions read (SSP 2.0 keeps the SSP1 namespaces and says `version="2.0"`).
pub fn supported_version(v: &str) -> bool {
    matches!(v, "1.0" | "2.0")
}

/// The values of the `ssv:ParameterSet` element `set` of `file`.
pub fn parameter_set(file: &str, set: Node) -> Result<Vec<ParameterValue>, SspError> {
    if !is(set, NS_SSV, "ParameterSet") {
        return Err(error_at(
            file,
            set,
            format!("expected `ssv:ParameterSet`, found `{}`", qualified(set)),
        ));
    }
    if let Some(v) = set.attribute("version").filter(|v| !supported_version(v)) {
        return Err(error_at(
            file,
            set,
            format!("SSP version `{v}` is not supported (1.0 and 2.0 are)"),
        ));
    }
    let mut out = Vec::new();
    for child in children(set) {
        if is(child, NS_SSV, "Parameters") {
            for p in children(child) {
                if !is(p, NS_SSV, "Parameter") {
                    return Err(refuse(file, p, "a parameter set lists `ssv:Parameter`s"));
                }
                out.push(parameter(file, p)?);
            }
        } else if is(child, NS_SSV, "Units") || is(child, NS_SSC, "Annotations") {
            // Unit declarations and annotations describe; they change no value.
        } else if is(child, NS_SSV, "Enumerations") {
            // Declarations only; an enumeration parameter itself is refused below.
        } else {
            return Err(refuse(file, child, "unknown content of a parameter set"));
        }
    }
    Ok(out)
}

fn parameter(file: &str, p: Node) -> Result<ParameterValue, SspError> {
    let name = required(file, p, "name")?.to_string();
    let mut value = None;
    for child in children(p) {
        let local = child.tag_name().name();
        if child.tag_name().namespace() != Some(NS_SSV) && !is(child, NS_SSC, "Annotations") {
            return Err(refuse(file, child, "unknown content of a parameter"));
        }
        match local {
            "Real" | "Float64" => value = Some(child),
            "Annotations" => {}
            "Dimension" => {
                return Err(refuse(
                    file,
                    child,
                    "array parameters have no place in a scenario",
                ))
            }
            _ => {
                return Err(refuse(
                    file,
                    child,
                    &format!(
                    "parameter `{name}` is of type {local}; a scenario's parameters are Float64 \
                         (ssv:Real or ssv:Float64)"
                ),
                ))
            }
        }
    }
    let node = value.ok_or_else(|| {
        error_at(
            file,
            p,
            format!("parameter `{name}` has no ssv:Real or ssv:Float64 value"),
        )
    })?;
    let value = double(file, node, "value")?
        .ok_or_else(|| error_at(file, node, "needs the attribute `value`"))?;
    if !value.is_finite() {
        return Err(error_at(
            file,
            node,
            format!("parameter `{name}` is not finite"),
        ));
    }
    Ok(ParameterValue { name, value })
}

impl Importer<'_> {
    /// Applies the bindings of a component (`target`) or of the system (`None`: names are
    /// `component.variable`).
    pub(super) fn bindings(&mut self, node: Node, target: Option<&str>) -> Result<(), SspError> {
        for b in children(node) {
            if !is(b, NS_SSD, "ParameterBinding") {
                return Err(refuse(
                    SSD_ENTRY,
                    b,
                    "`ssd:ParameterBindings` lists bindings",
                ));
            }
            for (value, at) in self.binding_values(b)? {
                self.apply(value, target, &at, b)?;
            }
        }
        Ok(())
    }

    /// The values of one binding, each with the file it came from.
    fn binding_values(&self, b: Node) -> Result<Vec<(ParameterValue, String)>, SspError> {
        if let Some(t) = b.attribute("type").filter(|t| *t != PARAMETER_SET_TYPE) {
            return Err(error_at(
                SSD_ENTRY,
                b,
                format!("parameter binding type `{t}` is not supported ({PARAMETER_SET_TYPE} is)"),
            ));
        }
        if let Some(base) = b.attribute("sourceBase").filter(|s| *s != "SSD") {
            return Err(error_at(
                SSD_ENTRY,
                b,
                format!(
                    "sourceBase `{base}` is not supported: parameter sets are read from the \
                     archive (sourceBase SSD), not from inside a component"
                ),
            ));
        }
        let prefix = b.attribute("prefix").unwrap_or_default();
        let mut inline = Vec::new();
        for child in children(b) {
            match child.tag_name().name() {
                "ParameterValues" if is(child, NS_SSD, "ParameterValues") => inline.push(child),
                "ParameterMapping" => {
                    return Err(refuse(
                        SSD_ENTRY,
                        child,
                        "parameter mappings: bind the values to the variables' own names",
                    ))
                }
                "Annotations" => {}
                _ => return Err(refuse(SSD_ENTRY, child, "unknown content of a binding")),
            }
        }
        let with_prefix = |values: Vec<ParameterValue>, file: &str| {
            values
                .into_iter()
                .map(|mut v| {
                    v.name = format!("{prefix}{}", v.name);
                    (v, file.to_string())
                })
                .collect::<Vec<_>>()
        };
        match (b.attribute("source"), inline.as_slice()) {
            (Some(_), [_, ..]) => Err(error_at(
                SSD_ENTRY,
                b,
                "a binding has either `source` or inline `ssd:ParameterValues`, not both",
            )),
            (Some(source), []) => {
                if !inside_archive(source) {
                    return Err(error_at(
                        SSD_ENTRY,
                        b,
                        format!("source `{source}` must be a relative path inside the archive"),
                    ));
                }
                let file = source.strip_prefix("./").unwrap_or(source);
                let text = read_text(&self.archive, source, SSD_ENTRY)?.ok_or_else(|| {
                    error_at(
                        SSD_ENTRY,
                        b,
                        format!("source `{source}` is not in the archive"),
                    )
                })?;
                let doc = parse_document(file, &text)?;
                Ok(with_prefix(parameter_set(file, doc.root_element())?, file))
            }
            (None, values) => {
                let mut out = Vec::new();
                for v in values {
                    let set = children(*v)
                        .next()
                        .ok_or_else(|| error_at(SSD_ENTRY, *v, "needs an `ssv:ParameterSet`"))?;
                    out.extend(with_prefix(parameter_set(SSD_ENTRY, set)?, SSD_ENTRY));
                }
                Ok(out)
            }
        }
    }

    fn apply(
        &mut self,
        value: ParameterValue,
        target: Option<&str>,
        file: &str,
        binding: Node,
    ) -> Result<(), SspError> {
        let (component, variable) = match target {
            Some(c) => (c.to_string(), value.name.clone()),
            None => match value.name.split_once('.') {
                Some((c, v)) => (c.to_string(), v.to_string()),
                None => {
                    return Err(error_at(
                        file,
                        binding,
                        format!(
                            "parameter `{}` names no component: a system's parameters are \
                             `component.variable` (system-level parameters have no place in a \
                             scenario)",
                            value.name
                        ),
                    ))
                }
            },
        };
        let Some(module) = self.modules.iter_mut().find(|m| m.name == component) else {
            return Err(error_at(
                file,
                binding,
                format!(
                    "parameter `{}`: there is no component `{component}`",
                    value.name
                ),
            ));
        };
        module.parameters.insert(variable, value.value);
        Ok(())
    }
}
