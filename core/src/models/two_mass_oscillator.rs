//! The linear two-mass oscillator with force–displacement coupling, split into two
//! subsystems (seed-000 digest §5.1, eqn (27); the paper's Sect. 3.1, Fig. 3).
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
//! Parameters (defaults from digest §5.1 and §5.2): m₁ = m₂ = 10 kg, c₁ = 1e6 N/m,
//! c₂ = 1e7 N/m, d₁ = 1 N·s/m, d₂ = 2 N·s/m, c_k = 2e5 N/m, d_k = 5e2 N·s/m. Start values:
//! s₁ = 0.01 m, everything else 0 (the paper gives none; digest §4 "\[not in seed\]").
//!
//! Coupled by `Fk → Mass1.Fk`, `s1 → Mass2.s1`, `v1 → Mass2.v1`, the two halves form the
//! monolithic oscillator [`monolithic_a`] (digest §5.1 "\[derived\] Monolithic A*").

use super::entry::{ModelEntry, ParameterList};
use super::layout::PortSpec;
use super::linear_state_space::{LinearSpec, LinearStateSpace};
use super::ode_module::{OdeModel, OdeModule};
use super::parameters::{check, ParameterSet, Range};
use super::solver_choice::{integrator_for, linear_solvers};
use crate::module::{Causality, DependencyKind, ModuleError, Variability, Variable};
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

    fn with_slots<R>(&mut self, f: impl FnOnce(&mut [(&'static str, Range, &mut f64)]) -> R) -> R {
        f(&mut [
            ("m1", Range::Positive, &mut self.m1),
            ("c1", Range::NonNegative, &mut self.c1),
            ("d1", Range::NonNegative, &mut self.d1),
            ("x1", Range::Finite, &mut self.x1),
            ("x2", Range::Finite, &mut self.x2),
        ])
    }
}

impl Mass1Params {
    /// Parameters (without the state start values).
    pub fn parameters(&self) -> Vec<PortSpec> {
        vec![
            param("m1", "kg", self.m1, "mass m1"),
            param("c1", "N/m", self.c1, "spring stiffness c1 to ground"),
            param("d1", "N*s/m", self.d1, "damping d1 to ground"),
        ]
    }

    fn states(&self) -> Vec<PortSpec> {
        vec![
            param("x1", "m", self.x1, "position s1 of mass 1"),
            param("x2", "m/s", self.x2, "velocity v1 of mass 1"),
        ]
    }
}

impl ParameterSet for Mass2Params {
    const MODEL_ID: &'static str = MASS2_ID;
    const PARAMETERS: usize = 5;

    fn with_slots<R>(&mut self, f: impl FnOnce(&mut [(&'static str, Range, &mut f64)]) -> R) -> R {
        f(&mut [
            ("m2", Range::Positive, &mut self.m2),
            ("c2", Range::NonNegative, &mut self.c2),
            ("d2", Range::NonNegative, &mut self.d2),
            ("ck", Range::NonNegative, &mut self.ck),
            ("dk", Range::NonNegative, &mut self.dk),
            ("x1", Range::Finite, &mut self.x1),
            ("x2", Range::Finite, &mut self.x2),
        ])
    }
}

impl Mass2Params {
    /// Parameters (without the state start values).
    pub fn parameters(&self) -> Vec<PortSpec> {
        vec![
            param("m2", "kg", self.m2, "mass m2"),
            param("c2", "N/m", self.c2, "spring stiffness c2 to ground"),
            param("d2", "N*s/m", self.d2, "damping d2 to ground"),
            param("ck", "N/m", self.ck, "coupling stiffness ck"),
            param("dk", "N*s/m", self.dk, "coupling damping dk"),
        ]
    }

    fn states(&self) -> Vec<PortSpec> {
        vec![
            param("x1", "m", self.x1, "position s2 of mass 2"),
            param("x2", "m/s", self.x2, "velocity v2 of mass 2"),
        ]
    }
}

/// Parameters and state start values as catalog variables (states are `Local`).
pub(crate) fn catalog_variables(params: &[PortSpec], states: &[PortSpec]) -> Vec<Variable> {
    let mut out = Vec::new();
    for (i, p) in params.iter().chain(states).enumerate() {
        let (c, v) = if i < params.len() {
            (Causality::Parameter, Variability::Fixed)
        } else {
            (Causality::Local, Variability::Continuous)
        };
        out.push(
            Variable::new(&p.name, i as u32, c, v, Some(p.start), &p.unit)
                .described(&p.description),
        );
    }
    out
}

/// Catalog variables of subsystem I with default values.
pub fn mass1_variables() -> Vec<Variable> {
    let p = Mass1Params::default();
    catalog_variables(&p.parameters(), &p.states())
}

/// Catalog variables of subsystem II with default values.
pub fn mass2_variables() -> Vec<Variable> {
    let p = Mass2Params::default();
    catalog_variables(&p.parameters(), &p.states())
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| String::from(*s)).collect()
}

fn informational(params: &[PortSpec]) -> Vec<Variable> {
    catalog_variables(params, &[])
}

/// `(A, B, C, D)` of subsystem I.
pub fn mass1_matrices(p: &Mass1Params) -> (DMatrix<f64>, DMatrix<f64>, DMatrix<f64>, DMatrix<f64>) {
    let a = DMatrix::from_row_slice(2, 2, &[0.0, 1.0, -p.c1 / p.m1, -p.d1 / p.m1]);
    let b = DMatrix::from_row_slice(2, 1, &[0.0, 1.0 / p.m1]);
    (a, b, DMatrix::identity(2, 2), DMatrix::zeros(2, 1))
}

/// `(A, B, C, D)` of subsystem II.
pub fn mass2_matrices(p: &Mass2Params) -> (DMatrix<f64>, DMatrix<f64>, DMatrix<f64>, DMatrix<f64>) {
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

/// Monolithic `A*` for the state `[s₁, v₁, s₂, v₂]` (digest §5.1 "\[derived\] Monolithic A*"):
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

/// Subsystem I solved exactly.
pub fn mass1_linear(p: &Mass1Params) -> Result<LinearStateSpace, ModuleError> {
    check("m1", p.m1, Range::Positive)?;
    let (a, b, c, d) = mass1_matrices(p);
    LinearStateSpace::new(LinearSpec {
        model_name: MASS1_ID.into(),
        a,
        b,
        c,
        d,
        x0: DVector::from_row_slice(&[p.x1, p.x2]),
        state_names: strings(&["x1", "x2"]),
        state_units: strings(&["m", "m/s"]),
        input_names: strings(&["Fk"]),
        input_units: strings(&["N"]),
        output_names: strings(&["s1", "v1"]),
        output_units: strings(&["m", "m/s"]),
        parameters: informational(&p.parameters()),
        matrices_of: Some(|v| Ok(mass1_matrices(&Mass1Params::from_values(v)?))),
    })
}

/// Subsystem II solved exactly.
pub fn mass2_linear(p: &Mass2Params) -> Result<LinearStateSpace, ModuleError> {
    check("m2", p.m2, Range::Positive)?;
    let (a, b, c, d) = mass2_matrices(p);
    LinearStateSpace::new(LinearSpec {
        model_name: MASS2_ID.into(),
        a,
        b,
        c,
        d,
        x0: DVector::from_row_slice(&[p.x1, p.x2]),
        state_names: strings(&["x1", "x2"]),
        state_units: strings(&["m", "m/s"]),
        input_names: strings(&["s1", "v1"]),
        input_units: strings(&["m", "m/s"]),
        output_names: strings(&["Fk"]),
        output_units: strings(&["N"]),
        parameters: informational(&p.parameters()),
        matrices_of: Some(|v| Ok(mass2_matrices(&Mass2Params::from_values(v)?))),
    })
}

/// Subsystem I as an [`OdeModel`].
#[derive(Clone, Debug, PartialEq)]
pub struct Mass1Ode(pub Mass1Params);

/// Subsystem II as an [`OdeModel`].
#[derive(Clone, Debug, PartialEq)]
pub struct Mass2Ode(pub Mass2Params);

impl OdeModel for Mass1Ode {
    fn model_name(&self) -> &str {
        MASS1_ID
    }
    fn parameters(&self) -> Vec<PortSpec> {
        self.0.parameters()
    }
    fn parameter(&self, index: usize) -> f64 {
        [self.0.m1, self.0.c1, self.0.d1]
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
        let p = &self.0;
        dx[0] = x[1];
        dx[1] = (-p.c1 * x[0] - p.d1 * x[1] + u[0]) / p.m1;
    }
    fn output(&self, _t: f64, x: &[f64], _u: &[f64], y: &mut [f64]) {
        y[0] = x[0];
        y[1] = x[1];
    }
}

impl OdeModel for Mass2Ode {
    fn model_name(&self) -> &str {
        MASS2_ID
    }
    fn parameters(&self) -> Vec<PortSpec> {
        self.0.parameters()
    }
    fn parameter(&self, index: usize) -> f64 {
        let p = &self.0;
        [p.m2, p.c2, p.d2, p.ck, p.dk]
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
        let p = &self.0;
        dx[0] = x[1];
        dx[1] = (-(p.ck + p.c2) * x[0] - (p.dk + p.d2) * x[1] + p.ck * u[0] + p.dk * u[1]) / p.m2;
    }
    fn output(&self, _t: f64, x: &[f64], u: &[f64], y: &mut [f64]) {
        let p = &self.0;
        y[0] = p.ck * (x[0] - u[0]) + p.dk * (x[1] - u[1]);
    }
}

/// Subsystem I integrated numerically.
pub fn mass1_ode(
    p: &Mass1Params,
    integrator: Integrator,
) -> Result<OdeModule<Mass1Ode>, ModuleError> {
    check("m1", p.m1, Range::Positive)?;
    OdeModule::new(Mass1Ode(*p), integrator)
}

/// Subsystem II integrated numerically.
pub fn mass2_ode(
    p: &Mass2Params,
    integrator: Integrator,
) -> Result<OdeModule<Mass2Ode>, ModuleError> {
    check("m2", p.m2, Range::Positive)?;
    OdeModule::new(Mass2Ode(*p), integrator)
}

/// Registry entry of subsystem I: exact by default, RK4 or Dopri45 on request.
pub(super) const MASS1_ENTRY: ModelEntry = ModelEntry {
    id: MASS1_ID,
    summary: "Two-mass oscillator, subsystem I: mass m1 on spring c1 and damper d1, \
              driven by the coupling force Fk; outputs position s1 and velocity v1.",
    parameters: ParameterList::Fixed(mass1_variables),
    solvers: linear_solvers,
    construct: |a| {
        let integrator = integrator_for(a.solver)?;
        let p = Mass1Params::from_map(a.parameters)?;
        Ok(match integrator {
            None => Box::new(mass1_linear(&p)?),
            Some(i) => Box::new(mass1_ode(&p, i)?),
        })
    },
};

/// Registry entry of subsystem II: exact by default, RK4 or Dopri45 on request.
pub(super) const MASS2_ENTRY: ModelEntry = ModelEntry {
    id: MASS2_ID,
    summary: "Two-mass oscillator, subsystem II: mass m2 on spring c2 and damper d2 plus the \
              coupling spring ck and damper dk; inputs s1, v1; output coupling force Fk.",
    parameters: ParameterList::Fixed(mass2_variables),
    solvers: linear_solvers,
    construct: |a| {
        let integrator = integrator_for(a.solver)?;
        let p = Mass2Params::from_map(a.parameters)?;
        Ok(match integrator {
            None => Box::new(mass2_linear(&p)?),
            Some(i) => Box::new(mass2_ode(&p, i)?),
        })
    },
};

/// Monolithic `C*` for the outputs `[s₁, v₁, F_k]` with `F_k = c_k(s₂ − s₁) + d_k(v₂ − v₁)`
/// (digest §5.1 "\[derived\] Monolithic A*", C* rows).
pub fn monolithic_c(p2: &Mass2Params) -> DMatrix<f64> {
    DMatrix::from_row_slice(
        3,
        4,
        &[
            1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, -p2.ck, -p2.dk, p2.ck, p2.dk,
        ],
    )
}

/// Exact coupled outputs `[s₁, v₁, F_k]` at time `t` after the start (digest eqn (36):
/// `y(t) = C* e^{A* t} x0`), from the start values in the parameters. `None` if the
/// exponential fails (non-finite `t` or parameters).
pub fn exact_outputs(p1: &Mass1Params, p2: &Mass2Params, t: f64) -> Option<[f64; 3]> {
    let x0 = DVector::from_row_slice(&[p1.x1, p1.x2, p2.x1, p2.x2]);
    let x = crate::solvers::expm(&(monolithic_a(p1, p2) * t))? * x0;
    let y = monolithic_c(p2) * x;
    Some([y[0], y[1], y[2]])
}
