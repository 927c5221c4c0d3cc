//! A scenario's parameters of a binary module, checked against the declared variables
//! once at load: numbers for Float64, Float32, integer and enumeration variables (whole and
//! in range for integers), `true`/`false` for Boolean, text for String, hexadecimal text
//! for Binary, and a JSON array with one value per element for an array. Errors name the
//! parameter in backticks (the scenario turns that into its JSON path).

use super::model_description::ModelDescription;
use super::typed_values::TypedValues;
use super::variable_types::{DeclaredVariable, Dimension, VariableType};
use super::FmuError;
use crate::module::ValueRef;
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use serde_json::Value;

/// Parameters ready to set after `fmi3InstantiateCoSimulation` (and `fmi3Reset`).
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct Prepared {
    /// Float64 scalars: one `fmi3SetFloat64`, as before typed ports existed.
    pub float64: Vec<(ValueRef, f64)>,
    /// Every other variable, whole.
    pub typed: Vec<(u32, TypedValues)>,
}

pub(super) fn settable(v: &DeclaredVariable) -> bool {
    v.variability != "constant"
        && !matches!(v.causality.as_str(), "calculatedParameter" | "independent")
        && !v.start.is_empty()
        && v.ty != VariableType::Clock
}

/// Whether a `<Dimension>` takes its extent from `v`.
pub(super) fn sizes_an_array(v: &DeclaredVariable, all: &[DeclaredVariable]) -> bool {
    let by_v = |d: &Dimension| *d == Dimension::Structural(v.value_ref);
    all.iter().any(|a| a.dimensions.iter().any(by_v))
}

pub(super) fn type_name(v: &DeclaredVariable) -> &'static str {
    match v.ty {
        VariableType::Float32 => "Float32",
        VariableType::Float64 => "Float64",
        VariableType::Int(8) => "Int8",
        VariableType::Int(16) => "Int16",
        VariableType::Int(32) => "Int32",
        VariableType::Int(_) => "Int64",
        VariableType::UInt(8) => "UInt8",
        VariableType::UInt(16) => "UInt16",
        VariableType::UInt(32) => "UInt32",
        VariableType::UInt(_) => "UInt64",
        VariableType::Boolean => "Boolean",
        VariableType::String => "String",
        VariableType::Binary => "Binary",
        VariableType::Enumeration => "Enumeration",
        VariableType::Clock => "Clock",
    }
}

/// Checks `params` (by variable name) against `md`.
pub(super) fn prepare(
    md: &ModelDescription,
    params: &BTreeMap<String, Value>,
) -> Result<Prepared, FmuError> {
    let mut out = Prepared::default();
    for (name, value) in params {
        let Some(var) = md.all_variables.iter().find(|v| &v.name == name) else {
            let element = md.module.variable(name).is_some();
            return Err(FmuError::Parameter(match element {
                true => format!(
                    "`{name}` is an array element; give the whole array `{}` as a JSON array",
                    name.split('[').next().unwrap_or(name)
                ),
                false => unknown(md, name),
            }));
        };
        if sizes_an_array(var, &md.all_variables) {
            return Err(FmuError::Parameter(format!(
                "`{name}` is a structural parameter (it sets the size of an array); it keeps its \
                 start value {} in this playground",
                var.start.join(" ")
            )));
        }
        if !settable(var) {
            return Err(FmuError::Parameter(unknown(md, name)));
        }
        let extents = super::typed_ports::extents(var, &md.all_variables)?;
        let len: u64 = extents.iter().product();
        let scalar = var.dimensions.is_empty();
        let bad = |why: String| FmuError::Parameter(format!("`{name}`: {why}, got {value}"));
        let items: Vec<&Value> = match (scalar, value) {
            (true, Value::Array(_)) => {
                return Err(bad(format!("{} is a scalar, not an array", type_name(var))))
            }
            (true, v) => alloc::vec![v],
            (false, Value::Array(a)) if a.len() as u64 == len => a.iter().collect(),
            (false, _) => {
                return Err(bad(format!(
                    "{} array of {len} elements expects a JSON array of {len} values",
                    type_name(var)
                )))
            }
        };
        let values =
            convert(var.ty, &items).map_err(|what| bad(format!("{} {what}", type_name(var))))?;
        match values {
            TypedValues::Float64(x) if scalar => out.float64.push((ValueRef(var.value_ref), x[0])),
            other => out.typed.push((var.value_ref, other)),
        }
    }
    Ok(out)
}

