//! [`SolverSpec`]: which integrator a module uses, as a scenario writes it
//! (`"solver": {"method": "rk4", "step": 1e-5}`, `{"method": "bdf", "rtol": 1e-6,
//! "atol": [1e-9, 1e-6]}`). Models turn it into an [`Integrator`](super::Integrator) when
//! they are built.

use alloc::vec;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

/// Integration method inside a module.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "method",
    rename_all = "snake_case",
    deny_unknown_fields,
    from = "StrictSolverSpec"
)]
pub enum SolverSpec {
    /// The model's own default (exact for linear models).
    #[default]
    Default,
    /// Exact solution of a linear model over each step (augmented matrix exponential).
    Exact,
    /// Forward Euler with exactly one step per communication step, the slope taken from
    /// the state and the input value at the step start. Only models that list it offer it
    /// (the rotational oscillator slaves of the defect-control example).
    Euler,
    /// Symplectic Euler with exactly one step per communication step: `v += h·a(x, v, u)`
    /// with the state and the input value at the step start, then `x += h·v` with the new
    /// velocity. Only models that list it offer it (the energy benchmarks of
    /// docs/methods.md §13, whose energy it keeps bounded).
    SymplecticEuler,
    /// Classical Runge-Kutta 4 with a fixed micro-step (s); the macro-step is divided into
    /// the smallest whole number of micro-steps not longer than this.
    Rk4 {
        /// Largest micro-step in s.
        step: f64,
    },
    /// Adaptive Dormand-Prince 5(4) with error control.
    Dopri45 {
        /// Relative tolerance.
        rtol: f64,
        /// Absolute tolerance.
        atol: f64,
    },
    /// Variable-step, variable-order BDF (orders 1–5) for stiff modules.
    Bdf {
        /// Relative tolerance (> 0).
        rtol: f64,
        /// Absolute tolerance (> 0): one number, or one per state.
        atol: Tolerance,
    },
}

/// [`SolverSpec`] as read: serde ignores extra fields next to the tag of a unit variant
/// (`{"method": "exact", "rtol": 1}`), so every variant is a struct here, where
/// `deny_unknown_fields` holds.
#[derive(Deserialize)]
#[serde(tag = "method", rename_all = "snake_case", deny_unknown_fields)]
enum StrictSolverSpec {
    Default {},
    Exact {},
    Euler {},
    SymplecticEuler {},
    Rk4 { step: f64 },
    Dopri45 { rtol: f64, atol: f64 },
    Bdf { rtol: f64, atol: Tolerance },
}

impl From<StrictSolverSpec> for SolverSpec {
    fn from(s: StrictSolverSpec) -> Self {
        match s {
            StrictSolverSpec::Default {} => SolverSpec::Default,
            StrictSolverSpec::Exact {} => SolverSpec::Exact,
            StrictSolverSpec::Euler {} => SolverSpec::Euler,
            StrictSolverSpec::SymplecticEuler {} => SolverSpec::SymplecticEuler,
            StrictSolverSpec::Rk4 { step } => SolverSpec::Rk4 { step },
            StrictSolverSpec::Dopri45 { rtol, atol } => SolverSpec::Dopri45 { rtol, atol },
            StrictSolverSpec::Bdf { rtol, atol } => SolverSpec::Bdf { rtol, atol },
        }
    }
}

/// An absolute tolerance as a scenario writes it: one number for every state, or a list
/// with one number per state (in the order the model lists its states).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(
    untagged,
    expecting = "a number, or a list of numbers with one per state"
)]
pub enum Tolerance {
    /// The same tolerance for every state.
    All(f64),
    /// One tolerance per state.
    PerState(Vec<f64>),
}

impl Tolerance {
    /// The values: one, or one per state.
    pub fn values(&self) -> Vec<f64> {
        match self {
            Tolerance::All(v) => vec![*v],
            Tolerance::PerState(v) => v.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bdf_tolerances_are_a_number_or_a_list() {
        let one: SolverSpec =
            serde_json::from_str(r#"{"method": "bdf", "rtol": 1e-6, "atol": 1e-9}"#).expect("one");
        let Tolerance::All(a) = (match one {
            SolverSpec::Bdf { atol, .. } => atol,
            other => panic!("{other:?}"),
        }) else {
            panic!("not a single tolerance")
        };
        assert_eq!(a, 1e-9);
        let list: SolverSpec =
            serde_json::from_str(r#"{"method": "bdf", "rtol": 1e-6, "atol": [1e-9, 1e-6]}"#)
                .expect("list");
        assert_eq!(
            list,
            SolverSpec::Bdf {
                rtol: 1e-6,
                atol: Tolerance::PerState(vec![1e-9, 1e-6])
            }
        );
        let round_trip = serde_json::to_string(&list).expect("serialises");
        assert_eq!(
            round_trip,
            r#"{"method":"bdf","rtol":1e-6,"atol":[1e-9,1e-6]}"#
        );
        let e =
            serde_json::from_str::<SolverSpec>(r#"{"method": "bdf", "rtol": 1e-6, "atol": "x"}"#)
                .expect_err("a string");
        assert!(alloc::format!("{e}").contains("one per state"), "{e}");
    }
}
