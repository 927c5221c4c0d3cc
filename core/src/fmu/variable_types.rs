//! Every FMI 3.0 variable of a `modelDescription.xml`, of any type and shape (FMI 3.0
//! §2.4.7). Numeric variables and arrays become the module's ports (`typed_ports`), as do
//! scalar input and output Clocks; String and Binary variables are parameters, and String
//! and Binary outputs are recorded (`text_outputs`).

use super::FmuError;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use roxmltree::Node;

/// The FMI 3.0 variable types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum VariableType {
    /// `<Float32>`.
    Float32,
    /// `<Float64>`.
    Float64,
    /// `<Int8>` … `<Int64>`, by bit width.
    Int(u8),
    /// `<UInt8>` … `<UInt64>`, by bit width.
    UInt(u8),
    /// `<Boolean>`.
    Boolean,
    /// `<String>`.
    String,
    /// `<Binary>`.
    Binary,
    /// `<Enumeration>` (exchanged as Int64).
    Enumeration,
    /// `<Clock>`.
    Clock,
}

impl VariableType {
    /// The type of an element of `<ModelVariables>`, `None` for anything else.
    pub fn from_tag(tag: &str) -> Option<Self> {
        Some(match tag {
            "Float32" => VariableType::Float32,
            "Float64" => VariableType::Float64,
            "Int8" => VariableType::Int(8),
            "Int16" => VariableType::Int(16),
            "Int32" => VariableType::Int(32),
            "Int64" => VariableType::Int(64),
            "UInt8" => VariableType::UInt(8),
            "UInt16" => VariableType::UInt(16),
            "UInt32" => VariableType::UInt(32),
            "UInt64" => VariableType::UInt(64),
            "Boolean" => VariableType::Boolean,
            "String" => VariableType::String,
            "Binary" => VariableType::Binary,
            "Enumeration" => VariableType::Enumeration,
            "Clock" => VariableType::Clock,
            _ => return None,
        })
    }
}

/// One `<Dimension>` of an array variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dimension {
    /// `start="n"`: a fixed extent.
    Fixed(u64),
    /// `valueReference="vr"`: the extent is the structural parameter `vr`.
    Structural(u32),
}

/// A variable as declared, whatever its type.
#[derive(Clone, Debug, PartialEq)]
pub struct DeclaredVariable {
    /// `name`.
    pub name: String,
    /// `valueReference`.
    pub value_ref: u32,
    /// The element's type.
    pub ty: VariableType,
    /// `causality` as written (`local` when absent).
    pub causality: String,
    /// `<Dimension>` children, outermost first; empty for a scalar.
    pub dimensions: Vec<Dimension>,
    /// `variability` as written (empty when absent).
    pub variability: String,
    /// The start value as written: the `start` attribute (space-separated for an array),
    /// or the `<Start value>` children of a String or Binary variable, one per element.
    pub start: Vec<String>,
    /// `description`.
    pub description: String,
    /// `unit`, when given.
    pub unit: String,
    /// `clocks`: the value references of the clocks this variable is clocked by.
    pub clocks: Vec<u32>,
    /// `declaredType` (an Enumeration's item list), empty when absent.
    pub declared_type: String,
}

impl DeclaredVariable {
    /// Whether it is one or more of the module's ports (a numeric variable or array, or
    /// a clock): String and Binary variables are parameters (and recorded outputs).
    pub fn is_supported(&self) -> bool {
        super::typed_ports::port_type(self.ty).is_some()
    }

    /// Whether it is a scalar input or output clock (a port of type Clock).
    pub fn is_clock_port(&self) -> bool {
        self.ty == VariableType::Clock
            && self.dimensions.is_empty()
            && matches!(self.causality.as_str(), "input" | "output")
    }
}

fn err(msg: String) -> FmuError {
    FmuError::ModelDescription(msg)
}

/// Every element of `<ModelVariables>`; an unknown element is refused by name.
pub fn declared_variables(list: Node<'_, '_>) -> Result<Vec<DeclaredVariable>, FmuError> {
    let mut out = Vec::new();
    for v in list.children().filter(|c| c.is_element()) {
        let tag = v.tag_name().name();
        let ty = VariableType::from_tag(tag).ok_or_else(|| {
            err(format!(
                "<ModelVariables> has a <{tag}>, which is not an FMI 3.0 variable type"
            ))
        })?;
        let name = v
            .attribute("name")
            .ok_or_else(|| err(format!("a <{tag}> has no name")))?;
        let value_ref = v
            .attribute("valueReference")
            .and_then(|r| r.trim().parse().ok())
            .ok_or_else(|| {
                err(format!(
                    "<{tag} name=\"{name}\"> has no valid valueReference"
                ))
            })?;
        let mut dimensions = Vec::new();
        for d in v
            .children()
            .filter(|c| c.is_element() && c.tag_name().name() == "Dimension")
        {
            let fixed = d.attribute("start").map(|s| s.trim().parse::<u64>());
            let structural = d
                .attribute("valueReference")
                .map(|s| s.trim().parse::<u32>());
            dimensions.push(match (fixed, structural) {
                (Some(Ok(n)), None) => Dimension::Fixed(n),
                (None, Some(Ok(vr))) => Dimension::Structural(vr),
                _ => {
                    return Err(err(format!(
                        "<{tag} name=\"{name}\">: a <Dimension> needs either start (an extent) or \
                         valueReference (a structural parameter)"
                    )))
                }
            });
        }
        let start = match v.attribute("start") {
            Some(text) if matches!(ty, VariableType::String | VariableType::Binary) => {
                alloc::vec![text.to_string()]
            }
            Some(text) => text.split_whitespace().map(str::to_string).collect(),
            None => v
                .children()
                .filter(|c| c.is_element() && c.tag_name().name() == "Start")
                .filter_map(|c| c.attribute("value").map(str::to_string))
                .collect(),
        };
        let text = |a: &str| v.attribute(a).unwrap_or_default().to_string();
        out.push(DeclaredVariable {
            name: name.to_string(),
            value_ref,
            ty,
            causality: v.attribute("causality").unwrap_or("local").to_string(),
            dimensions,
            variability: text("variability"),
            start,
            description: text("description"),
            unit: text("unit"),
            declared_type: text("declaredType"),
            clocks: v
                .attribute("clocks")
                .unwrap_or_default()
                .split_whitespace()
                .map(|c| {
                    c.parse().map_err(|_| {
                        err(format!(
                            "<{tag} name=\"{name}\">: clocks=\"{c}\" is not a value reference"
                        ))
                    })
                })
                .collect::<Result<_, _>>()?,
        });
    }
    Ok(out)
}
