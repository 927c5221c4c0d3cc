//! The settable parameters of a binary module as the page's editor shows them: each with
//! its declared FMI type, shape, start value and, for an Enumeration, its items
//! (`<TypeDefinitions><EnumerationType>`), so the editor can offer a checkbox, a list of
//! items, an integer field with the type's range, text or hex text, one field per element.

use super::model_description::{self, ModelDescription};
use super::parameters::{settable, sizes_an_array, type_name};
use super::typed_ports::extents;
use super::FmuError;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use serde::Serialize;

/// One item of an Enumeration type.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EnumItem {
    /// `name`.
    pub name: String,
    /// `value`.
    pub value: i64,
}

/// One settable parameter.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ParameterInfo {
    /// The variable's name (the key in the scenario's `parameters`).
    pub name: String,
    /// The FMI type, e.g. `Int64`, `Boolean`, `Enumeration`.
    #[serde(rename = "type")]
    pub ty: &'static str,
    /// The extent of each dimension; empty for a scalar.
    pub extents: Vec<u64>,
    /// The start value as written, one entry per element.
    pub start: Vec<String>,
    /// The items of an Enumeration; empty otherwise.
    pub items: Vec<EnumItem>,
    /// `description`.
    pub description: String,
    /// `unit`.
    pub unit: String,
}

/// The parameters of `xml` (a `modelDescription.xml`) a scenario may set.
pub fn parameter_list(xml: &str) -> Result<Vec<ParameterInfo>, FmuError> {
    let md: ModelDescription = model_description::parse(xml)?;
    let doc = roxmltree::Document::parse(xml).map_err(|e| FmuError::Xml(e.to_string()))?;
    let items_of = |declared: &str| -> Vec<EnumItem> {
        let Some(t) = doc.descendants().find(|n| {
            n.tag_name().name() == "EnumerationType" && n.attribute("name") == Some(declared)
        }) else {
            return Vec::new();
        };
        t.children()
            .filter(|c| c.tag_name().name() == "Item")
            .filter_map(|c| {
                Some(EnumItem {
                    name: c.attribute("name")?.to_string(),
                    value: c.attribute("value")?.trim().parse().ok()?,
                })
            })
            .collect()
    };
    let all = &md.all_variables;
    let mut out = Vec::new();
    for v in all
        .iter()
        .filter(|v| settable(v) && !sizes_an_array(v, all))
    {
        if !matches!(v.causality.as_str(), "parameter" | "structuralParameter") {
            continue;
        }
        out.push(ParameterInfo {
            name: v.name.clone(),
            ty: type_name(v),
            extents: extents(v, all)?,
            start: v.start.clone(),
            items: items_of(&v.declared_type),
            description: v.description.clone(),
            unit: v.unit.clone(),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const C_TYPES_XML: &str = include_str!("../../../examples/fmus/c_types/modelDescription.xml");

    #[test]
    fn every_parameter_of_c_types_with_its_type_shape_and_items() {
        let list = parameter_list(C_TYPES_XML).unwrap();
        let names: Vec<(&str, &str)> = list.iter().map(|p| (p.name.as_str(), p.ty)).collect();
        assert_eq!(
            names,
            [
                ("gain", "Float32"),
                ("offset", "Int8"),
                ("i16", "Int16"),
                ("u8", "UInt8"),
                ("u16", "UInt16"),
                ("u32", "UInt32"),
                ("i64", "Int64"),
                ("u64", "UInt64"),
                ("flag", "Boolean"),
                ("label", "String"),
                ("blob", "Binary"),
                ("mode", "Enumeration"),
                ("period", "Float64"),
            ],
            "n sizes arr: a structural parameter, not listed"
        );
        let mode = list.iter().find(|p| p.name == "mode").unwrap();
        let items: Vec<(&str, i64)> = mode
            .items
            .iter()
            .map(|i| (i.name.as_str(), i.value))
            .collect();
        assert_eq!(items, [("off", 1), ("slow", 2), ("fast", 3)]);
        assert_eq!(mode.start, ["2"]);
        let blob = list.iter().find(|p| p.name == "blob").unwrap();
        assert_eq!(
            (blob.start.as_slice(), blob.extents.len()),
            (&["0a0b0c".to_string()][..], 0)
        );
    }
}
