//! Subsystem II of the two-mass oscillator with the nonlinear coupling damper of seed 000,
//! Sect. 5 (digest §5.2, eqn (43) with its typo fixed: the left-hand side is the damping
//! `d_k`, not `c_k`; digest §2.9 item 13).
//!
//! **`TwoMassOscillator.Mass2Nonlinear`**: states `x1 = s₂` (m), `x2 = v₂` (m/s); inputs
//! `s1`, `v1` (the extrapolated position and velocity of mass 1); output `Fk` (N) with
//! direct feedthrough. With the relative velocity `Δv = x2 − v1` as subsystem II sees it
//! (through its extrapolated input, digest §8 item 14):
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
//! accepted for exploration). Parameters (digest §5.1, §5.2): m₂ = 10 kg, c₂ = 1e7 N/m,
//! d₂ = 2 N·s/m, c_k = 2e5 N/m, d_k = 5e2 (N·s/m at `n_d = 1`), d_k,min = 10 N·s/m,
//! d_k,max = 1e4 N·s/m, n_d = 2. Start values s₂ = v₂ = 0 (the paper gives none).
//!
//! The module is an [`OdeModule`] (RK4 with micro-step [`DEFAULT_RK4_STEP`] by default,
//! or Dopri45): its directional derivatives are central differences of `f` and `g`, i.e.
//! the tangent linearisation `∂Fk/∂Δv = n_d d_k |Δv|^(n_d−1)` inside the clamp and the
//! clamped constant outside (digest §5.2 "\[not in seed\]": the paper does not say which
//! linearisation it used; a tangent is the natural reading of eqn (7)).

use super::entry::{ModelEntry, ParameterList};
use super::layout::PortSpec;
use super::ode_module::{OdeModel, OdeModule};
use super::parameters::{ParameterSet, Range};
use super::solver_choice::{integrator_for, numeric_solvers, DEFAULT_RK4_STEP};
use super::two_mass_oscillator::catalog_variables;
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

/// Parameters and start values of the nonlinear subsystem II.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Mass2NonlinearParams {
    /// Mass m₂ in kg (> 0). Default 10.
    pub m2: f64,
    /// Spring stiffness c₂ to ground in N/m (≥ 0). Default 1e7.
    pub c2: f64,
    /// Damping d₂ to ground in N·s/m (≥ 0). Default 2.
    pub d2: f64,
    /// Coupling stiffness c_k in N/m (≥ 0). Default 2e5.
    pub ck: f64,
    /// Coupling damping factor d_k (N·s/m times (s/m)^(n_d−1)) (≥ 0). Default 5e2.
    pub dk: f64,
    /// Nonlinearity factor n_d in [1, 3]; 1 is linear. Default 2.
    pub nd: f64,
    /// Lower clamp d_k,min of the damping in N·s/m (≥ 0). Default 10.
    pub dkmin: f64,
    /// Upper clamp d_k,max of the damping in N·s/m (≥ d_k,min). Default 1e4.
    pub dkmax: f64,
    /// Start position s₂ in m. Default 0.
    pub x1: f64,
    /// Start velocity v₂ in m/s. Default 0.
    pub x2: f64,
}

impl Default for Mass2NonlinearParams {
    fn default() -> Self {
        Mass2NonlinearParams {
            m2: 10.0,
            c2: 1e7,
            d2: 2.0,
            ck: 2e5,
            dk: 5e2,
            nd: 2.0,
            dkmin: 10.0,
            dkmax: 1e4,
            x1: 0.0,
            x2: 0.0,
        }
    }
}

impl ParameterSet for Mass2NonlinearParams {
    const MODEL_ID: &'static str = MASS2_NONLINEAR_ID;
    const PARAMETERS: usize = 8;

