//! A module entry as JSON: one `parameters` object whose values may be numbers (the
//! common case, kept as `f64` in [`ModuleSpec::parameters`]) or anything else a binary
//! module's FMI 3.0 variables take: `true`/`false`, text, arrays, integers beyond 2^53
//! (kept as written in [`ModuleSpec::typed_parameters`]). Writing merges them back, so a
//! scenario with numbers only reads and writes exactly as before.

use super::{ModuleSpec, SolverSpec};
use alloc::collections::BTreeMap;
use alloc::string::String;
use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ModuleSpecJson {
    name: String,
    model: String,
    #[serde(default)]
    parameters: BTreeMap<String, ParameterJson>,
    #[serde(default)]
    solver: SolverSpec,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    source: Option<String>,
}

/// A number that an `f64` holds exactly, or any other JSON value.
#[derive(Serialize)]
#[serde(untagged)]
enum ParameterJson {
    Number(f64),
    Other(Value),
}

impl<'de> Deserialize<'de> for ParameterJson {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        if v.is_null() {
            return Err(serde::de::Error::custom(
                "invalid type: null, expected a number, true or false, text or an array",
            ));
        }
        Ok(match v.as_f64() {
            Some(x) if exact_as_f64(&v) => ParameterJson::Number(x),
            _ => ParameterJson::Other(v),
        })
    }
}

/// Whether an integer read as `f64` would change (beyond 2^53 in magnitude).
fn exact_as_f64(v: &Value) -> bool {
    const EXACT: u64 = 1 << 53;
    match (v.as_u64(), v.as_i64()) {
        (Some(n), _) => n <= EXACT,
        (None, Some(n)) => n.unsigned_abs() <= EXACT,
        _ => true,
    }
}

impl From<ModuleSpecJson> for ModuleSpec {
    fn from(j: ModuleSpecJson) -> Self {
        let mut parameters = BTreeMap::new();
        let mut typed_parameters = BTreeMap::new();
        for (name, value) in j.parameters {
            match value {
                ParameterJson::Number(x) => {
                    parameters.insert(name, x);
                }
                ParameterJson::Other(v) => {
                    typed_parameters.insert(name, v);
                }
            }
        }
        ModuleSpec {
            name: j.name,
            model: j.model,
            parameters,
            typed_parameters,
            solver: j.solver,
            source: j.source,
        }
    }
}

impl From<ModuleSpec> for ModuleSpecJson {
    fn from(m: ModuleSpec) -> Self {
        let mut parameters: BTreeMap<String, ParameterJson> = m
            .parameters
            .into_iter()
            .map(|(k, v)| (k, ParameterJson::Number(v)))
            .collect();
        for (k, v) in m.typed_parameters {
            parameters.insert(k, ParameterJson::Other(v));
        }
        ModuleSpecJson {
            name: m.name,
            model: m.model,
            parameters,
            solver: m.solver,
            source: m.source,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_stay_f64_and_other_values_are_kept_as_written() {
        let text = r#"{"name":"m","model":"Binary","parameters":{"a":1.5,"b":true,"c":[1,2],"d":"x","e":18446744073709551615,"f":3}}"#;
        let m: ModuleSpec = serde_json::from_str(text).unwrap();
        assert_eq!(m.parameters.len(), 2);
        assert_eq!((m.parameters["a"], m.parameters["f"]), (1.5, 3.0));
        assert_eq!(m.typed_parameters["e"].as_u64(), Some(u64::MAX));
        assert_eq!(m.typed_parameters["b"], Value::Bool(true));
        let back = serde_json::to_string(&m).unwrap();
        assert!(back.contains(r#""parameters":{"a":1.5,"b":true,"c":[1,2],"d":"x","e":18446744073709551615,"f":3.0}"#), "{back}");
        assert!(exact_as_f64(&Value::from(1u64 << 53)));
    }
}
