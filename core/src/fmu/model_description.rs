//! Reading FMI 3.0 `modelDescription.xml` into a [`ModuleDescription`]: the attributes of
//! `<fmiModelDescription>`, the `<CoSimulation>` capability flags, the variables and
//! `<ModelStructure><Output dependencies>` (FMI 3.0 §2.4, §4.4).
//!
//! Float64 scalars are read here; every other numeric variable, every array element,
//! every output Clock and every triggered input Clock becomes a port through
//! [`super::typed_ports`];
//! String and Binary variables are parameters and recorded outputs (`all_variables`).

pub use super::typed_ports::PortMap;
pub use super::variable_types::{DeclaredVariable, Dimension, VariableType};
use super::FmuError;
use crate::module::{
    Capabilities, Causality, DependencyKind, ModuleDescription, OutputDependency, ValueRef,
    Variability, Variable,
};
use alloc::collections::{BTreeMap, BTreeSet};
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
    /// Every variable as declared, of any type and shape; String and Binary variables
    /// are not in `module` (see [`DeclaredVariable::is_supported`]).
    pub all_variables: Vec<DeclaredVariable>,
    /// What each port that is not a Float64 scalar stands for.
    pub ports: PortMap,
}

/// Most variables (of any type) a `modelDescription.xml` may declare.
pub const MAX_VARIABLES: usize = 100_000;

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
    let cs = child(root, "CoSimulation").ok_or_else(|| no_co_simulation(root))?;
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
    let mut variables = variables(root, &units)?;
    let all_variables = child(root, "ModelVariables")
        .map(super::variable_types::declared_variables)
        .transpose()?
        .unwrap_or_default();
    let ports = super::typed_ports::add_typed_ports(&all_variables, &mut variables)?;
    let output_dependencies = output_dependencies(root, &variables, &ports)?;
    Ok(ModelDescription {
        fmi_version,
        instantiation_token,
        model_identifier,
        all_variables,
        ports,
        module: ModuleDescription {
            model_name: model_name.to_string(),
            variables,
            capabilities,
            output_dependencies,
        },
    })
}

/// Why an FMU without `<CoSimulation>` cannot be a binary module, naming the interface
/// types it offers instead.
fn no_co_simulation(root: Node<'_, '_>) -> FmuError {
    let offered: Vec<&str> = [
        ("ModelExchange", "Model Exchange"),
        ("ScheduledExecution", "Scheduled Execution"),
    ]
    .into_iter()
    .filter(|(tag, _)| child(root, tag).is_some())
    .map(|(_, name)| name)
    .collect();
    let names = offered.join(" and ");
    let verb = if offered.len() > 1 { "are" } else { "is" };
    match offered.is_empty() {
        true => err("no <CoSimulation> element: the FMU does not support co-simulation"),
        false => err(format!(
            "the FMU offers only {names} (no <CoSimulation> element): binary modules run in FMI \
             3.0 Co-Simulation, and {names} {verb} not supported"
        )),
    }
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
    let declared = list.children().filter(|c| c.is_element()).count();
    if declared > MAX_VARIABLES {
        return Err(err(format!(
            "<ModelVariables> declares {declared} variables; at most {MAX_VARIABLES} are supported"
        )));
    }
    check_unique(list)?;
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
        let start: Option<f64> = number(v, "start")?;
        if let Some(x) = start.filter(|x| !x.is_finite()) {
            return Err(err(format!(
                "<Float64 name=\"{name}\" start=\"{}\">: the start value is {x}; it must be finite",
                v.attribute("start").unwrap_or_default()
            )));
        }
        let mut var = Variable::new(name, value_ref, causality, variability, start, &unit);
        var.description = v.attribute("description").unwrap_or_default().to_string();
        out.push(var);
    }
    Ok(out)
}

/// Names and value references are unique across every variable, of any type (FMI 3.0
/// §2.4.7): checked with sets, so 100,000 variables cost no more than sorting them.
fn check_unique(list: Node<'_, '_>) -> Result<(), FmuError> {
    let mut names = BTreeSet::new();
    let mut refs = BTreeSet::new();
    for v in list.children().filter(|c| c.is_element()) {
        let kind = v.tag_name().name();
        if let Some(name) = v.attribute("name") {
            if !names.insert(name) {
                return Err(err(format!("two variables are named \"{name}\"")));
            }
        }
        if let Some(vr) = v.attribute("valueReference") {
            let vr: u32 = vr.trim().parse().map_err(|_| {
                err(format!(
                    "<{kind} valueReference=\"{vr}\">: not a valid number"
                ))
            })?;
            if !refs.insert(vr) {
                return Err(err(format!(
                    "valueReference {vr} is used by two variables (the second is a <{kind}>)"
                )));
            }
        }
    }
    Ok(())
}

