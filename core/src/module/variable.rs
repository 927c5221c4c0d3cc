//! Model variables: name, value reference, causality, variability, start value, unit and
//! the FMI 3.0 type of the value a port carries ([`PortType`]).

use alloc::string::String;
use serde::{Deserialize, Serialize};

/// FMI value reference: the handle by which a variable is set and got.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ValueRef(pub u32);

/// FMI 3.0 causality.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Causality {
    /// Independent parameter, set before initialisation (or tunable later).
    Parameter,
    /// Computed from parameters.
    CalculatedParameter,
    /// Set by the master from connected outputs.
    Input,
    /// Read by the master.
    Output,
    /// Internal variable; states are `Local` with `x-exposesStates`.
    Local,
    /// Independent variable (time).
    Independent,
}

/// FMI 3.0 variability.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Variability {
    /// Never changes.
    Constant,
    /// Fixed after initialisation.
    Fixed,
    /// May change at event instants (set by the master outside steps).
    Tunable,
    /// Piecewise constant, changes at events.
    Discrete,
    /// Changes continuously in time.
    Continuous,
}

/// The FMI 3.0 type of a port. The master carries every port's value as an `f64` (the
/// fast path of Float64 ports); other numeric types are converted exactly at the module's
/// boundary (integers up to 2^53 in magnitude, Float32 widened), connections must join
/// equal types, and the CSV prints integers and booleans as such.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub enum PortType {
    /// `Float64`: every built-in module's ports.
    #[default]
    Float64,
    /// `Float32`.
    Float32,
    /// `Int8` … `Int64`, by bit width.
    Int(u8),
    /// `UInt8` … `UInt64`, by bit width.
    UInt(u8),
    /// `Boolean`: 0 or 1.
    Boolean,
    /// `Enumeration`: the item's Int64 value.
    Enumeration,
    /// `Clock`: 1 at the communication point where the clock ticked, else 0. An output
    /// clock joins only an input clock.
    Clock,
}

impl PortType {
    /// The FMI type name, e.g. `Int32`.
    pub fn name(self) -> &'static str {
        match self {
            PortType::Float64 => "Float64",
            PortType::Float32 => "Float32",
            PortType::Int(8) => "Int8",
            PortType::Int(16) => "Int16",
            PortType::Int(32) => "Int32",
            PortType::Int(_) => "Int64",
            PortType::UInt(8) => "UInt8",
            PortType::UInt(16) => "UInt16",
            PortType::UInt(32) => "UInt32",
            PortType::UInt(_) => "UInt64",
            PortType::Boolean => "Boolean",
            PortType::Enumeration => "Enumeration",
            PortType::Clock => "Clock",
        }
    }

    /// The type named `name` (as [`PortType::name`] writes it).
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "Float64" => PortType::Float64,
            "Float32" => PortType::Float32,
            "Int8" => PortType::Int(8),
            "Int16" => PortType::Int(16),
            "Int32" => PortType::Int(32),
            "Int64" => PortType::Int(64),
            "UInt8" => PortType::UInt(8),
            "UInt16" => PortType::UInt(16),
            "UInt32" => PortType::UInt(32),
            "UInt64" => PortType::UInt(64),
            "Boolean" => PortType::Boolean,
            "Enumeration" => PortType::Enumeration,
            "Clock" => PortType::Clock,
            _ => return None,
        })
    }

    /// True for Float64 (serialised descriptions leave it out).
    pub fn is_float64(&self) -> bool {
        *self == PortType::Float64
    }

    /// Whether values are whole numbers (integers, booleans, enumerations, clock ticks):
    /// printed without exponent and drawn as steps.
    pub fn is_discrete(self) -> bool {
        !matches!(self, PortType::Float64 | PortType::Float32)
    }
}

impl From<PortType> for String {
    fn from(t: PortType) -> Self {
        t.name().into()
    }
}

impl TryFrom<String> for PortType {
    type Error = String;
    fn try_from(name: String) -> Result<Self, Self::Error> {
        PortType::from_name(&name).ok_or_else(|| alloc::format!("unknown port type `{name}`"))
    }
}

/// One variable (port) of a module.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Variable {
    /// Name, unique within the module (e.g. `s1`, `der(v)`).
    pub name: String,
    /// Value reference.
    pub value_ref: ValueRef,
    /// Causality.
    pub causality: Causality,
    /// Variability.
    pub variability: Variability,
    /// Start value, if any.
    pub start: Option<f64>,
    /// SI unit string (e.g. `N/m`), empty when dimensionless.
    pub unit: String,
    /// One-line description for the page.
    pub description: String,
    /// The type of its value (Float64 for every built-in module).
    #[serde(default, skip_serializing_if = "PortType::is_float64")]
    pub port_type: PortType,
}

impl Variable {
    /// A variable with empty description.
    pub fn new(
        name: &str,
        value_ref: u32,
        causality: Causality,
        variability: Variability,
        start: Option<f64>,
        unit: &str,
    ) -> Self {
        Variable {
            name: name.into(),
            value_ref: ValueRef(value_ref),
            causality,
            variability,
            start,
            unit: unit.into(),
            description: String::new(),
            port_type: PortType::Float64,
        }
    }

    /// Builder-style description.
    pub fn described(mut self, text: &str) -> Self {
        self.description = text.into();
        self
    }

    /// True if the master may set this variable in Step Mode (inputs and tunable parameters).
    pub fn settable_in_step_mode(&self) -> bool {
        self.causality == Causality::Input
            || (self.causality == Causality::Parameter && self.variability == Variability::Tunable)
    }
}

/// A String or Binary output's value at a communication point.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TextOutput {
    /// The variable's name.
    pub name: String,
    /// True for a Binary output (`value` is then lower-case hex, two digits a byte).
    pub binary: bool,
    /// The string, or the bytes as hex.
    pub value: String,
}
