//! The linear two-mass oscillator with force–displacement coupling, split into two
//! subsystems (docs/methods.md §11.1, paper eqn (27); the paper's Sect. 3.1, Fig. 3).
//!
//! **Subsystem I, `TwoMassOscillator.Mass1`** (mass m₁ with spring c₁ and damper d₁ to
//! ground, driven by the coupling force): states `x1 = s₁` (m), `x2 = v₁` (m/s); input `Fk`
//! (N); outputs `s1 = x1`, `v1 = x2`; no feedthrough.
//!
//! ```text
//! x1' = x2
//! x2' = (−c₁ x1 − d₁ x2 + Fk) / m₁
//! ```
//!
//! **Subsystem II, `TwoMassOscillator.Mass2`** (mass m₂ with c₂, d₂ to ground, plus the
//! coupling spring–damper c_k, d_k): states `x1 = s₂`, `x2 = v₂`; inputs `s1`, `v1`;
//! output `Fk` with direct feedthrough:
//!
//! ```text
//! x1' = x2
//! x2' = (−(c_k + c₂) x1 − (d_k + d₂) x2 + c_k s1 + d_k v1) / m₂
//! Fk  = c_k (x1 − s1) + d_k (x2 − v1)
//! ```
//!
//! Parameters (defaults from docs/methods.md §11.1 and §11.2): m₁ = m₂ = 10 kg, c₁ = 1e6 N/m,
//! c₂ = 1e7 N/m, d₁ = 1 N·s/m, d₂ = 2 N·s/m, c_k = 2e5 N/m, d_k = 5e2 N·s/m. Start values:
//! s₁ = 0.01 m, everything else 0 (the paper gives none; docs/methods.md §11.1).
//!
//! Coupled by `Fk → Mass1.Fk`, `s1 → Mass2.s1`, `v1 → Mass2.v1`, the two halves form the
//! monolithic oscillator [`monolithic_a`] (docs/methods.md §11.1).

use super::entry::{ModelArgs, ModelEntry, ParameterList};
use super::layout::PortSpec;
use super::linear_state_space::{LinearSpec, LinearStateSpace, Matrices};
use super::ode_module::{OdeModel, OdeModule};
use super::parameters::{check, ParameterSet, Range::*, Slot};
use super::solver_choice::{integrator_for, linear_solvers};
use crate::module::{DependencyKind, Module, ModuleError, Variable};
use crate::solvers::Integrator;
use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use nalgebra::{DMatrix, DVector};

/// Model id of subsystem I.
pub const MASS1_ID: &str = "TwoMassOscillator.Mass1";
/// Model id of subsystem II.
pub const MASS2_ID: &str = "TwoMassOscillator.Mass2";

/// Parameters and start values of subsystem I.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Mass1Params {
    /// Mass m₁ in kg (> 0). Default 10.
    pub m1: f64,
    /// Spring stiffness c₁ to ground in N/m (≥ 0). Default 1e6.
    pub c1: f64,
    /// Damping d₁ to ground in N·s/m (≥ 0). Default 1.
    pub d1: f64,
    /// Start position s₁ in m. Default 0.01.
    pub x1: f64,
    /// Start velocity v₁ in m/s. Default 0.
    pub x2: f64,
}

impl Default for Mass1Params {
    fn default() -> Self {
        Mass1Params {
            m1: 10.0,
            c1: 1e6,
            d1: 1.0,
            x1: 0.01,
            x2: 0.0,
        }
    }
}

/// Parameters and start values of subsystem II.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Mass2Params {
    /// Mass m₂ in kg (> 0). Default 10.
    pub m2: f64,
    /// Spring stiffness c₂ to ground in N/m (≥ 0). Default 1e7.
    pub c2: f64,
    /// Damping d₂ to ground in N·s/m (≥ 0). Default 2.
    pub d2: f64,
    /// Coupling stiffness c_k in N/m (≥ 0). Default 2e5.
    pub ck: f64,
    /// Coupling damping d_k in N·s/m (≥ 0). Default 5e2.
    pub dk: f64,
    /// Start position s₂ in m. Default 0.
    pub x1: f64,
    /// Start velocity v₂ in m/s. Default 0.
    pub x2: f64,
}

impl Default for Mass2Params {
    fn default() -> Self {
        Mass2Params {
            m2: 10.0,
            c2: 1e7,
            d2: 2.0,
            ck: 2e5,
            dk: 5e2,
            x1: 0.0,
            x2: 0.0,
        }
    }
}

