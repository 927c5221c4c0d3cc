//! Subsystem II of the two-mass oscillator with the nonlinear coupling damper of seed 000,
//! Sect. 5 (docs/methods.md §11.2, paper eqn (43) with its typo fixed: the left-hand side is the damping
//! `d_k`, not `c_k`).
//!
//! **`TwoMassOscillator.Mass2Nonlinear`**: states `x1 = s₂` (m), `x2 = v₂` (m/s); inputs
//! `s1`, `v1` (the extrapolated position and velocity of mass 1); output `Fk` (N) with
//! direct feedthrough. With the relative velocity `Δv = x2 − v1` as subsystem II sees it
//! (through its extrapolated input, docs/methods.md §11.2):
//!
//! ```text
//! d(Δv) = clamp(d_k · |Δv|^(n_d − 1), d_k,min, d_k,max)            (eqn 43)
//! Fk    = c_k (x1 − s1) + d(Δv) · Δv
//! x1'   = x2
//! x2'   = (−c₂ x1 − d₂ x2 − Fk) / m₂
//! ```
//!
//! `n_d = 1` gives `d = d_k` (inside the clamp) and therefore exactly the linear
//! `TwoMassOscillator.Mass2`; `n_d ∈ [1, 2]` is the paper's range (`n_d` up to 3 is
//! accepted for exploration). Parameters (docs/methods.md §11.1, §11.2): m₂ = 10 kg, c₂ = 1e7 N/m,
//! d₂ = 2 N·s/m, c_k = 2e5 N/m, d_k = 5e2 (N·s/m at `n_d = 1`), d_k,min = 10 N·s/m,
//! d_k,max = 1e4 N·s/m, n_d = 2. Start values s₂ = v₂ = 0 (the paper gives none).
//!
//! The module is an [`OdeModule`] (RK4 with micro-step [`DEFAULT_RK4_STEP`] by default,
//! or Dopri45): its directional derivatives are central differences of `f` and `g`, i.e.
//! the tangent linearisation `∂Fk/∂Δv = n_d d_k |Δv|^(n_d−1)` inside the clamp and the
//! clamped constant outside (docs/methods.md §11.2: the paper does not say which
//! linearisation it used; a tangent is the natural reading of eqn (7)).

use super::entry::{ModelEntry, ParameterList};
use super::layout::PortSpec;
use super::ode_module::{OdeModel, OdeModule};
use super::parameters::{ParameterSet, Range::*, Slot};
use super::solver_choice::{integrator_for, numeric_solvers, DEFAULT_RK4_STEP};
use super::two_mass_oscillator::Mass2Params;
use crate::module::{DependencyKind, Module, ModuleError, Variable};
use crate::solvers::SolverSpec;
use crate::solvers::{Integrator, Rk4};
use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

/// Model id.
pub const MASS2_NONLINEAR_ID: &str = "TwoMassOscillator.Mass2Nonlinear";

/// Largest accepted nonlinearity factor (the paper studies 1 to 2).
pub const MAX_ND: f64 = 3.0;

/// Parameters and start values of the nonlinear subsystem II: those of the linear one
/// (with `dk` the damping factor), plus the nonlinearity and the clamp.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Mass2NonlinearParams {
    /// m₂, c₂, d₂, c_k, start values as in the linear subsystem II; d_k is the coupling
    /// damping factor (N·s/m times (s/m)^(n_d−1)) (≥ 0). Default 5e2.
    pub linear: Mass2Params,
    /// Nonlinearity factor n_d in [1, 3]; 1 is linear. Default 2.
    pub nd: f64,
    /// Lower clamp d_k,min of the damping in N·s/m (≥ 0). Default 10.
    pub dkmin: f64,
    /// Upper clamp d_k,max of the damping in N·s/m (≥ d_k,min). Default 1e4.
    pub dkmax: f64,
}

impl Default for Mass2NonlinearParams {
    fn default() -> Self {
        Mass2NonlinearParams {
            linear: Mass2Params::default(),
            nd: 2.0,
            dkmin: 10.0,
            dkmax: 1e4,
        }
    }
}

impl ParameterSet for Mass2NonlinearParams {
    const MODEL_ID: &'static str = MASS2_NONLINEAR_ID;
    const PARAMETERS: usize = 8;

