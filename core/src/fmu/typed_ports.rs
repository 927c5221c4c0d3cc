//! A binary module's ports of every numeric FMI 3.0 type, and the elements of its arrays.
//!
//! Float64 scalars keep their FMI value reference as port (the fast path: one
//! `fmi3GetFloat64` for all of them). Every other numeric variable, and every element of
//! an array (`<Dimension>`, fixed or given by a structural parameter's start value), is a
//! port of its own with a value reference above the FMU's largest one; the [`PortMap`]
//! says which FMI variable and element each stands for. Elements are named `a[i]`
//! (1-based, as Modelica and SSP count) or `a[i,j]` for more dimensions, row-major.
//! Output Clocks and triggered input Clocks are ports of type Clock (1 where the clock
//! ticked); time-based input Clocks, which the master ticks itself (`clock_schedule`), String and
//! Binary variables are not ports.

use super::variable_types::{DeclaredVariable, Dimension, VariableType};
use super::FmuError;
use crate::module::{Causality, PortType, ValueRef, Variability, Variable};
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// Most ports (array elements included) one module may have.
pub const MAX_PORTS: usize = 100_000;

/// One port that is not a Float64 scalar: a numeric variable or an array element.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TypedPort {
    /// The port's value reference as the master sees it.
    pub port: ValueRef,
    /// The FMI variable's value reference.
    pub fmi_vr: u32,
    /// The FMI variable's type.
    pub ty: VariableType,
    /// The element's position in the variable (row-major; 0 for a scalar).
    pub element: u32,
    /// The variable's number of elements (1 for a scalar).
    pub len: u32,
}

/// Every [`TypedPort`] of a module, sorted by port value reference.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PortMap {
    ports: Vec<TypedPort>,
    /// Port value references of each FMI variable that has typed ports, element order.
    by_fmi: BTreeMap<u32, Vec<ValueRef>>,
}

impl PortMap {
    /// True if every port is a Float64 scalar (the module's calls take the fast path).
    pub fn is_empty(&self) -> bool {
        self.ports.is_empty()
    }

    /// The typed port `vr`, `None` for a Float64 scalar (or an unknown reference).
    pub fn get(&self, vr: ValueRef) -> Option<&TypedPort> {
        self.ports
            .binary_search_by_key(&vr, |p| p.port)
            .ok()
            .map(|k| &self.ports[k])
    }

    /// The ports an FMI value reference stands for: its elements, or itself.
    pub fn ports_of(&self, fmi_vr: u32) -> Vec<ValueRef> {
        self.by_fmi
            .get(&fmi_vr)
            .cloned()
            .unwrap_or_else(|| alloc::vec![ValueRef(fmi_vr)])
    }

    /// The FMI value reference port `vr` belongs to.
    pub fn fmi_vr(&self, vr: ValueRef) -> u32 {
        self.get(vr).map_or(vr.0, |p| p.fmi_vr)
    }

    /// The FMI variable types that have ports (each needs its get and set exports).
    pub fn types(&self) -> Vec<VariableType> {
        let mut out: Vec<VariableType> = Vec::new();
        for p in &self.ports {
            if !out.contains(&p.ty) {
                out.push(p.ty);
            }
        }
        out
    }
}

/// Removes the ports of the types `keep` refuses: those whose get and set functions the
/// module does not export stay in `all_variables` only, as before typed ports existed.
pub(super) fn retain_port_types(
    md: &mut super::ModelDescription,
    keep: impl Fn(VariableType) -> bool,
) {
    let dropped: alloc::collections::BTreeSet<ValueRef> = md
        .ports
        .ports
        .iter()
        .filter(|p| !keep(p.ty))
        .map(|p| p.port)
        .collect();
    if dropped.is_empty() {
        return;
    }
    let gone = |vr: &ValueRef| dropped.contains(vr);
    md.ports.ports.retain(|p| !gone(&p.port));
    md.ports.by_fmi.retain(|_, ports| !ports.iter().any(gone));
    let m = &mut md.module;
    m.variables.retain(|v| !gone(&v.value_ref));
    m.output_dependencies.retain(|d| !gone(&d.output));
    for d in &mut m.output_dependencies {
        d.inputs.retain(|(i, _)| !gone(i));
    }
}

/// The port type of an FMI type; `None` for String and Binary.
pub fn port_type(ty: VariableType) -> Option<PortType> {
    Some(match ty {
        VariableType::Float64 => PortType::Float64,
        VariableType::Float32 => PortType::Float32,
        VariableType::Int(b) => PortType::Int(b),
        VariableType::UInt(b) => PortType::UInt(b),
        VariableType::Boolean => PortType::Boolean,
        VariableType::Enumeration => PortType::Enumeration,
        VariableType::Clock => PortType::Clock,
        VariableType::String | VariableType::Binary => return None,
    })
}

fn err(msg: String) -> FmuError {
    FmuError::ModelDescription(msg)
}

