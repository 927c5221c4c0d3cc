//! Variable layout shared by the built-in modules: value references are assigned in the
//! order parameters, states, `der(states)`, inputs, outputs, and [`Layout::classify`] maps
//! a reference back to its role and index.

use super::instance::INPUT_ORDER;
use crate::module::{
    Capabilities, Causality, DependencyKind, ModuleDescription, ModuleError, ModuleErrorKind,
    OutputDependency, ValueRef, Variability, Variable,
};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// Name, unit, start value and description of one parameter, state, input or output.
#[derive(Clone, Debug, PartialEq)]
pub struct PortSpec {
    /// Variable name (unique within the module).
    pub name: String,
    /// SI unit, empty when dimensionless.
    pub unit: String,
    /// Start value (current value for parameters).
    pub start: f64,
    /// One-line description.
    pub description: String,
}

impl PortSpec {
    /// A port with a description.
    pub fn new(name: &str, unit: &str, start: f64, description: &str) -> Self {
        PortSpec {
            name: name.into(),
            unit: unit.into(),
            start,
            description: description.into(),
        }
    }
}

/// Role of a variable and its index within that role.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum VarKind {
    Parameter(usize),
    State(usize),
    Derivative(usize),
    Input(usize),
    Output(usize),
}

/// Sizes of the five variable groups.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Layout {
    pub np: usize,
    pub nx: usize,
    pub nu: usize,
    pub ny: usize,
}

impl Layout {
    /// The role of `vr`, or `UnknownValueRef`: the groups in value-reference order
    /// (compared one after the other: this runs for every value set or read).
    #[inline]
    pub fn classify(&self, vr: ValueRef) -> Result<VarKind, ModuleError> {
        let mut i = vr.0 as usize;
        if i < self.np {
            return Ok(VarKind::Parameter(i));
        }
        i -= self.np;
        if i < self.nx {
            return Ok(VarKind::State(i));
        }
        i -= self.nx;
        if i < self.nx {
            return Ok(VarKind::Derivative(i));
        }
        i -= self.nx;
        if i < self.nu {
            return Ok(VarKind::Input(i));
        }
        i -= self.nu;
        if i < self.ny {
            return Ok(VarKind::Output(i));
        }
        Err(ModuleError::error(ModuleErrorKind::UnknownValueRef(vr)))
    }

    /// Value reference of the first input.
    pub fn input_base(&self) -> u32 {
        (self.np + 2 * self.nx) as u32
    }
}

/// Unit of a time derivative: `m` → `m/s`, `m/s` → `m/s2`, `` → `1/s`.
fn derivative_unit(unit: &str) -> String {
    if unit.is_empty() {
        "1/s".into()
    } else if unit.ends_with("/s") {
        format!("{unit}2")
    } else {
        format!("{unit}/s")
    }
}

/// What [`describe`] needs.
pub(crate) struct Signature<'a> {
    pub model_name: &'a str,
    pub parameters: &'a [PortSpec],
    pub states: &'a [PortSpec],
    pub inputs: &'a [PortSpec],
    pub outputs: &'a [PortSpec],
    /// `(output, input, kind)`: direct feedthrough.
    pub feedthrough: &'a [(usize, usize, DependencyKind)],
    /// `maxOutputDerivativeOrder`.
    pub max_output_derivative_order: u32,
    /// `x-linearTimeInvariant`.
    pub linear_time_invariant: bool,
}

/// Capabilities every built-in module has; only the output derivative order and
/// `x-linearTimeInvariant` differ between them.
fn capabilities(sig: &Signature<'_>) -> Capabilities {
    Capabilities {
        can_handle_variable_communication_step_size: true,
        max_output_derivative_order: sig.max_output_derivative_order,
        can_get_and_set_fmu_state: true,
        can_serialize_fmu_state: true,
        provides_directional_derivatives: true,
        x_max_input_derivative_order: INPUT_ORDER as u32,
        // Also true without states: an algebraic module's Jacobian (its D) is exposed.
        x_exposes_states: true,
        x_linear_time_invariant: sig.linear_time_invariant,
        // Every built-in module is written as equations `f`, `g`.
        x_exposes_equations: true,
        ..Capabilities::default()
    }
}

