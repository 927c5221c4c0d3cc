//! [`SolverSpec`]: which integrator a module uses, as a scenario writes it
//! (`"solver": {"method": "rk4", "step": 1e-5}`). Models turn it into an
//! [`Integrator`](super::Integrator) when they are built.

use serde::{Deserialize, Serialize};

/// Integration method inside a module.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "method", rename_all = "snake_case", deny_unknown_fields)]
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
}