fn param(name: &str, unit: &str, value: f64, text: &str) -> PortSpec {
    PortSpec::new(name, unit, value, text)
}

impl ParameterSet for Mass1Params {
    const MODEL_ID: &'static str = MASS1_ID;
    const PARAMETERS: usize = 3;

    fn with_slots<R>(&mut self, f: impl FnOnce(&mut [Slot<'_>]) -> R) -> R {
        #[rustfmt::skip] // a table: one slot a row
        let mut slots = [
            ("m1", Positive,    "kg",    "mass m1",                       &mut self.m1),
            ("c1", NonNegative, "N/m",   "spring stiffness c1 to ground", &mut self.c1),
            ("d1", NonNegative, "N*s/m", "damping d1 to ground",          &mut self.d1),
            ("x1", Finite,      "m",     "position s1 of mass 1",         &mut self.x1),
            ("x2", Finite,      "m/s",   "velocity v1 of mass 1",         &mut self.x2),
        ];
        f(&mut slots)
    }
}

impl Mass2Params {
    /// Every slot (parameters, then states); the nonlinear subsystem II shares them.
    pub(crate) fn slots(&mut self) -> [Slot<'_>; 7] {
        #[rustfmt::skip] // a table: one slot a row
        let slots = [
            ("m2", Positive,    "kg",    "mass m2",                       &mut self.m2),
            ("c2", NonNegative, "N/m",   "spring stiffness c2 to ground", &mut self.c2),
            ("d2", NonNegative, "N*s/m", "damping d2 to ground",          &mut self.d2),
            ("ck", NonNegative, "N/m",   "coupling stiffness ck",         &mut self.ck),
            ("dk", NonNegative, "N*s/m", "coupling damping dk",           &mut self.dk),
            ("x1", Finite,      "m",     "position s2 of mass 2",         &mut self.x1),
            ("x2", Finite,      "m/s",   "velocity v2 of mass 2",         &mut self.x2),
        ];
        slots
    }
}

impl ParameterSet for Mass2Params {
    const MODEL_ID: &'static str = MASS2_ID;
    const PARAMETERS: usize = 5;

    fn with_slots<R>(&mut self, f: impl FnOnce(&mut [Slot<'_>]) -> R) -> R {
        f(&mut self.slots())
    }
}

/// Catalog variables of subsystem I with default values.
pub fn mass1_variables() -> Vec<Variable> {
    Mass1Params::catalog()
}

/// Catalog variables of subsystem II with default values.
pub fn mass2_variables() -> Vec<Variable> {
    Mass2Params::catalog()
}

/// `(A, B, C, D)` of subsystem I.
pub fn mass1_matrices(p: &Mass1Params) -> Matrices {
    let a = DMatrix::from_row_slice(2, 2, &[0.0, 1.0, -p.c1 / p.m1, -p.d1 / p.m1]);
    let b = DMatrix::from_row_slice(2, 1, &[0.0, 1.0 / p.m1]);
    (a, b, DMatrix::identity(2, 2), DMatrix::zeros(2, 1))
}

/// `(A, B, C, D)` of subsystem II.
pub fn mass2_matrices(p: &Mass2Params) -> Matrices {
    let a = DMatrix::from_row_slice(
        2,
        2,
        &[0.0, 1.0, -(p.ck + p.c2) / p.m2, -(p.dk + p.d2) / p.m2],
    );
    let b = DMatrix::from_row_slice(2, 2, &[0.0, 0.0, p.ck / p.m2, p.dk / p.m2]);
    let c = DMatrix::from_row_slice(1, 2, &[p.ck, p.dk]);
    let d = DMatrix::from_row_slice(1, 2, &[-p.ck, -p.dk]);
    (a, b, c, d)
}

/// Monolithic `A*` for the state `[s₁, v₁, s₂, v₂]` (docs/methods.md §11.1):
/// `m₁v₁' = −c₁s₁ − d₁v₁ + c_k(s₂ − s₁) + d_k(v₂ − v₁)`,
/// `m₂v₂' = −(c_k + c₂)s₂ − (d_k + d₂)v₂ + c_k s₁ + d_k v₁`.
pub fn monolithic_a(p1: &Mass1Params, p2: &Mass2Params) -> DMatrix<f64> {
    let (m1, m2) = (p1.m1, p2.m2);
    DMatrix::from_row_slice(
        4,
        4,
        &[
            0.0,
            1.0,
            0.0,
            0.0,
            -(p1.c1 + p2.ck) / m1,
            -(p1.d1 + p2.dk) / m1,
            p2.ck / m1,
            p2.dk / m1,
            0.0,
            0.0,
            0.0,
            1.0,
            p2.ck / m2,
            p2.dk / m2,
            -(p2.ck + p2.c2) / m2,
            -(p2.dk + p2.d2) / m2,
        ],
    )
}

/// Subsystem I: `x1' = x2`, `x2' = (−c₁ x1 − d₁ x2 + Fk) / m₁`, outputs `s1 = x1`, `v1 = x2`.
impl OdeModel for Mass1Params {
    fn inputs(&self) -> Vec<PortSpec> {
        vec![param("Fk", "N", 0.0, "coupling force on mass 1")]
    }
    fn outputs(&self) -> Vec<PortSpec> {
        vec![
            param("s1", "m", 0.0, "position of mass 1"),
            param("v1", "m/s", 0.0, "velocity of mass 1"),
        ]
    }
    fn feedthrough(&self) -> Vec<(usize, usize, DependencyKind)> {
        Vec::new()
    }
    fn rhs(&self, _t: f64, x: &[f64], u: &[f64], dx: &mut [f64]) {
        dx[0] = x[1];
        dx[1] = (-self.c1 * x[0] - self.d1 * x[1] + u[0]) / self.m1;
    }
    fn output(&self, _t: f64, x: &[f64], _u: &[f64], y: &mut [f64]) {
        y[0] = x[0];
        y[1] = x[1];
    }
}

/// Subsystem II: `x1' = x2`, `x2' = (−(c_k + c₂) x1 − (d_k + d₂) x2 + c_k s1 + d_k v1) / m₂`,
/// output `Fk = c_k (x1 − s1) + d_k (x2 − v1)`.
impl OdeModel for Mass2Params {
    fn inputs(&self) -> Vec<PortSpec> {
        vec![
            param("s1", "m", 0.0, "position of mass 1"),
            param("v1", "m/s", 0.0, "velocity of mass 1"),
        ]
    }
    fn outputs(&self) -> Vec<PortSpec> {
        vec![param("Fk", "N", 0.0, "coupling force, acting on mass 1")]
    }
    fn feedthrough(&self) -> Vec<(usize, usize, DependencyKind)> {
        vec![
            (0, 0, DependencyKind::Constant),
            (0, 1, DependencyKind::Constant),
        ]
    }
    fn rhs(&self, _t: f64, x: &[f64], u: &[f64], dx: &mut [f64]) {
        let p = self;
        dx[0] = x[1];
        dx[1] = (-(p.ck + p.c2) * x[0] - (p.dk + p.d2) * x[1] + p.ck * u[0] + p.dk * u[1]) / p.m2;
    }
    fn output(&self, _t: f64, x: &[f64], u: &[f64], y: &mut [f64]) {
        y[0] = self.ck * (x[0] - u[0]) + self.dk * (x[1] - u[1]);
    }
}

/// A subsystem of the linear oscillator: its equations as matrices too, so that it can be
/// solved exactly as well as integrated.
trait LinearSubsystem: OdeModel + Copy + 'static {
    /// `(A, B, C, D)`.
    fn matrices(&self) -> Matrices;
    /// Name and value of the mass, which the matrices divide by.
    fn mass(&self) -> (&'static str, f64);
}

impl LinearSubsystem for Mass1Params {
    fn matrices(&self) -> Matrices {
        mass1_matrices(self)
    }
    fn mass(&self) -> (&'static str, f64) {
        ("m1", self.m1)
    }
}

impl LinearSubsystem for Mass2Params {
    fn matrices(&self) -> Matrices {
        mass2_matrices(self)
    }
    fn mass(&self) -> (&'static str, f64) {
        ("m2", self.m2)
    }
}

/// Names and units of `ports`.
fn names_and_units(ports: &[PortSpec]) -> (Vec<String>, Vec<String>) {
    ports
        .iter()
        .map(|p| (p.name.clone(), p.unit.clone()))
        .unzip()
}

/// Subsystem `p` solved exactly, with the ports of its equations; its parameters are
/// settable (the matrices follow them).
fn linear<P: LinearSubsystem>(p: &P) -> Result<LinearStateSpace, ModuleError> {
    let (name, mass) = p.mass();
    check(name, mass, Positive)?;
    let (a, b, c, d) = p.matrices();
    let states = p.states();
    let (state_names, state_units) = names_and_units(&states);
    let (input_names, input_units) = names_and_units(&p.inputs());
    let (output_names, output_units) = names_and_units(&p.outputs());
    let mut parameters = p.variables();
    parameters.truncate(P::PARAMETERS);
    LinearStateSpace::new(LinearSpec {
        model_name: P::MODEL_ID.into(),
        a,
        b,
        c,
        d,
        x0: DVector::from_iterator(states.len(), states.iter().map(|s| s.start)),
        state_names,
        state_units,
        input_names,
        input_units,
        output_names,
        output_units,
        parameters,
        matrices_of: Some(|v| Ok(P::from_values(v)?.matrices())),
    })
}

/// Subsystem `p` integrated numerically.
fn ode<P: LinearSubsystem>(p: &P, integrator: Integrator) -> Result<OdeModule<P>, ModuleError> {
    let (name, mass) = p.mass();
    check(name, mass, Positive)?;
    OdeModule::new(*p, integrator)
}

/// Builds subsystem `P` from a scenario entry: exact by default, RK4 or Dopri45 on request.
fn construct<P: LinearSubsystem>(a: &ModelArgs<'_>) -> Result<Box<dyn Module>, ModuleError> {
    let integrator = integrator_for(a.solver)?;
    let p = P::from_map(a.parameters)?;
    Ok(match integrator {
        None => Box::new(linear(&p)?),
        Some(i) => Box::new(ode(&p, i)?),
    })
}

/// Subsystem I solved exactly.
pub fn mass1_linear(p: &Mass1Params) -> Result<LinearStateSpace, ModuleError> {
    linear(p)
}

/// Subsystem II solved exactly.
pub fn mass2_linear(p: &Mass2Params) -> Result<LinearStateSpace, ModuleError> {
    linear(p)
}

/// Subsystem I integrated numerically.
pub fn mass1_ode(
    p: &Mass1Params,
    integrator: Integrator,
) -> Result<OdeModule<Mass1Params>, ModuleError> {
    ode(p, integrator)
}

/// Subsystem II integrated numerically.
pub fn mass2_ode(
    p: &Mass2Params,
    integrator: Integrator,
) -> Result<OdeModule<Mass2Params>, ModuleError> {
    ode(p, integrator)
}

/// Registry entry of subsystem I: exact by default, RK4 or Dopri45 on request.
pub(super) const MASS1_ENTRY: ModelEntry = ModelEntry {
    id: MASS1_ID,
    summary: "Two-mass oscillator, subsystem I: mass m1 on spring c1 and damper d1, \
              driven by the coupling force Fk; outputs position s1 and velocity v1.",
    parameters: ParameterList::Fixed(mass1_variables),
    solvers: linear_solvers,
    construct: construct::<Mass1Params>,
};

/// Registry entry of subsystem II: exact by default, RK4 or Dopri45 on request.
pub(super) const MASS2_ENTRY: ModelEntry = ModelEntry {
    id: MASS2_ID,
    summary: "Two-mass oscillator, subsystem II: mass m2 on spring c2 and damper d2 plus the \
              coupling spring ck and damper dk; inputs s1, v1; output coupling force Fk.",
    parameters: ParameterList::Fixed(mass2_variables),
    solvers: linear_solvers,
    construct: construct::<Mass2Params>,
};

/// Monolithic `C*` for the outputs `[s₁, v₁, F_k]` with `F_k = c_k(s₂ − s₁) + d_k(v₂ − v₁)`
/// (docs/methods.md §11.1, C* rows).
pub fn monolithic_c(p2: &Mass2Params) -> DMatrix<f64> {
    DMatrix::from_row_slice(
        3,
        4,
        &[
            1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, -p2.ck, -p2.dk, p2.ck, p2.dk,
        ],
    )
}

/// Exact coupled outputs `[s₁, v₁, F_k]` at time `t` after the start (docs/methods.md §10.1, paper eqn (36):
/// `y(t) = C* e^{A* t} x0`), from the start values in the parameters. `None` if the
/// exponential fails (non-finite `t` or parameters).
pub fn exact_outputs(p1: &Mass1Params, p2: &Mass2Params, t: f64) -> Option<[f64; 3]> {
    let x0 = DVector::from_row_slice(&[p1.x1, p1.x2, p2.x1, p2.x2]);
    let x = crate::solvers::expm(&(monolithic_a(p1, p2) * t))? * x0;
    let y = monolithic_c(p2) * x;
    Some([y[0], y[1], y[2]])
}
