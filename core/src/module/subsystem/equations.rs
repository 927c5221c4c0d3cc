//! The `x-exposesEquations` calls of [`Subsystem`]: the module's states, right-hand side
//! and outputs at any point, each checked for the FMI state and the lengths of its
//! arguments before it reaches the module's [`crate::module::ExposedEquations`].

use super::{FmiState, Subsystem};
use crate::module::{Causality, ModuleError};

/// The flag named in `Unsupported` errors.
const FLAG: &str = "x-exposesEquations";

/// States in which the equations may be read: once initialisation has begun (the start
/// values are set) and for as long as the instance lives.
const EQUATIONS_LEGAL: [FmiState; 4] = [
    FmiState::InitializationMode,
    FmiState::StepMode,
    FmiState::EventMode,
    FmiState::Terminated,
];

impl Subsystem {
    /// Extension: number of states of the exposed equations.
    pub fn equation_state_count(&mut self) -> Result<usize, ModuleError> {
        self.require("x-getEquationStateCount", &EQUATIONS_LEGAL)?;
        self.through(FLAG, |m| m.exposed_equations().map(|e| Ok(e.state_count())))
    }

    /// Extension: whether the exposed equations are stiff (the module integrates them with
    /// a stiff method).
    pub fn equations_stiff(&mut self) -> Result<bool, ModuleError> {
        self.require("x-getEquationStateCount", &EQUATIONS_LEGAL)?;
        self.through(FLAG, |m| m.exposed_equations().map(|e| Ok(e.stiff())))
    }

    /// Extension: the module's current states into `x` (one value per state).
    pub fn equation_states(&mut self, x: &mut [f64]) -> Result<(), ModuleError> {
        let n = self.equation_state_count()?;
        self.lengths("x-getEquationStates", &[(x.len(), n)])?;
        self.through(FLAG, |m| {
            m.exposed_equations().map(|e| {
                e.current_states(x);
                Ok(())
            })
        })
    }

    /// Extension: `dx = f(t, x, u)` of the module's equations.
    pub fn equation_rhs(
        &mut self,
        t: f64,
        x: &[f64],
        u: &[f64],
        dx: &mut [f64],
    ) -> Result<(), ModuleError> {
        let n = self.equation_state_count()?;
        let nu = self.count(Causality::Input);
        let sizes = [(x.len(), n), (u.len(), nu), (dx.len(), n)];
        self.lengths("x-getEquationRhs", &sizes)?;
        self.through(FLAG, |m| m.exposed_equations().map(|e| e.rhs(t, x, u, dx)))
    }

    /// Extension: `y = g(t, x, u)` of the module's equations.
    pub fn equation_outputs(
        &mut self,
        t: f64,
        x: &[f64],
        u: &[f64],
        y: &mut [f64],
    ) -> Result<(), ModuleError> {
        let n = self.equation_state_count()?;
        let (nu, ny) = (self.count(Causality::Input), self.count(Causality::Output));
        let sizes = [(x.len(), n), (u.len(), nu), (y.len(), ny)];
        self.lengths("x-getEquationOutputs", &sizes)?;
        self.through(FLAG, |m| {
            m.exposed_equations().map(|e| e.outputs(t, x, u, y))
        })
    }

    /// Number of variables of causality `c`.
    fn count(&self, c: Causality) -> usize {
        self.description().with_causality(c).count()
    }

    /// `Ok` if every `(given, expected)` length pair agrees; otherwise an invalid-argument
    /// error naming `call` (which, as every failed call, ends the instance).
    fn lengths(&mut self, call: &str, sizes: &[(usize, usize)]) -> Result<(), ModuleError> {
        match sizes.iter().find(|(given, expected)| given != expected) {
            None => Ok(()),
            Some((given, expected)) => self.checked(Err(ModuleError::invalid(alloc::format!(
                "{call}: expected {expected} values, got {given}"
            )))),
        }
    }
}
