//! Reading FMI 3.0 `modelDescription.xml` into a [`ModuleDescription`]: the attributes of
//! `<fmiModelDescription>`, the `<CoSimulation>` capability flags, scalar `<Float64>`
//! variables and `<ModelStructure><Output dependencies>` (FMI 3.0 §2.4, §4.4).
//!
//! Only Float64 scalars are modules' ports in this playground; other variable types and
//! arrays (`<Dimension>`) are skipped, so they can be neither connected nor set.

use super::FmuError;
use crate::module::{
    Capabilities, Causality, DependencyKind, ModuleDescription, OutputDependency, ValueRef,
    Variability, Variable,
};
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use roxmltree::Node;

/// What `modelDescription.xml` says, beyond the [`ModuleDescription`].
#[derive(Clone, Debug, PartialEq)]
pub struct ModelDescription {
    /// `<fmiModelDescription fmiVersion>`.
    pub fmi_version: String,
    /// `instantiationToken`, passed back to `fmi3InstantiateCoSimulation`.
    pub instantiation_token: String,
    /// `<CoSimulation modelIdentifier>`: the binary is `binaries/wasm32/<id>.wasm`.
    pub model_identifier: String,
    /// Variables, flags and feedthrough as the master sees them.
    pub module: ModuleDescription,
}

fn err(msg: impl Into<String>) -> FmuError {
    FmuError::ModelDescription(msg.into())
}

fn flag(node: Node<'_, '_>, name: &str) -> Result<bool, FmuError> {
    match node.attribute(name) {
        None | Some("false") => Ok(false),
        Some("true") => Ok(true),
        Some(v) => Err(err(format!(
            "<CoSimulation {name}=\"{v}\">: expected true or false"
        ))),
    }
}

fn number<T: core::str::FromStr>(node: Node<'_, '_>, name: &str) -> Result<Option<T>, FmuError> {
    node.attribute(name)
        .map(|v| {
            v.trim().parse::<T>().map_err(|_| {
                err(format!(
                    "<{} {name}=\"{v}\">: not a valid number",
                    node.tag_name().name()
                ))
            })
        })
        .transpose()
}

fn child<'a, 'i>(node: Node<'a, 'i>, name: &str) -> Option<Node<'a, 'i>> {
    node.children()
        .find(|c| c.is_element() && c.tag_name().name() == name)
}

/// Parses the XML text of `modelDescription.xml`.
pub fn parse(xml: &str) -> Result<ModelDescription, FmuError> {
    let doc = roxmltree::Document::parse(xml).map_err(|e| FmuError::Xml(e.to_string()))?;
    let root = doc.root_element();
    if root.tag_name().name() != "fmiModelDescription" {
        return Err(err(format!(
            "the root element is <{}>, not <fmiModelDescription>",
            root.tag_name().name()
        )));
    }
    let fmi_version = root.attribute("fmiVersion").unwrap_or_default().to_string();
    if !fmi_version.starts_with("3.") {
        return Err(err(format!(
            "fmiVersion is \"{fmi_version}\"; binary modules must be FMI 3.0 (fmiVersion=\"3.0\")"
        )));
    }
    let model_name = root
        .attribute("modelName")
        .ok_or_else(|| err("<fmiModelDescription> has no modelName"))?;
    let instantiation_token = root
        .attribute("instantiationToken")
        .ok_or_else(|| err("<fmiModelDescription> has no instantiationToken"))?
        .to_string();
    let cs = child(root, "CoSimulation")
        .ok_or_else(|| err("no <CoSimulation> element: the FMU does not support co-simulation"))?;
    let model_identifier = cs
        .attribute("modelIdentifier")
        .ok_or_else(|| err("<CoSimulation> has no modelIdentifier"))?
        .to_string();
    let valid_id = !model_identifier.is_empty()
        && model_identifier
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !valid_id {
        return Err(err(format!(
            "modelIdentifier \"{model_identifier}\" is not a C identifier"
        )));
    }
    let capabilities = capabilities(cs)?;
    let units = declared_units(root);
    let variables = variables(root, &units)?;
    let output_dependencies = output_dependencies(root, &variables)?;
    Ok(ModelDescription {
        fmi_version,
        instantiation_token,
        model_identifier,
        module: ModuleDescription {
            model_name: model_name.to_string(),
            variables,
            capabilities,
            output_dependencies,
        },
    })
}

fn capabilities(cs: Node<'_, '_>) -> Result<Capabilities, FmuError> {
    let c = Capabilities {
        can_handle_variable_communication_step_size: flag(
            cs,
            "canHandleVariableCommunicationStepSize",
        )?,
        fixed_internal_step_size: number(cs, "fixedInternalStepSize")?,
        max_output_derivative_order: number(cs, "maxOutputDerivativeOrder")?.unwrap_or(0),
        recommended_intermediate_input_smoothness: number(
            cs,
            "recommendedIntermediateInputSmoothness",
        )?
        .unwrap_or(0),
        // The host passes no intermediate-update callback, so the FMU cannot use it.
        provides_intermediate_update: false,
        might_return_early_from_do_step: flag(cs, "mightReturnEarlyFromDoStep")?,
        can_return_early_after_intermediate_update: false,
        has_event_mode: flag(cs, "hasEventMode")?,
        provides_evaluate_discrete_states: flag(cs, "providesEvaluateDiscreteStates")?,
        can_get_and_set_fmu_state: flag(cs, "canGetAndSetFMUState")?,
        can_serialize_fmu_state: flag(cs, "canSerializeFMUState")?,
        provides_directional_derivatives: flag(cs, "providesDirectionalDerivatives")?,
        provides_adjoint_derivatives: false,
        x_max_input_derivative_order: 0,
        x_exposes_states: false,
        x_linear_time_invariant: false,
        x_provides_midpoint_outputs: false,
        x_exposes_equations: false,
        x_reports_energy: false,
    };
    if c.can_serialize_fmu_state && !c.can_get_and_set_fmu_state {
        return Err(err(
            "canSerializeFMUState=\"true\" requires canGetAndSetFMUState=\"true\"",
        ));
    }
    Ok(c)
}