fn unknown(md: &ModelDescription, name: &str) -> String {
    let names: Vec<&str> = md
        .all_variables
        .iter()
        .filter(|v| settable(v) && !sizes_an_array(v, &md.all_variables))
        .map(|v| v.name.as_str())
        .collect();
    format!(
        "`{name}` is not a variable of `{}` with a settable start value; those are {}",
        md.module.model_name,
        if names.is_empty() {
            String::from("none")
        } else {
            names.join(", ")
        }
    )
}

/// The values of `items` as type `ty`; on failure what the type expects.
fn convert(ty: VariableType, items: &[&Value]) -> Result<TypedValues, &'static str> {
    let numbers = || -> Result<Vec<f64>, &'static str> {
        items
            .iter()
            .map(|v| {
                v.as_f64()
                    .filter(|x| x.is_finite())
                    .ok_or("expects a finite number")
            })
            .collect()
    };
    Ok(match ty {
        VariableType::Float64 => TypedValues::Float64(numbers()?),
        // A decimal written for a Float32 is rounded to the nearest Float32.
        VariableType::Float32 => {
            TypedValues::Float32(numbers()?.into_iter().map(|x| x as f32).collect())
        }
        VariableType::Boolean => TypedValues::Boolean(
            items
                .iter()
                .map(|v| v.as_bool().ok_or("expects true or false"))
                .collect::<Result<_, _>>()?,
        ),
        VariableType::String => TypedValues::String(
            items
                .iter()
                .map(|v| v.as_str().map(String::from).ok_or("expects a JSON string"))
                .collect::<Result<_, _>>()?,
        ),
        VariableType::Binary => TypedValues::Binary(
            items
                .iter()
                .map(|v| {
                    v.as_str()
                        .and_then(hex)
                        .ok_or("expects hexadecimal text, e.g. \"0a1b\"")
                })
                .collect::<Result<_, _>>()?,
        ),
        VariableType::UInt(bits) => {
            let max = if bits == 64 {
                u64::MAX
            } else {
                (1u64 << bits) - 1
            };
            TypedValues::UInt(
                ty,
                items
                    .iter()
                    .map(|v| {
                        integer(v)
                            .and_then(|n| u64::try_from(n).ok())
                            .filter(|&n| n <= max)
                    })
                    .collect::<Option<_>>()
                    .ok_or(uint_range(bits))?,
            )
        }
        VariableType::Int(_) | VariableType::Enumeration => {
            let bits = match ty {
                VariableType::Int(b) => b,
                _ => 64,
            };
            let (min, max) = (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1);
            TypedValues::Int(
                ty,
                items
                    .iter()
                    .map(|v| {
                        integer(v)
                            .filter(|n| (min..=max).contains(n))
                            .map(|n| n as i64)
                    })
                    .collect::<Option<_>>()
                    .ok_or(int_range(bits))?,
            )
        }
        VariableType::Clock => return Err("variables cannot be set as parameters"),
    })
}

fn uint_range(bits: u8) -> &'static str {
    match bits {
        8 => "expects a whole number in 0..=255",
        16 => "expects a whole number in 0..=65535",
        32 => "expects a whole number in 0..=4294967295",
        _ => "expects a whole number in 0..=18446744073709551615",
    }
}

fn int_range(bits: u8) -> &'static str {
    match bits {
        8 => "expects a whole number in -128..=127",
        16 => "expects a whole number in -32768..=32767",
        32 => "expects a whole number in -2147483648..=2147483647",
        _ => "expects a whole number in -9223372036854775808..=9223372036854775807",
    }
}

/// A JSON number that is a whole number, exactly (64-bit integers as written), or a
/// string of decimal digits (how the page keeps an Int64/UInt64 beyond 2^53 exact).
fn integer(v: &Value) -> Option<i128> {
    if let Some(text) = v.as_str() {
        return text.trim().parse().ok();
    }
    if let Some(n) = v.as_i64() {
        return Some(n.into());
    }
    if let Some(n) = v.as_u64() {
        return Some(n.into());
    }
    let x = v.as_f64()?;
    (x.is_finite() && x == libm::trunc(x) && x.abs() < 1.8e19).then_some(x as i128)
}

fn hex(text: &str) -> Option<Vec<u8>> {
    let t = text.trim();
    if t.len() % 2 != 0 {
        return None;
    }
    (0..t.len())
        .step_by(2)
        .map(|k| u8::from_str_radix(t.get(k..k + 2)?, 16).ok())
        .collect()
}

/// Numbers as JSON values, for the parameters of [`super::BinaryModule::from_fmu`].
pub(super) fn json_numbers(parameters: &BTreeMap<String, f64>) -> BTreeMap<String, Value> {
    parameters
        .iter()
        .map(|(k, &v)| (k.clone(), Value::from(v)))
        .collect()
}
