//! Checking parameter and start values given by name (scenario `parameters` maps), with
//! messages that name the parameter and say what is expected; [`ParameterSet`], a model's
//! parameters and state start values as one table of named slots.

use super::layout::PortSpec;
use crate::module::{Causality, ModuleError, Variability, Variable};
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
    slots: &mut [Slot<'_>],
) -> Result<(), ModuleError> {
    for (name, value) in map {
        match slots.iter_mut().find(|slot| slot.0 == name.as_str()) {
            Some((n, range, _, _, slot)) => **slot = check(n, *value, *range)?,
            None => {
                let known: Vec<&str> = slots.iter().map(|slot| slot.0).collect();
                return Err(ModuleError::invalid(format!(
                    "parameter `{name}`: {model_id} has no parameter or state of this name (known: {})",
                    known.join(", ")
                )));
            }
        }
    }
    Ok(())
}

/// One named value of a [`ParameterSet`]: name, allowed values, unit (empty when
/// dimensionless), one-line description, and the field that holds it.
pub type Slot<'a> = (&'static str, Range, &'static str, &'static str, &'a mut f64);

/// A model's parameters and state start values as named, range-checked slots: by name from
/// a scenario map, by position from a parameter vector, one at a time from `fmi3Set`; and
/// as the ports and catalog variables the model declares.
pub trait ParameterSet: Default + Clone {
    /// Model id named in errors.
    const MODEL_ID: &'static str;
    /// How many leading slots are parameters (the rest are state start values).
    const PARAMETERS: usize;

    /// Runs `f` on every slot: parameters first, then states.
    fn with_slots<R>(&mut self, f: impl FnOnce(&mut [Slot<'_>]) -> R) -> R;

    /// Relations between values that single-value ranges cannot express.
    fn check_relations(&self) -> Result<(), ModuleError> {
        Ok(())
    }

    /// Defaults overridden by `map` (parameter or state names), checked.
    fn from_map(map: &BTreeMap<String, f64>) -> Result<Self, ModuleError> {
        let mut p = Self::default();
        p.with_slots(|s| apply(Self::MODEL_ID, map, s))?;
        p.check_relations()?;
        Ok(p)
    }

    /// Defaults with the parameters (not the states) set from `values` in order, checked.
    fn from_values(values: &[f64]) -> Result<Self, ModuleError> {
        let mut p = Self::default();
        p.with_slots(|s| assign(Self::MODEL_ID, &mut s[..Self::PARAMETERS], values))?;
        p.check_relations()?;
        Ok(p)
    }

    /// Parameter `index` ← `value`, checked; unchanged on error.
    fn set_parameter(&mut self, index: usize, value: f64) -> Result<(), ModuleError> {
        let mut p = self.clone();
        p.with_slots(|s| match s[..Self::PARAMETERS].get_mut(index) {
            Some((name, range, _, _, slot)) => {
                **slot = check(name, value, *range)?;
                Ok(())
            }
            None => Err(ModuleError::invalid("no such parameter")),
        })?;
        p.check_relations()?;
        *self = p;
        Ok(())
    }

    /// Value of parameter `index` (NaN past the parameters).
    fn parameter(&self, index: usize) -> f64 {
        let mut p = self.clone();
        p.with_slots(|s| match s[..Self::PARAMETERS].get(index) {
            Some(slot) => *slot.4,
            None => f64::NAN,
        })
    }

    /// Parameters and state start values as ports with their current values.
    fn ports(&self) -> (Vec<PortSpec>, Vec<PortSpec>) {
        let mut p = self.clone();
        p.with_slots(|s| {
            let port =
                |(name, _, unit, text, value): &Slot<'_>| PortSpec::new(name, unit, **value, text);
            let (parameters, states) = s.split_at(Self::PARAMETERS);
            (
                parameters.iter().map(port).collect(),
                states.iter().map(port).collect(),
            )
        })
    }

    /// Parameters as ports with their current values.
    fn parameters(&self) -> Vec<PortSpec> {
        self.ports().0
    }

    /// State start values as ports.
    fn states(&self) -> Vec<PortSpec> {
        self.ports().1
    }

    /// Parameters (`fixed`) and state start values (`local`, continuous) as variables
    /// numbered from 0 in slot order, with their current values as start values.
    fn variables(&self) -> Vec<Variable> {
        let (parameters, states) = self.ports();
        let kinds = core::iter::repeat((Causality::Parameter, Variability::Fixed))
            .take(parameters.len())
            .chain(core::iter::repeat((
                Causality::Local,
                Variability::Continuous,
            )));
        parameters
            .iter()
            .chain(&states)
            .zip(kinds)
            .enumerate()
            .map(|(i, (p, (c, v)))| {
                Variable::new(&p.name, i as u32, c, v, Some(p.start), &p.unit)
                    .described(&p.description)
            })
            .collect()
    }

    /// [`ParameterSet::variables`] of the defaults: what the catalog lists.
    fn catalog() -> Vec<Variable> {
        Self::default().variables()
    }
}

/// Sets `slots` from `values` in order, checking each; the counts must agree.
fn assign(model_id: &str, slots: &mut [Slot<'_>], values: &[f64]) -> Result<(), ModuleError> {
    if slots.len() != values.len() {
        return Err(ModuleError::invalid(format!(
            "{model_id} has {} parameters, got {} values",
            slots.len(),
            values.len()
        )));
    }
    for ((name, range, _, _, slot), value) in slots.iter_mut().zip(values) {
        **slot = check(name, *value, *range)?;
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
        let e = apply("M", &map, &mut [("a", Range::Finite, "", "", &mut a)]).expect_err("unknown");
        assert!(message(e).starts_with("parameter `q`"));
    }
}
