//! The double linear oscillator of the energy-correction benchmarks (docs/methods.md
//! §13.7), split force–displacement: ground–k₁,c₁–m₁–k_c,c_c–m₂–k₂,c₂–ground.
//!
//! **`DoubleOscillator.Mass1`** (m₁ with its ground spring-damper and the coupling
//! spring-damper; direct feedthrough): states `pos1`, `vel1` (outputs `x1`, `v1`); inputs `x2`, `v2`; outputs the
//! force `F` the coupling exerts on m₂, `x1`, `v1` and its stored energy `E`:
//!
//! ```text
//! F   = −k_c (x2 − x1) − c_c (v2 − v1)
//! v1' = (−k₁ x1 − c₁ v1 − F) / m₁,   x1' = v1
//! E   = ½ m₁ v1² + ½ k₁ x1² + ½ k_c (x2 − x1)²   (the coupling spring with the x2 it holds)
//! ```
//!
//! **`DoubleOscillator.Mass2`** (m₂ with its ground spring-damper): states `pos2`, `vel2`;
//! input `F`; outputs `x2`, `v2`, `E = ½ m₂ v2² + ½ k₂ x2²`; `v2' = (−k₂ x2 − c₂ v2 + F)/m₂`.
//!
//! Both report their energy (`x-reportsEnergy`) and step by symplectic Euler by default
//! (one step per communication step, as the seed's calibration runs); RK4 and Dopri45 are
//! offered too. Defaults (docs/methods.md §13.7): m₁ = m₂ = 1 kg, k₁ = 1000 N/m,
//! k_c = 100 N/m, k₂ = 10 N/m, no damping, v₁(0) = 100 m/s, v₂(0) = −100 m/s: two
//! well-separated modes, so the velocities are nearly uncorrelated (⟨v₁·v₂⟩ ≈ 0.01⟨v₂²⟩)
//! and the energy error is μ times the residual energy, the seed's μ rules.

use super::entry::{ModelEntry, ParameterList};
use super::layout::PortSpec;
use super::ode_module::{OdeModel, OdeModule};
use super::parameters::{ParameterSet, Range::*, Slot};
use super::solver_choice::{integrator_for, DEFAULT_ATOL, DEFAULT_RK4_STEP, DEFAULT_RTOL};
use crate::module::{DependencyKind, Module, ModuleError};
use crate::solvers::{Integrator, SolverSpec, SymplecticEuler};
use alloc::boxed::Box;
use alloc::vec;
use alloc::vec::Vec;

/// Model id of the force side (direct feedthrough).
pub const MASS1_ID: &str = "DoubleOscillator.Mass1";
/// Model id of the displacement side.
pub const MASS2_ID: &str = "DoubleOscillator.Mass2";

/// Mass 1, its ground spring-damper and the coupling spring-damper.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Mass1Params {
    /// m₁ in kg.
    pub m1: f64,
    /// k₁ in N/m.
    pub k1: f64,
    /// c₁ in N·s/m.
    pub c1: f64,
    /// k_c in N/m.
    pub kc: f64,
    /// c_c in N·s/m.
    pub cc: f64,
    /// Start position in m.
    pub x1: f64,
    /// Start velocity in m/s.
    pub v1: f64,
}

impl Default for Mass1Params {
    fn default() -> Self {
        Mass1Params {
            m1: 1.0,
            k1: 1000.0,
            c1: 0.0,
            kc: 100.0,
            cc: 0.0,
            x1: 0.0,
            v1: 100.0,
        }
    }
}

impl ParameterSet for Mass1Params {
    const MODEL_ID: &'static str = MASS1_ID;
    const PARAMETERS: usize = 5;