    fn with_slots<R>(&mut self, f: impl FnOnce(&mut [(&'static str, Range, &mut f64)]) -> R) -> R {
        f(&mut [
            ("m2", Range::Positive, &mut self.m2),
            ("c2", Range::NonNegative, &mut self.c2),
            ("d2", Range::NonNegative, &mut self.d2),
            ("ck", Range::NonNegative, &mut self.ck),
            ("dk", Range::NonNegative, &mut self.dk),
            ("nd", Range::Positive, &mut self.nd),
            ("dkmin", Range::NonNegative, &mut self.dkmin),
            ("dkmax", Range::NonNegative, &mut self.dkmax),
            ("x1", Range::Finite, &mut self.x1),
            ("x2", Range::Finite, &mut self.x2),
        ])
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
    /// Parameters (without the state start values).
    pub fn parameters(&self) -> Vec<PortSpec> {
        vec![
            PortSpec::new("m2", "kg", self.m2, "mass m2"),
            PortSpec::new("c2", "N/m", self.c2, "spring stiffness c2 to ground"),
            PortSpec::new("d2", "N*s/m", self.d2, "damping d2 to ground"),
            PortSpec::new("ck", "N/m", self.ck, "coupling stiffness ck"),
            PortSpec::new(
                "dk",
                "",
                self.dk,
                "coupling damping factor dk (N*s/m when nd = 1)",
            ),
            PortSpec::new(
                "nd",
                "",
                self.nd,
                "nonlinearity factor nd (1 = linear damper)",
            ),
            PortSpec::new(
                "dkmin",
                "N*s/m",
                self.dkmin,
                "lower clamp of the coupling damping",
            ),
            PortSpec::new(
                "dkmax",
                "N*s/m",
                self.dkmax,
                "upper clamp of the coupling damping",
            ),
        ]
    }

    fn states(&self) -> Vec<PortSpec> {
        vec![
            PortSpec::new("x1", "m", self.x1, "position s2 of mass 2"),
            PortSpec::new("x2", "m/s", self.x2, "velocity v2 of mass 2"),
        ]
    }

    /// Coupling damping `d(Δv)` of eqn (43).
    pub fn damping(&self, dv: f64) -> f64 {
        let d = self.dk * libm::pow(libm::fabs(dv), self.nd - 1.0);
        d.clamp(self.dkmin, self.dkmax)
    }

    /// Coupling force `Fk = c_k (s₂ − s₁) + d(Δv) Δv`.
    pub fn coupling_force(&self, x: &[f64], u: &[f64]) -> f64 {
        let dv = x[1] - u[1];
        self.ck * (x[0] - u[0]) + self.damping(dv) * dv
    }
}

/// The nonlinear subsystem II as an [`OdeModel`].
#[derive(Clone, Debug, PartialEq)]
pub struct Mass2NonlinearOde(pub Mass2NonlinearParams);

impl OdeModel for Mass2NonlinearOde {
    fn model_name(&self) -> &str {
        MASS2_NONLINEAR_ID
    }
    fn parameters(&self) -> Vec<PortSpec> {
        self.0.parameters()
    }
    fn parameter(&self, index: usize) -> f64 {
        let p = &self.0;
        [p.m2, p.c2, p.d2, p.ck, p.dk, p.nd, p.dkmin, p.dkmax]
            .get(index)
            .copied()
            .unwrap_or(f64::NAN)
    }
    fn set_parameter(&mut self, index: usize, value: f64) -> Result<(), ModuleError> {
        self.0.set_parameter(index, value)
    }
    fn states(&self) -> Vec<PortSpec> {
        self.0.states()
    }
    fn inputs(&self) -> Vec<PortSpec> {
        vec![
            PortSpec::new("s1", "m", 0.0, "position of mass 1"),
            PortSpec::new("v1", "m/s", 0.0, "velocity of mass 1"),
        ]
    }
    fn outputs(&self) -> Vec<PortSpec> {
        vec![PortSpec::new(
            "Fk",
            "N",
            0.0,
            "coupling force, acting on mass 1",
        )]
    }
    fn feedthrough(&self) -> Vec<(usize, usize, DependencyKind)> {
        vec![
            (0, 0, DependencyKind::Constant),
            (0, 1, DependencyKind::Dependent),
        ]
    }
    fn rhs(&self, _t: f64, x: &[f64], u: &[f64], dx: &mut [f64]) {
        let p = &self.0;
        dx[0] = x[1];
        dx[1] = (-p.c2 * x[0] - p.d2 * x[1] - p.coupling_force(x, u)) / p.m2;
    }
    fn output(&self, _t: f64, x: &[f64], u: &[f64], y: &mut [f64]) {
        y[0] = self.0.coupling_force(x, u);
    }
}

/// Catalog variables with default values.
pub fn variables() -> Vec<Variable> {
    let p = Mass2NonlinearParams::default();
    catalog_variables(&p.parameters(), &p.states())
}

/// The module integrated by `integrator`.
pub fn mass2_nonlinear(
    p: &Mass2NonlinearParams,
    integrator: Integrator,
) -> Result<OdeModule<Mass2NonlinearOde>, ModuleError> {
    p.check_relations()?;
    OdeModule::new(Mass2NonlinearOde(*p), integrator)
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
    use crate::models::two_mass_oscillator::{Mass2Ode, Mass2Params};

    #[test]
    fn nd_1_is_the_linear_model_and_the_clamp_bounds_the_damping() {
        let linear = Mass2Ode(Mass2Params::default());
        let p = Mass2NonlinearParams {
            nd: 1.0,
            ..Mass2NonlinearParams::default()
        };
        let nonlinear = Mass2NonlinearOde(p);
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