/// A start value as a number: `true`/`false` for booleans, integers exactly when they fit.
pub fn start_number(ty: VariableType, text: &str) -> Option<f64> {
    match ty {
        VariableType::Boolean => match text {
            "true" | "1" => Some(1.0),
            "false" | "0" => Some(0.0),
            _ => None,
        },
        VariableType::Float32 | VariableType::Float64 => {
            text.parse::<f64>().ok().filter(|x| x.is_finite())
        }
        _ => text
            .parse::<i128>()
            .ok()
            .filter(|n| n.unsigned_abs() <= 1 << 53)
            .map(|n| n as f64),
    }
}

/// The extent of each dimension of `v`: fixed, or the start value of the structural
/// parameter it names.
pub fn extents(v: &DeclaredVariable, all: &[DeclaredVariable]) -> Result<Vec<u64>, FmuError> {
    v.dimensions
        .iter()
        .map(|d| match *d {
            Dimension::Fixed(n) => Ok(n),
            Dimension::Structural(vr) => all
                .iter()
                .find(|p| p.value_ref == vr)
                .filter(|p| matches!(p.ty, VariableType::Int(_) | VariableType::UInt(_)))
                .and_then(|p| p.start.first()?.parse::<u64>().ok())
                .ok_or_else(|| {
                    err(format!(
                        "`{}`: <Dimension valueReference=\"{vr}\"> must name an integer structural \
                         parameter with a start value",
                        v.name
                    ))
                }),
        })
        .collect()
}

pub(super) fn element_name(name: &str, extents: &[u64], mut flat: u64) -> String {
    let mut index = alloc::vec![0u64; extents.len()];
    for (slot, &n) in index.iter_mut().zip(extents).rev() {
        *slot = flat % n + 1;
        flat /= n;
    }
    let text: Vec<String> = index.iter().map(|i| format!("{i}")).collect();
    format!("{name}[{}]", text.join(","))
}

fn causality(v: &DeclaredVariable) -> Result<Causality, FmuError> {
    Ok(match v.causality.as_str() {
        "parameter" | "structuralParameter" => Causality::Parameter,
        "calculatedParameter" => Causality::CalculatedParameter,
        "input" => Causality::Input,
        "output" => Causality::Output,
        "local" => Causality::Local,
        "independent" => Causality::Independent,
        other => return Err(err(format!("`{}`: unknown causality \"{other}\"", v.name))),
    })
}

fn variability(v: &DeclaredVariable) -> Result<Variability, FmuError> {
    Ok(match v.variability.as_str() {
        "constant" => Variability::Constant,
        "fixed" => Variability::Fixed,
        "tunable" => Variability::Tunable,
        "discrete" => Variability::Discrete,
        "continuous" => Variability::Continuous,
        // FMI 3.0 §2.4.7.4: continuous for floats, discrete for the other types.
        "" if matches!(v.ty, VariableType::Float32 | VariableType::Float64) => {
            Variability::Continuous
        }
        "" => Variability::Discrete,
        other => {
            return Err(err(format!(
                "`{}`: unknown variability \"{other}\"",
                v.name
            )))
        }
    })
}

/// Adds to `vars` (the Float64 scalars) a port for every numeric variable that is not a
/// Float64 scalar and for every element of a numeric array, all in declaration order (a
/// module with Float64 scalars only keeps its order); returns what each port stands for.
pub fn add_typed_ports(
    all: &[DeclaredVariable],
    vars: &mut Vec<Variable>,
) -> Result<PortMap, FmuError> {
    let mut next = all.iter().map(|v| v.value_ref).max().unwrap_or(0);
    let mut map = PortMap::default();
    let mut scalars: BTreeMap<u32, Variable> = core::mem::take(vars)
        .into_iter()
        .map(|v| (v.value_ref.0, v))
        .collect();
    for v in all {
        if let Some(var) = scalars.remove(&v.value_ref) {
            vars.push(var);
            continue;
        }
        let Some(ty) = port_type(v.ty) else { continue };
        if ty == PortType::Clock {
            // An input clock of a kind the master cannot serve is refused here, by name.
            if v.causality == "input" {
                v.input_clock_kind()?;
            }
            if !v.is_clock_port() {
                continue;
            }
        }
        let scalar = v.dimensions.is_empty();
        if (ty == PortType::Float64 && scalar) || v.causality == "independent" {
            continue;
        }
        let extents = extents(v, all)?;
        let len = extents.iter().try_fold(1u64, |a, &n| a.checked_mul(n));
        let len = len
            .filter(|&n| n <= (MAX_PORTS - vars.len().min(MAX_PORTS)) as u64)
            .ok_or_else(|| {
                err(format!(
                    "`{}` has {extents:?} elements; a module may have at most {MAX_PORTS} ports",
                    v.name
                ))
            })?;
        let (causality, variability) = (causality(v)?, variability(v)?);
        let mut ports = Vec::with_capacity(len as usize);
        for k in 0..len {
            next = next.checked_add(1).ok_or_else(|| {
                err(
                    "value references reach 2^32 - 1: no room for the ports of arrays and typed \
                     variables"
                        .into(),
                )
            })?;
            let name = match scalar {
                true => v.name.clone(),
                false => element_name(&v.name, &extents, k),
            };
            let start = match v.start.len() as u64 {
                1 if scalar => start_number(v.ty, &v.start[0]),
                n if n == len && !scalar => start_number(v.ty, &v.start[k as usize]),
                _ => None,
            };
            let mut var = Variable::new(&name, next, causality, variability, start, &v.unit);
            var.description = v.description.clone();
            var.port_type = ty;
            vars.push(var);
            map.ports.push(TypedPort {
                port: ValueRef(next),
                fmi_vr: v.value_ref,
                ty: v.ty,
                element: k as u32,
                len: len as u32,
            });
            ports.push(ValueRef(next));
        }
        map.by_fmi.insert(v.value_ref, ports);
    }
    vars.extend(scalars.into_values());
    Ok(map)
}