    fn with_slots<R>(&mut self, f: impl FnOnce(&mut [Slot<'_>]) -> R) -> R {
        #[rustfmt::skip] // a table: one slot a row
        let mut slots = [
            ("m1", Positive,    "kg",    "mass m1",                     &mut self.m1),
            ("k1", NonNegative, "N/m",   "spring k1 to ground",         &mut self.k1),
            ("c1", NonNegative, "N*s/m", "damper c1 to ground",         &mut self.c1),
            ("kc", NonNegative, "N/m",   "coupling spring kc",          &mut self.kc),
            ("cc", NonNegative, "N*s/m", "coupling damper cc",          &mut self.cc),
            ("pos1", Finite,    "m",     "start position of mass 1",    &mut self.x1),
            ("vel1", Finite,    "m/s",   "start velocity of mass 1",    &mut self.v1),
        ];
        f(&mut slots)
    }
}

impl Mass1Params {
    /// Force of the coupling on m₂ from the states of m₁ and the inputs `[x2, v2]`.
    pub fn force(&self, x: &[f64], u: &[f64]) -> f64 {
        -self.kc * (u[0] - x[0]) - self.cc * (u[1] - x[1])
    }
}

impl OdeModel for Mass1Params {
    fn inputs(&self) -> Vec<PortSpec> {
        vec![
            PortSpec::new("x2", "m", 0.0, "position of mass 2"),
            PortSpec::new("v2", "m/s", -100.0, "velocity of mass 2"),
        ]
    }
    fn outputs(&self) -> Vec<PortSpec> {
        vec![
            PortSpec::new("F", "N", 0.0, "coupling force on mass 2"),
            PortSpec::new("x1", "m", 0.0, "position of mass 1"),
            PortSpec::new("v1", "m/s", 0.0, "velocity of mass 1"),
            PortSpec::new(
                "E",
                "J",
                0.0,
                "energy of mass 1, its springs and the coupling spring",
            ),
        ]
    }
    fn feedthrough(&self) -> Vec<(usize, usize, DependencyKind)> {
        vec![
            (0, 0, DependencyKind::Constant),
            (0, 1, DependencyKind::Constant),
            (3, 0, DependencyKind::Dependent),
        ]
    }
    fn rhs(&self, _t: f64, x: &[f64], u: &[f64], dx: &mut [f64]) {
        dx[0] = x[1];
        dx[1] = (-self.k1 * x[0] - self.c1 * x[1] - self.force(x, u)) / self.m1;
    }
    fn output(&self, _t: f64, x: &[f64], u: &[f64], y: &mut [f64]) {
        let stretch = u[0] - x[0];
        y[0] = self.force(x, u);
        y[1] = x[0];
        y[2] = x[1];
        y[3] = 0.5 * (self.m1 * x[1] * x[1] + self.k1 * x[0] * x[0] + self.kc * stretch * stretch);
    }
    fn reports_energy(&self) -> bool {
        true
    }
}

/// Mass 2 and its ground spring-damper.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Mass2Params {
    /// m₂ in kg.
    pub m2: f64,
    /// k₂ in N/m.
    pub k2: f64,
    /// c₂ in N·s/m.
    pub c2: f64,
    /// Start position in m.
    pub x2: f64,
    /// Start velocity in m/s.
    pub v2: f64,
}

impl Default for Mass2Params {
    fn default() -> Self {
        Mass2Params {
            m2: 1.0,
            k2: 10.0,
            c2: 0.0,
            x2: 0.0,
            v2: -100.0,
        }
    }
}

impl ParameterSet for Mass2Params {
    const MODEL_ID: &'static str = MASS2_ID;
    const PARAMETERS: usize = 3;

