//! What a module tells the master about itself (the `modelDescription.xml` equivalent).

use super::{Capabilities, Causality, ValueRef, Variable};
use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

/// FMI `dependenciesKind` of an output on an input.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum DependencyKind {
    /// Constant factor (linear direct feedthrough).
    Constant,
    /// Depends on the input through a nonlinear or time-varying function.
    Dependent,
}

/// FMI `<ModelStructure><Output dependencies=...>`: the inputs an output depends on
/// directly (feedthrough) at a communication point. An empty list means no feedthrough.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OutputDependency {
    /// The output.
    pub output: ValueRef,
    /// Inputs with direct feedthrough to it.
    pub inputs: Vec<(ValueRef, DependencyKind)>,
}

/// Static description of a module.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModuleDescription {
    /// Model name (FMI `modelName`), e.g. `TwoMassOscillator.SubsystemI`.
    pub model_name: String,
    /// All Float64 variables.
    pub variables: Vec<Variable>,
    /// Declared capabilities.
    pub capabilities: Capabilities,
    /// Direct-feedthrough structure of the outputs.
    pub output_dependencies: Vec<OutputDependency>,
}

impl ModuleDescription {
    /// The variable named `name`.
    pub fn variable(&self, name: &str) -> Option<&Variable> {
        self.variables.iter().find(|v| v.name == name)
    }

    /// The variable with value reference `vr`.
    pub fn variable_by_ref(&self, vr: ValueRef) -> Option<&Variable> {
        self.variables.iter().find(|v| v.value_ref == vr)
    }

    /// Variables of one causality, in declaration order.
    pub fn with_causality(&self, c: Causality) -> impl Iterator<Item = &Variable> {
        self.variables.iter().filter(move |v| v.causality == c)
    }

    /// Input variables in declaration order (this order defines the module's input vector).
    pub fn inputs(&self) -> Vec<&Variable> {
        self.with_causality(Causality::Input).collect()
    }

    /// Output variables in declaration order (this order defines the module's output vector).
    pub fn outputs(&self) -> Vec<&Variable> {
        self.with_causality(Causality::Output).collect()
    }

    /// Exposed continuous states (`x-exposesStates`): each `Local` variable `x` for which a
    /// variable `der(x)` exists, paired with that derivative.
    pub fn states(&self) -> Vec<(&Variable, &Variable)> {
        let mut out = Vec::new();
        for v in &self.variables {
            if let Some(inner) = v
                .name
                .strip_prefix("der(")
                .and_then(|s| s.strip_suffix(')'))
            {
                if let Some(x) = self.variable(inner) {
                    out.push((x, v));
                }
            }
        }
        out
    }

    /// True if output `output` depends directly on input `input`.
    pub fn has_feedthrough(&self, output: ValueRef, input: ValueRef) -> bool {
        self.output_dependencies
            .iter()
            .find(|d| d.output == output)
            .is_some_and(|d| d.inputs.iter().any(|(i, _)| *i == input))
    }
}