/// `<Output valueReference dependencies dependenciesKind>`, restricted to inputs (the only
/// knowns a co-simulation master sets). No `dependencies` attribute means "depends on
/// every known" (FMI 3.0 §2.4.8); an output not listed at all is treated the same way.
/// An array stands for all its element ports, on either side.
fn output_dependencies(
    root: Node<'_, '_>,
    vars: &[Variable],
    ports: &PortMap,
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
    let all_refs: BTreeSet<u32> = child(root, "ModelVariables")
        .into_iter()
        .flat_map(|list| list.children())
        .filter_map(|v| v.attribute("valueReference")?.trim().parse().ok())
        .collect();
    if let Some(ms) = child(root, "ModelStructure") {
        for o in ms.children().filter(|c| c.tag_name().name() == "Output") {
            let vr: u32 = number(o, "valueReference")?
                .ok_or_else(|| err("an <Output> has no valueReference"))?;
            if !all_refs.contains(&vr) {
                return Err(err(format!(
                    "<Output valueReference=\"{vr}\">: no variable has this valueReference"
                )));
            }
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
                        if !all_refs.contains(&known) {
                            return Err(err(format!(
                                "<Output valueReference=\"{vr}\">: dependency {known} is not the valueReference of any variable"
                            )));
                        }
                        let kind = if kinds.get(k) == Some(&"constant") {
                            DependencyKind::Constant
                        } else {
                            DependencyKind::Dependent
                        };
                        for port in ports.ports_of(known) {
                            if inputs.contains(&port) {
                                d.push((port, kind));
                            }
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
            inputs: listed
                .get(&ports.fmi_vr(v.value_ref))
                .cloned()
                .unwrap_or_else(all_inputs),
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn md(variables: &str, structure: &str) -> String {
        alloc::format!(
            r#"<fmiModelDescription fmiVersion="3.0" modelName="M" instantiationToken="t">
  <CoSimulation modelIdentifier="m"/>
  <ModelVariables>{variables}</ModelVariables>
  <ModelStructure>{structure}</ModelStructure>
</fmiModelDescription>"#
        )
    }

    fn refused(xml: &str) -> String {
        parse(xml).err().expect("refused").to_string()
    }

    #[test]
    fn duplicate_names_and_value_references_are_refused_across_types() {
        let e = refused(&md(
            r#"<Float64 name="x" valueReference="1"/><Int32 name="x" valueReference="2"/>"#,
            "",
        ));
        assert_eq!(e, "modelDescription.xml: two variables are named \"x\"");
        let e = refused(&md(
            r#"<Float64 name="x" valueReference="1"/><Boolean name="b" valueReference="1"/>"#,
            "",
        ));
        assert!(
            e.contains("valueReference 1 is used by two variables"),
            "{e}"
        );
    }

    #[test]
    fn start_values_must_be_finite() {
        for start in ["NaN", "1e999", "-inf"] {
            let v = alloc::format!(
                r#"<Float64 name="p" valueReference="1" causality="parameter" variability="fixed" start="{start}"/>"#
            );
            let e = refused(&md(&v, ""));
            assert!(e.contains("must be finite") && e.contains(start), "{e}");
        }
    }

    #[test]
    fn dependencies_must_name_variables() {
        let vars = r#"<Float64 name="u" valueReference="1" causality="input" start="0"/>
            <Float64 name="y" valueReference="2" causality="output"/>"#;
        let e = refused(&md(
            vars,
            r#"<Output valueReference="2" dependencies="1 7"/>"#,
        ));
        assert!(
            e.contains("dependency 7 is not the valueReference of any variable"),
            "{e}"
        );
        let e = refused(&md(vars, r#"<Output valueReference="9"/>"#));
        assert!(
            e.contains("<Output valueReference=\"9\">: no variable"),
            "{e}"
        );
        assert!(parse(&md(
            vars,
            r#"<Output valueReference="2" dependencies="1"/>"#
        ))
        .is_ok());
    }

    #[test]
    fn many_variables_are_checked_in_n_log_n_and_too_many_refused_before_parsing_them() {
        let many = |n: usize| {
            (0..n)
                .map(|k| alloc::format!(r#"<Float64 name="v{k}" valueReference="{k}"/>"#))
                .collect::<String>()
        };
        let d = parse(&md(&many(MAX_VARIABLES), "")).expect("the limit itself is fine");
        assert_eq!(d.module.variables.len(), MAX_VARIABLES);
        let e = refused(&md(&many(500_000), ""));
        assert!(
            e.contains("declares 500000 variables; at most 100000"),
            "{e}"
        );
    }
}