    fn with_slots<R>(&mut self, f: impl FnOnce(&mut [Slot<'_>]) -> R) -> R {
        #[rustfmt::skip] // a table: one slot a row
        let mut slots = [
            ("m2", Positive,    "kg",    "mass m2",             &mut self.m2),
            ("k2", NonNegative, "N/m",   "spring k2 to ground", &mut self.k2),
            ("c2", NonNegative, "N*s/m", "damper c2 to ground", &mut self.c2),
            ("pos2", Finite,    "m",     "start position of mass 2", &mut self.x2),
            ("vel2", Finite,    "m/s",   "start velocity of mass 2", &mut self.v2),
        ];
        f(&mut slots)
    }
}

impl OdeModel for Mass2Params {
    fn inputs(&self) -> Vec<PortSpec> {
        vec![PortSpec::new("F", "N", 0.0, "coupling force on mass 2")]
    }
    fn outputs(&self) -> Vec<PortSpec> {
        vec![
            PortSpec::new("x2", "m", 0.0, "position of mass 2"),
            PortSpec::new("v2", "m/s", 0.0, "velocity of mass 2"),
            PortSpec::new("E", "J", 0.0, "energy of mass 2 and its springs"),
        ]
    }
    fn feedthrough(&self) -> Vec<(usize, usize, DependencyKind)> {
        Vec::new()
    }
    fn rhs(&self, _t: f64, x: &[f64], u: &[f64], dx: &mut [f64]) {
        dx[0] = x[1];
        dx[1] = (-self.k2 * x[0] - self.c2 * x[1] + u[0]) / self.m2;
    }
    fn output(&self, _t: f64, x: &[f64], _u: &[f64], y: &mut [f64]) {
        y[0] = x[0];
        y[1] = x[1];
        y[2] = 0.5 * (self.m2 * x[1] * x[1] + self.k2 * x[0] * x[0]);
    }
    fn reports_energy(&self) -> bool {
        true
    }
}

/// Solvers: symplectic Euler (the default), RK4, Dopri45.
fn solvers() -> Vec<SolverSpec> {
    vec![
        SolverSpec::Default,
        SolverSpec::SymplecticEuler,
        SolverSpec::Rk4 {
            step: DEFAULT_RK4_STEP,
        },
        SolverSpec::Dopri45 {
            rtol: DEFAULT_RTOL,
            atol: DEFAULT_ATOL,
        },
    ]
}

/// The integrator a solver choice names: symplectic Euler (one position state) by default.
pub fn integrator(model_id: &str, solver: &SolverSpec) -> Result<Integrator, ModuleError> {
    match solver {
        SolverSpec::Default | SolverSpec::SymplecticEuler => {
            Ok(Integrator::SymplecticEuler(SymplecticEuler {
                positions: 1,
            }))
        }
        SolverSpec::Exact => Err(ModuleError::invalid(alloc::format!(
            "{model_id}: solver `exact` is not offered; use `symplectic_euler` (the default), \
             `rk4` or `dopri45`"
        ))),
        other => integrator_for(other)?.ok_or_else(|| ModuleError::invalid("no integrator")),
    }
}

fn construct_mass1(a: &super::entry::ModelArgs<'_>) -> Result<Box<dyn Module>, ModuleError> {
    let p = Mass1Params::from_map(a.parameters)?;
    Ok(Box::new(OdeModule::new(
        p,
        integrator(MASS1_ID, a.solver)?,
    )?))
}

fn construct_mass2(a: &super::entry::ModelArgs<'_>) -> Result<Box<dyn Module>, ModuleError> {
    let p = Mass2Params::from_map(a.parameters)?;
    Ok(Box::new(OdeModule::new(
        p,
        integrator(MASS2_ID, a.solver)?,
    )?))
}

/// Registry entry of the force side.
pub(super) const MASS1_ENTRY: ModelEntry = ModelEntry {
    id: MASS1_ID,
    summary: "Double linear oscillator (energy benchmarks), force side: mass m1 on k1, c1 to \
              ground and the coupling spring kc and damper cc; inputs x2, v2; outputs the force \
              F on mass 2 (direct feedthrough), x1, v1 and its energy E. Symplectic Euler by \
              default.",
    parameters: ParameterList::Fixed(Mass1Params::catalog),
    solvers,
    construct: construct_mass1,
};

/// Registry entry of the displacement side.
pub(super) const MASS2_ENTRY: ModelEntry = ModelEntry {
    id: MASS2_ID,
    summary: "Double linear oscillator (energy benchmarks), displacement side: mass m2 on k2, \
              c2 to ground, driven by the coupling force F; outputs x2, v2 and its energy E. \
              Symplectic Euler by default.",
    parameters: ParameterList::Fixed(Mass2Params::catalog),
    solvers,
    construct: construct_mass2,
};

/// Energy of the whole oscillator from the states `[x1, v1, x2, v2]` (monolithic).
pub fn total_energy(p1: &Mass1Params, p2: &Mass2Params, s: &[f64; 4]) -> f64 {
    let [x1, v1, x2, v2] = *s;
    0.5 * (p1.m1 * v1 * v1 + p1.k1 * x1 * x1 + p1.kc * (x2 - x1) * (x2 - x1))
        + 0.5 * (p2.m2 * v2 * v2 + p2.k2 * x2 * x2)
}

/// The monolithic oscillator stepped by symplectic Euler with step `h` for `steps` steps
/// from the start values: the same integrator as the modules, without the coupling's
/// extrapolation (the reference energy of docs/methods.md §13.7). Returns `[x1, v1, x2, v2]`.
pub fn monolithic_symplectic(p1: &Mass1Params, p2: &Mass2Params, h: f64, steps: u32) -> [f64; 4] {
    let [mut x1, mut v1, mut x2, mut v2] = [p1.x1, p1.v1, p2.x2, p2.v2];
    for _ in 0..steps {
        let f = p1.force(&[x1, v1], &[x2, v2]);
        let a1 = (-p1.k1 * x1 - p1.c1 * v1 - f) / p1.m1;
        let a2 = (-p2.k2 * x2 - p2.c2 * v2 + f) / p2.m2;
        v1 += h * a1;
        v2 += h * a2;
        x1 += h * v1;
        x2 += h * v2;
    }
    [x1, v1, x2, v2]
}