    /// The linear subsystem's slots with `dk` described as a factor, and the nonlinearity
    /// and clamp parameters before the states.
    fn with_slots<R>(&mut self, f: impl FnOnce(&mut [Slot<'_>]) -> R) -> R {
        let [m2, c2, d2, ck, (_, range, _, _, dk), x1, x2] = self.linear.slots();
        let factor = "coupling damping factor dk (N*s/m when nd = 1)";
        #[rustfmt::skip] // a table: one slot a row
        let mut slots = [
            m2, c2, d2, ck,
            ("dk",    range,       "",      factor,                                 dk),
            ("nd",    Positive,    "",      "nonlinearity factor nd (1 = linear damper)", &mut self.nd),
            ("dkmin", NonNegative, "N*s/m", "lower clamp of the coupling damping",  &mut self.dkmin),
            ("dkmax", NonNegative, "N*s/m", "upper clamp of the coupling damping",  &mut self.dkmax),
            x1, x2,
        ];
        f(&mut slots)
    }

    /// `nd` within 1…MAX_ND and `dkmin ≤ dkmax`.
    fn check_relations(&self) -> Result<(), ModuleError> {
        if !(1.0..=MAX_ND).contains(&self.nd) {
            return Err(ModuleError::invalid(alloc::format!(
                "parameter `nd`: expected 1 to {MAX_ND}, got {}",
                self.nd
            )));
        }
        if self.dkmax < self.dkmin {
            return Err(ModuleError::invalid(alloc::format!(
                "parameter `dkmax` ({}) must not be below `dkmin` ({})",
                self.dkmax,
                self.dkmin
            )));
        }
        Ok(())
    }
}

impl Mass2NonlinearParams {
    /// Coupling damping `d(Δv)` of eqn (43).
    pub fn damping(&self, dv: f64) -> f64 {
        let d = self.linear.dk * libm::pow(libm::fabs(dv), self.nd - 1.0);
        d.clamp(self.dkmin, self.dkmax)
    }

    /// Coupling force `Fk = c_k (s₂ − s₁) + d(Δv) Δv`.
    pub fn coupling_force(&self, x: &[f64], u: &[f64]) -> f64 {
        let dv = x[1] - u[1];
        self.linear.ck * (x[0] - u[0]) + self.damping(dv) * dv
    }
}

/// The nonlinear subsystem II: the linear one's ports, `Fk` depending on `v1` through the
/// damping.
impl OdeModel for Mass2NonlinearParams {
    fn inputs(&self) -> Vec<PortSpec> {
        self.linear.inputs()
    }
    fn outputs(&self) -> Vec<PortSpec> {
        self.linear.outputs()
    }
    fn feedthrough(&self) -> Vec<(usize, usize, DependencyKind)> {
        vec![
            (0, 0, DependencyKind::Constant),
            (0, 1, DependencyKind::Dependent),
        ]
    }
    fn rhs(&self, _t: f64, x: &[f64], u: &[f64], dx: &mut [f64]) {
        let p = &self.linear;
        dx[0] = x[1];
        dx[1] = (-p.c2 * x[0] - p.d2 * x[1] - self.coupling_force(x, u)) / p.m2;
    }
    fn output(&self, _t: f64, x: &[f64], u: &[f64], y: &mut [f64]) {
        y[0] = self.coupling_force(x, u);
    }
}

/// Catalog variables with default values.
pub fn variables() -> Vec<Variable> {
    Mass2NonlinearParams::catalog()
}

/// The module integrated by `integrator`.
pub fn mass2_nonlinear(
    p: &Mass2NonlinearParams,
    integrator: Integrator,
) -> Result<OdeModule<Mass2NonlinearParams>, ModuleError> {
    p.check_relations()?;
    OdeModule::new(*p, integrator)
}

/// Registry entry: RK4 with [`DEFAULT_RK4_STEP`] by default, or Dopri45 (there is no
/// exact solution of a nonlinear module).
pub(super) const ENTRY: ModelEntry = ModelEntry {
    id: MASS2_NONLINEAR_ID,
    summary:
        "Two-mass oscillator, subsystem II with a nonlinear coupling damper (seed 000, eqn 43): \
              damping clamp(dk*|v2 - v1|^(nd-1), dkmin, dkmax); nd = 1 is the linear Mass2.",
    parameters: ParameterList::Fixed(variables),
    solvers: numeric_solvers,
    construct: |a| instantiate(a.parameters, a.solver),
};

/// Builds the module from scenario parameters and solver.
pub fn instantiate(
    params: &BTreeMap<String, f64>,
    solver: &SolverSpec,
) -> Result<Box<dyn Module>, ModuleError> {
    let p = Mass2NonlinearParams::from_map(params)?;
    let integrator = match solver {
        SolverSpec::Exact => {
            return Err(ModuleError::invalid(
                "solver `exact` needs a linear model; TwoMassOscillator.Mass2Nonlinear integrates with rk4 or dopri45",
            ))
        }
        _ => integrator_for(solver)?.unwrap_or(Integrator::Rk4(Rk4 { max_step: DEFAULT_RK4_STEP })),
    };
    Ok(Box::new(mass2_nonlinear(&p, integrator)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nd_1_is_the_linear_model_and_the_clamp_bounds_the_damping() {
        let linear = Mass2Params::default();
        let nonlinear = Mass2NonlinearParams {
            nd: 1.0,
            ..Mass2NonlinearParams::default()
        };
        let (x, u) = ([1e-3, 0.7], [2e-3, -1.9]);
        let (mut a, mut b) = ([0.0; 2], [0.0; 2]);
        linear.rhs(0.0, &x, &u, &mut a);
        nonlinear.rhs(0.0, &x, &u, &mut b);
        assert_eq!(a, b);
        let (mut ya, mut yb) = ([0.0], [0.0]);
        linear.output(0.0, &x, &u, &mut ya);
        nonlinear.output(0.0, &x, &u, &mut yb);
        assert_eq!(ya, yb);
        let quadratic = Mass2NonlinearParams::default();
        assert_eq!(quadratic.damping(3.0), 1500.0);
        assert_eq!(quadratic.damping(1e-6), 10.0);
        assert_eq!(quadratic.damping(-100.0), 1e4);
    }

    #[test]
    fn bad_parameters_name_the_field() {
        let mut map = BTreeMap::new();
        map.insert(String::from("nd"), 0.5);
        let e = Mass2NonlinearParams::from_map(&map).unwrap_err();
        assert!(alloc::format!("{e}").contains("`nd`"), "{e}");
        map.insert(String::from("nd"), 1.5);
        map.insert(String::from("dkmax"), 1.0);
        let e = Mass2NonlinearParams::from_map(&map).unwrap_err();
        assert!(alloc::format!("{e}").contains("`dkmax`"), "{e}");
        assert!(instantiate(&BTreeMap::new(), &SolverSpec::Exact).is_err());
    }
}