/// Builds the description and layout; fails on duplicate names.
pub(crate) fn describe(sig: &Signature<'_>) -> Result<(ModuleDescription, Layout), ModuleError> {
    let layout = Layout {
        np: sig.parameters.len(),
        nx: sig.states.len(),
        nu: sig.inputs.len(),
        ny: sig.outputs.len(),
    };
    let mut vars = Vec::with_capacity(layout.np + 2 * layout.nx + layout.nu + layout.ny);
    // The groups in value-reference order: ports, causality, variability, and whether the
    // group is the time derivatives of its ports.
    let groups = [
        (
            sig.parameters,
            Causality::Parameter,
            Variability::Fixed,
            false,
        ),
        (sig.states, Causality::Local, Variability::Continuous, false),
        (sig.states, Causality::Local, Variability::Continuous, true),
        (sig.inputs, Causality::Input, Variability::Continuous, false),
        (
            sig.outputs,
            Causality::Output,
            Variability::Continuous,
            false,
        ),
    ];
    for (ports, causality, variability, derivative) in groups {
        for p in ports {
            // Built field by field: each string is allocated once (maps rebuild modules per
            // point). Derivatives and outputs are computed, so they have no start value.
            let (name, unit, start) = if derivative {
                (format!("der({})", p.name), derivative_unit(&p.unit), None)
            } else {
                let computed = causality == Causality::Output;
                (
                    p.name.clone(),
                    p.unit.clone(),
                    (!computed).then_some(p.start),
                )
            };
            vars.push(Variable {
                name,
                value_ref: ValueRef(vars.len() as u32),
                causality,
                variability,
                start,
                unit,
                description: p.description.clone(),
                port_type: crate::module::PortType::Float64,
            });
        }
    }
    // A set, not a scan of the earlier names: a chain segment has 4,000 variables.
    let mut seen = alloc::collections::BTreeSet::new();
    for v in &vars {
        if v.name.is_empty() || !seen.insert(v.name.as_str()) {
            return Err(ModuleError::invalid(format!(
                "variable name `{}` is empty or used twice",
                v.name
            )));
        }
    }
    let out_base = (layout.np + 2 * layout.nx + layout.nu) as u32;
    let mut deps = Vec::new();
    for o in 0..layout.ny {
        let mut inputs = Vec::new();
        for &(oo, i, kind) in sig.feedthrough {
            if oo == o && i < layout.nu {
                inputs.push((ValueRef(layout.input_base() + i as u32), kind));
            }
        }
        deps.push(OutputDependency {
            output: ValueRef(out_base + o as u32),
            inputs,
        });
    }
    let desc = ModuleDescription {
        model_name: sig.model_name.into(),
        variables: vars,
        capabilities: capabilities(sig),
        output_dependencies: deps,
    };
    Ok((desc, layout))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_refs_follow_group_order() {
        let l = Layout {
            np: 2,
            nx: 2,
            nu: 1,
            ny: 3,
        };
        assert_eq!(l.classify(ValueRef(0)).ok(), Some(VarKind::Parameter(0)));
        assert_eq!(l.classify(ValueRef(3)).ok(), Some(VarKind::State(1)));
        assert_eq!(l.classify(ValueRef(4)).ok(), Some(VarKind::Derivative(0)));
        assert_eq!(l.classify(ValueRef(6)).ok(), Some(VarKind::Input(0)));
        assert_eq!(l.classify(ValueRef(9)).ok(), Some(VarKind::Output(2)));
        assert!(l.classify(ValueRef(10)).is_err());
        assert_eq!(derivative_unit("m"), "m/s");
        assert_eq!(derivative_unit("m/s"), "m/s2");
    }
}
