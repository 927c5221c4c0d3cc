//! Parameter sets (`ssv:ParameterSet`), from an `.ssv` file of the archive or inline in
//! `ssd:ParameterValues`: Float64 values by name. A scenario's parameters are Float64, so
//! a parameter of any other type is refused by name.

use super::xml::{children, double, error_at, is, qualified, refuse, required};
use super::{SspError, NS_SSC, NS_SSV};
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use roxmltree::Node;

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
            _ => return Err(refuse(
                file,
                child,
                &format!(
                    "parameter `{name}` is of type {local}; a scenario's parameters are Float64 \
                         (ssv:Real or ssv:Float64)"
                ),
            )),
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
