//! Model variables: name, value reference, causality, variability, start value and unit.

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

/// One Float64 variable of a module.
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
