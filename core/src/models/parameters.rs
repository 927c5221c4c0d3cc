//! Checking parameter and start values given by name (scenario `parameters` maps), with
//! messages that name the parameter and say what is expected.

use crate::module::ModuleError;
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// Allowed values of a parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Range {
    /// Any finite number.
    Finite,
    /// Finite and ≥ 0.
    NonNegative,
    /// Finite and > 0.
    Positive,
}

/// `value` if it lies in `range`, else an error naming the parameter, e.g.
/// "parameter `ck`: expected a non-negative number, got -3".
pub fn check(name: &str, value: f64, range: Range) -> Result<f64, ModuleError> {
    let (ok, what) = match range {
        Range::Finite => (value.is_finite(), "a finite number"),
        Range::NonNegative => (value.is_finite() && value >= 0.0, "a non-negative number"),
        Range::Positive => (value.is_finite() && value > 0.0, "a positive number"),
    };
    if ok {
        Ok(value)
    } else {
        Err(ModuleError::invalid(format!(
            "parameter `{name}`: expected {what}, got {value}"
        )))
    }
}

/// Copies the entries of `map` into the named slots, checking each; an unknown name is an
/// error listing the known ones.
pub(crate) fn apply(
    model_id: &str,
    map: &BTreeMap<String, f64>,
    slots: &mut [(&str, Range, &mut f64)],
) -> Result<(), ModuleError> {
    for (name, value) in map {
        match slots.iter_mut().find(|(n, _, _)| *n == name.as_str()) {
            Some((n, range, slot)) => **slot = check(n, *value, *range)?,
            None => {
                let known: Vec<&str> = slots.iter().map(|(n, _, _)| *n).collect();
                return Err(ModuleError::invalid(format!(
                    "parameter `{name}`: {model_id} has no parameter or state of this name (known: {})",
                    known.join(", ")
                )));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::module::ModuleErrorKind;

    fn message(e: ModuleError) -> String {
        match e.kind {
            ModuleErrorKind::InvalidArgument(m) => m,
            other => format!("{other:?}"),
        }
    }

    #[test]
    fn messages_name_the_parameter_and_the_expectation() {
        let e = check("ck", -3.0, Range::NonNegative).expect_err("negative");
        assert_eq!(
            message(e),
            "parameter `ck`: expected a non-negative number, got -3"
        );
        let e = check("m1", 0.0, Range::Positive).expect_err("zero mass");
        assert_eq!(
            message(e),
            "parameter `m1`: expected a positive number, got 0"
        );
        assert!(check("x1", f64::NAN, Range::Finite).is_err());
        assert_eq!(check("x1", -1.5, Range::Finite), Ok(-1.5));
    }

    #[test]
    fn unknown_names_are_refused() {
        let mut a = 1.0;
        let mut map = BTreeMap::new();
        map.insert(String::from("q"), 2.0);
        let e = apply("M", &map, &mut [("a", Range::Finite, &mut a)]).expect_err("unknown");
        assert!(message(e).starts_with("parameter `q`"));
    }
}