/// `<TypeDefinitions><Float64Type name unit>`: units inherited through `declaredType`.
fn declared_units(root: Node<'_, '_>) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    if let Some(defs) = child(root, "TypeDefinitions") {
        for t in defs
            .children()
            .filter(|c| c.tag_name().name() == "Float64Type")
        {
            if let (Some(name), Some(unit)) = (t.attribute("name"), t.attribute("unit")) {
                out.insert(name.to_string(), unit.to_string());
            }
        }
    }
    out
}

fn variables(
    root: Node<'_, '_>,
    units: &BTreeMap<String, String>,
) -> Result<Vec<Variable>, FmuError> {
    let list = child(root, "ModelVariables").ok_or_else(|| err("no <ModelVariables> element"))?;
    let mut out: Vec<Variable> = Vec::new();
    for v in list
        .children()
        .filter(|c| c.is_element() && c.tag_name().name() == "Float64")
    {
        if child(v, "Dimension").is_some() {
            continue;
        }
        let name = v
            .attribute("name")
            .ok_or_else(|| err("a <Float64> has no name"))?;
        let value_ref: u32 = number(v, "valueReference")?
            .ok_or_else(|| err(format!("<Float64 name=\"{name}\"> has no valueReference")))?;
        if out.iter().any(|o| o.value_ref.0 == value_ref) {
            return Err(err(format!(
                "valueReference {value_ref} is used by two Float64 variables"
            )));
        }
        let causality = match v.attribute("causality").unwrap_or("local") {
            "parameter" | "structuralParameter" => Causality::Parameter,
            "calculatedParameter" => Causality::CalculatedParameter,
            "input" => Causality::Input,
            "output" => Causality::Output,
            "local" => Causality::Local,
            "independent" => Causality::Independent,
            other => {
                return Err(err(format!(
                    "<Float64 name=\"{name}\">: unknown causality \"{other}\""
                )))
            }
        };
        let variability = match v.attribute("variability").unwrap_or("continuous") {
            "constant" => Variability::Constant,
            "fixed" => Variability::Fixed,
            "tunable" => Variability::Tunable,
            "discrete" => Variability::Discrete,
            "continuous" => Variability::Continuous,
            other => {
                return Err(err(format!(
                    "<Float64 name=\"{name}\">: unknown variability \"{other}\""
                )))
            }
        };
        let unit = v
            .attribute("unit")
            .map(str::to_string)
            .or_else(|| {
                v.attribute("declaredType")
                    .and_then(|t| units.get(t).cloned())
            })
            .unwrap_or_default();
        let mut var = Variable::new(
            name,
            value_ref,
            causality,
            variability,
            number(v, "start")?,
            &unit,
        );
        var.description = v.attribute("description").unwrap_or_default().to_string();
        out.push(var);
    }
    Ok(out)
}

/// `<Output valueReference dependencies dependenciesKind>`, restricted to inputs (the only
/// knowns a co-simulation master sets). No `dependencies` attribute means "depends on
/// every known" (FMI 3.0 §2.4.8); an output not listed at all is treated the same way.
fn output_dependencies(
    root: Node<'_, '_>,
    vars: &[Variable],
) -> Result<Vec<OutputDependency>, FmuError> {
    let inputs: Vec<ValueRef> = vars
        .iter()
        .filter(|v| v.causality == Causality::Input)
        .map(|v| v.value_ref)
        .collect();
    let all_inputs = || {
        inputs
            .iter()
            .map(|&i| (i, DependencyKind::Dependent))
            .collect::<Vec<_>>()
    };
    let mut listed: BTreeMap<u32, Vec<(ValueRef, DependencyKind)>> = BTreeMap::new();
    if let Some(ms) = child(root, "ModelStructure") {
        for o in ms.children().filter(|c| c.tag_name().name() == "Output") {
            let vr: u32 = number(o, "valueReference")?
                .ok_or_else(|| err("an <Output> has no valueReference"))?;
            let deps = match o.attribute("dependencies") {
                None => all_inputs(),
                Some(text) => {
                    let kinds: Vec<&str> = o
                        .attribute("dependenciesKind")
                        .unwrap_or("")
                        .split_whitespace()
                        .collect();
                    let mut d = Vec::new();
                    for (k, tok) in text.split_whitespace().enumerate() {
                        let known: u32 = tok
                            .parse()
                            .map_err(|_| err(format!("<Output valueReference=\"{vr}\">: dependency \"{tok}\" is not a number")))?;
                        if inputs.contains(&ValueRef(known)) {
                            let kind = if kinds.get(k) == Some(&"constant") {
                                DependencyKind::Constant
                            } else {
                                DependencyKind::Dependent
                            };
                            d.push((ValueRef(known), kind));
                        }
                    }
                    d
                }
            };
            listed.insert(vr, deps);
        }
    }
    Ok(vars
        .iter()
        .filter(|v| v.causality == Causality::Output)
        .map(|v| OutputDependency {
            output: v.value_ref,
            inputs: listed.remove(&v.value_ref.0).unwrap_or_else(all_inputs),
        })
        .collect())
}
