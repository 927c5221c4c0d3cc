//! Every FMI 3.0 variable of a `modelDescription.xml`, of any type and shape (FMI 3.0
//! §2.4.7): the first step towards binary modules with integer, boolean, string, binary,
//! enumeration, clock and array ports. The module interface still exchanges Float64
//! scalars only; [`super::ModelDescription::all_variables`] lets a front end say which
//! variables it cannot show yet instead of dropping them silently.

use super::FmuError;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use roxmltree::Node;

/// The FMI 3.0 variable types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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
}

impl DeclaredVariable {
    /// Whether the master can exchange it today (a Float64 scalar).
    pub fn is_supported(&self) -> bool {
        self.ty == VariableType::Float64 && self.dimensions.is_empty()
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
        out.push(DeclaredVariable {
            name: name.to_string(),
            value_ref,
            ty,
            causality: v.attribute("causality").unwrap_or("local").to_string(),
            dimensions,
        });
    }
    Ok(out)
}