#[cfg(test)]
mod tests {
    use super::super::model_description::parse;
    use super::*;
    use alloc::string::ToString;

    fn md(variables: &str, structure: &str) -> String {
        format!(
            r#"<fmiModelDescription fmiVersion="3.0" modelName="M" instantiationToken="t">
  <CoSimulation modelIdentifier="m"/>
  <ModelVariables>{variables}</ModelVariables>
  <ModelStructure>{structure}</ModelStructure>
</fmiModelDescription>"#
        )
    }

    #[test]
    fn numeric_variables_and_array_elements_are_ports_strings_and_binaries_are_not() {
        let vars = r#"<Float64 name="x" valueReference="1"/>
            <Int32 name="n" valueReference="2" causality="output"/>
            <Boolean name="b" valueReference="3" causality="input" start="true"/>
            <UInt64 name="size" valueReference="4" causality="structuralParameter" variability="fixed" start="3"/>
            <Float64 name="a" valueReference="5" causality="output"><Dimension valueReference="4"/></Float64>
            <Enumeration name="e" valueReference="6" declaredType="E"/>
            <Binary name="blob" valueReference="7"><Dimension start="2"/></Binary>
            <Int8 name="m" valueReference="8" causality="input" start="1 2 3 4 5 6"><Dimension start="2"/><Dimension start="3"/></Int8>"#;
        let d = parse(&md(
            vars,
            r#"<Output valueReference="5" dependencies="8"/>"#,
        ))
        .unwrap();
        let ports: Vec<(&str, u32, PortType, Option<f64>)> = d
            .module
            .variables
            .iter()
            .map(|v| (v.name.as_str(), v.value_ref.0, v.port_type, v.start))
            .collect();
        assert_eq!(
            ports,
            [
                ("x", 1, PortType::Float64, None),
                ("n", 9, PortType::Int(32), None),
                ("b", 10, PortType::Boolean, Some(1.0)),
                ("size", 11, PortType::UInt(64), Some(3.0)),
                ("a[1]", 12, PortType::Float64, None),
                ("a[2]", 13, PortType::Float64, None),
                ("a[3]", 14, PortType::Float64, None),
                ("e", 15, PortType::Enumeration, None),
                ("m[1,1]", 16, PortType::Int(8), Some(1.0)),
                ("m[1,2]", 17, PortType::Int(8), Some(2.0)),
                ("m[1,3]", 18, PortType::Int(8), Some(3.0)),
                ("m[2,1]", 19, PortType::Int(8), Some(4.0)),
                ("m[2,2]", 20, PortType::Int(8), Some(5.0)),
                ("m[2,3]", 21, PortType::Int(8), Some(6.0)),
            ]
        );
        let p = d.ports.get(ValueRef(13)).unwrap();
        assert_eq!((p.fmi_vr, p.element, p.len), (5, 1, 3));
        assert!(
            d.ports.get(ValueRef(1)).is_none(),
            "Float64 scalars keep their vr"
        );
        // Each element of `a` depends on every element of `m`; `n` on every input.
        let a2 = d
            .module
            .output_dependencies
            .iter()
            .find(|o| o.output == ValueRef(13));
        let inputs: Vec<u32> = a2.unwrap().inputs.iter().map(|(i, _)| i.0).collect();
        assert_eq!(inputs, (16..=21).collect::<Vec<_>>());
        let n = d
            .module
            .output_dependencies
            .iter()
            .find(|o| o.output == ValueRef(9));
        assert_eq!(n.unwrap().inputs.len(), 7, "b and the six elements of m");
    }

    #[test]
    fn a_dimension_must_name_an_integer_structural_parameter() {
        let vars = r#"<Float64 name="p" valueReference="1" causality="parameter" start="2"/>
            <Float64 name="a" valueReference="2" causality="output"><Dimension valueReference="1"/></Float64>"#;
        let e = parse(&md(vars, "")).err().unwrap().to_string();
        assert!(
            e.contains("`a`: <Dimension valueReference=\"1\"> must name an integer"),
            "{e}"
        );
    }
}
