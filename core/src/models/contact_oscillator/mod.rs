//! Example 1 of seed 002 (docs/methods.md §14): the nonlinear two-mass oscillator with a
//! penalty contact, force/force decomposed into three built-in modules.
//!
//! - **`ContactOscillator.Body1`**: states `x`, `v`; input `fc`; outputs `x1`, `v1`;
//!   `m₁ v' = −c₁ x − d₁ v + F_C(x) + f_c` with the contact `F_C = A·e^{B x}`
//!   (A = −1e-2 N, B = 1e7 1/m, guarded against overflow by [`contact_force`]).
//! - **`ContactOscillator.Body2`**: states `x`, `v`; input `fc` (acting with − sign);
//!   outputs `x2`, `v2`; `m₂ v' = −c₂ x − d₂ v − f_c`.
//! - **`ContactOscillator.Coupling`**: no states; inputs `x1`, `v1`, `x2`, `v2`; output
//!   `fc = c_c Δx + d_c Δv + C_c Δx³ + D_c Δv³` with `Δx = x₂ − x₁`, `Δv = v₂ − v₁`
//!   (eqn 35c), direct feedthrough.
//!
//! Defaults are the seed's table (m₁ = 50 kg, m₂ = 1 kg, c₁ = 1e5, c₂ = 1e3, c_c = 1e5 N/m,
//! d = 0, C_c = 1e5 N/m³, D_c = 1e-2 N·s³/m³, x₁ = −2 m, x₂ = 0, v₁ = 100 m/s, v₂ = −200
//! m/s). The bodies integrate with the BDF at the seed's subsystem tolerances (rtol 1e-6,
//! atol 1e-9 m for `x` and 1e-6 m/s for `v`) unless the scenario chooses another solver.

use super::contact::contact_force;
use super::entry::{ModelEntry, ParameterList};
use super::layout::PortSpec;
use super::ode_module::{OdeModel, OdeModule};
use super::parameters::{ParameterSet, Range::*, Slot};
use super::solver_choice::{default_only, integrator_for, stiff_solvers};
use crate::module::{DependencyKind, Module, ModuleError, Variable};
use crate::solvers::{Bdf, Integrator, Rk4, SolverSpec};
use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

#[cfg(test)]
mod tests;

/// Model ids.
pub const BODY1_ID: &str = "ContactOscillator.Body1";
/// Model id of body 2.
pub const BODY2_ID: &str = "ContactOscillator.Body2";
/// Model id of the coupling element.
pub const COUPLING_ID: &str = "ContactOscillator.Coupling";

/// Subsystem tolerances of the seed (BDF): relative, and absolute for positions and
/// velocities.
pub const BODY_RTOL: f64 = 1e-6;
/// Absolute BDF tolerance of positions in m.
pub const BODY_ATOL_X: f64 = 1e-9;
/// Absolute BDF tolerance of velocities in m/s.
pub const BODY_ATOL_V: f64 = 1e-6;

/// The default integrator of a body: the seed's BDF.
pub fn body_bdf() -> Integrator {
    Integrator::Bdf(Bdf {
        rtol: BODY_RTOL,
        atol: vec![BODY_ATOL_X, BODY_ATOL_V],
    })
}

/// Body 1 with the contact.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Body1 {
    /// Mass m₁ in kg. Default 50.
    pub m: f64,
    /// Spring c₁ to ground in N/m. Default 1e5.
    pub c: f64,
    /// Damper d₁ to ground in N·s/m. Default 0.
    pub d: f64,
    /// Contact amplitude A in N. Default −1e-2.
    pub a: f64,
    /// Contact exponent factor B in 1/m. Default 1e7.
    pub b: f64,
    /// Start position in m. Default −2.
    pub x: f64,
    /// Start velocity in m/s. Default 100.
    pub v: f64,
}

impl Default for Body1 {
    fn default() -> Self {
        Body1 {
            m: 50.0,
            c: 1e5,
            d: 0.0,
            a: -1e-2,
            b: 1e7,
            x: -2.0,
            v: 100.0,
        }
    }
}

impl ParameterSet for Body1 {
    const MODEL_ID: &'static str = BODY1_ID;
    const PARAMETERS: usize = 5;

    fn with_slots<R>(&mut self, f: impl FnOnce(&mut [Slot<'_>]) -> R) -> R {
        #[rustfmt::skip] // a table: one slot a row
        let mut slots = [
            ("m1", Positive,    "kg",    "mass m1",                          &mut self.m),
            ("c1", NonNegative, "N/m",   "spring stiffness c1 to ground",    &mut self.c),
            ("d1", NonNegative, "N*s/m", "damping d1 to ground",             &mut self.d),
            ("A",  Finite,      "N",     "contact amplitude A of A*exp(B*x)", &mut self.a),
            ("B",  Finite,      "1/m",   "contact exponent factor B",        &mut self.b),
            ("x",  Finite,      "m",     "position x1 of body 1",            &mut self.x),
            ("v",  Finite,      "m/s",   "velocity v1 of body 1",            &mut self.v),
        ];
        f(&mut slots)
    }
}

impl OdeModel for Body1 {
    fn inputs(&self) -> Vec<PortSpec> {
        vec![PortSpec::new(
            "fc",
            "N",
            0.0,
            "coupling force fc (acts with + sign)",
        )]
    }
    fn outputs(&self) -> Vec<PortSpec> {
        vec![
            PortSpec::new("x1", "m", 0.0, "position x1"),
            PortSpec::new("v1", "m/s", 0.0, "velocity v1"),
        ]
    }
    fn feedthrough(&self) -> Vec<(usize, usize, DependencyKind)> {
        Vec::new()
    }
    fn rhs(&self, _t: f64, x: &[f64], u: &[f64], dx: &mut [f64]) {
        let contact = contact_force(self.a, self.b, x[0]);
        dx[0] = x[1];
        dx[1] = (-self.c * x[0] - self.d * x[1] + contact + u[0]) / self.m;
    }
    fn output(&self, _t: f64, x: &[f64], _u: &[f64], y: &mut [f64]) {
        y.copy_from_slice(&x[..2]);
    }
}

/// Body 2.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Body2 {
    /// Mass m₂ in kg. Default 1.
    pub m: f64,
    /// Spring c₂ to ground in N/m. Default 1e3.
    pub c: f64,
    /// Damper d₂ to ground in N·s/m. Default 0.
    pub d: f64,
    /// Start position in m. Default 0.
    pub x: f64,
    /// Start velocity in m/s. Default −200.
    pub v: f64,
}

impl Default for Body2 {
    fn default() -> Self {
        Body2 {
            m: 1.0,
            c: 1e3,
            d: 0.0,
            x: 0.0,
            v: -200.0,
        }
    }
}

impl ParameterSet for Body2 {
    const MODEL_ID: &'static str = BODY2_ID;
    const PARAMETERS: usize = 3;

    fn with_slots<R>(&mut self, f: impl FnOnce(&mut [Slot<'_>]) -> R) -> R {
        #[rustfmt::skip] // a table: one slot a row
        let mut slots = [
            ("m2", Positive,    "kg",    "mass m2",                       &mut self.m),
            ("c2", NonNegative, "N/m",   "spring stiffness c2 to ground", &mut self.c),
            ("d2", NonNegative, "N*s/m", "damping d2 to ground",          &mut self.d),
            ("x",  Finite,      "m",     "position x2 of body 2",         &mut self.x),
            ("v",  Finite,      "m/s",   "velocity v2 of body 2",         &mut self.v),
        ];
        f(&mut slots)
    }
}

impl OdeModel for Body2 {
    fn inputs(&self) -> Vec<PortSpec> {
        vec![PortSpec::new(
            "fc",
            "N",
            0.0,
            "coupling force fc (acts with - sign)",
        )]
    }
    fn outputs(&self) -> Vec<PortSpec> {
        vec![
            PortSpec::new("x2", "m", 0.0, "position x2"),
            PortSpec::new("v2", "m/s", 0.0, "velocity v2"),
        ]
    }
    fn feedthrough(&self) -> Vec<(usize, usize, DependencyKind)> {
        Vec::new()
    }
    fn rhs(&self, _t: f64, x: &[f64], u: &[f64], dx: &mut [f64]) {
        dx[0] = x[1];
        dx[1] = (-self.c * x[0] - self.d * x[1] - u[0]) / self.m;
    }
    fn output(&self, _t: f64, x: &[f64], _u: &[f64], y: &mut [f64]) {
        y.copy_from_slice(&x[..2]);
    }
}

/// The coupling element (eqn 35c).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Coupling {
    /// Linear stiffness c_c in N/m. Default 1e5.
    pub cc: f64,
    /// Linear damping d_c in N·s/m. Default 0.
    pub dc: f64,
    /// Cubic stiffness C_c in N/m³. Default 1e5.
    pub cc3: f64,
    /// Cubic damping D_c in N·s³/m³. Default 1e-2.
    pub dc3: f64,
}

impl Default for Coupling {
    fn default() -> Self {
        Coupling {
            cc: 1e5,
            dc: 0.0,
            cc3: 1e5,
            dc3: 1e-2,
        }
    }
}

impl Coupling {
    /// `f_c = c_c Δx + d_c Δv + C_c Δx³ + D_c Δv³` for `Δx = x₂ − x₁`, `Δv = v₂ − v₁`.
    pub fn force(&self, dx: f64, dv: f64) -> f64 {
        self.cc * dx + self.dc * dv + self.cc3 * dx * dx * dx + self.dc3 * dv * dv * dv
    }
}

impl ParameterSet for Coupling {
    const MODEL_ID: &'static str = COUPLING_ID;
    const PARAMETERS: usize = 4;

    fn with_slots<R>(&mut self, f: impl FnOnce(&mut [Slot<'_>]) -> R) -> R {
        #[rustfmt::skip] // a table: one slot a row
        let mut slots = [
            ("cc", Finite, "N/m",       "linear coupling stiffness c_c", &mut self.cc),
            ("dc", Finite, "N*s/m",     "linear coupling damping d_c",   &mut self.dc),
            ("Cc", Finite, "N/m3",      "cubic coupling stiffness C_c",  &mut self.cc3),
            ("Dc", Finite, "N*s3/m3",   "cubic coupling damping D_c",    &mut self.dc3),
        ];
        f(&mut slots)
    }
}

impl OdeModel for Coupling {
    fn inputs(&self) -> Vec<PortSpec> {
        vec![
            PortSpec::new("x1", "m", 0.0, "position x1 of body 1"),
            PortSpec::new("v1", "m/s", 0.0, "velocity v1 of body 1"),
            PortSpec::new("x2", "m", 0.0, "position x2 of body 2"),
            PortSpec::new("v2", "m/s", 0.0, "velocity v2 of body 2"),
        ]
    }
    fn outputs(&self) -> Vec<PortSpec> {
        vec![PortSpec::new("fc", "N", 0.0, "coupling force fc")]
    }
    fn feedthrough(&self) -> Vec<(usize, usize, DependencyKind)> {
        (0..4).map(|i| (0, i, DependencyKind::Dependent)).collect()
    }
    fn rhs(&self, _t: f64, _x: &[f64], _u: &[f64], _dx: &mut [f64]) {}
    fn output(&self, _t: f64, _x: &[f64], u: &[f64], y: &mut [f64]) {
        y[0] = self.force(u[2] - u[0], u[3] - u[1]);
    }
}

/// The integrator a body uses for `solver` (`default` is the seed's BDF).
fn body_integrator(id: &str, solver: &SolverSpec) -> Result<Integrator, ModuleError> {
    match solver {
        SolverSpec::Exact => Err(ModuleError::invalid(alloc::format!(
            "solver `exact` needs a linear model; {id} integrates with bdf (default), dopri45 or rk4"
        ))),
        _ => Ok(integrator_for(solver)?.unwrap_or_else(body_bdf)),
    }
}

/// Body 1 from scenario parameters and solver.
pub fn instantiate_body1(
    params: &BTreeMap<String, f64>,
    solver: &SolverSpec,
) -> Result<Box<dyn Module>, ModuleError> {
    let p = Body1::from_map(params)?;
    Ok(Box::new(OdeModule::new(
        p,
        body_integrator(BODY1_ID, solver)?,
    )?))
}

/// Body 2 from scenario parameters and solver.
pub fn instantiate_body2(
    params: &BTreeMap<String, f64>,
    solver: &SolverSpec,
) -> Result<Box<dyn Module>, ModuleError> {
    let p = Body2::from_map(params)?;
    Ok(Box::new(OdeModule::new(
        p,
        body_integrator(BODY2_ID, solver)?,
    )?))
}

/// The coupling element from scenario parameters (it has no states to integrate).
pub fn instantiate_coupling(
    params: &BTreeMap<String, f64>,
) -> Result<Box<dyn Module>, ModuleError> {
    let p = Coupling::from_map(params)?;
    // No states: one empty micro-step per communication step.
    let none = Integrator::Rk4(Rk4 { max_step: f64::MAX });
    Ok(Box::new(OdeModule::new(p, none)?))
}

fn body1_variables() -> Vec<Variable> {
    Body1::catalog()
}
fn body2_variables() -> Vec<Variable> {
    Body2::catalog()
}
fn coupling_variables() -> Vec<Variable> {
    Coupling::catalog()
}

/// Registry entry of body 1.
pub(super) const BODY1_ENTRY: ModelEntry = ModelEntry {
    id: BODY1_ID,
    summary: "Seed 002 Example 1, body 1: mass on a spring to ground with the penalty contact \
              A*exp(B*x) (overflow-guarded); input fc, outputs x1, v1; BDF by default.",
    parameters: ParameterList::Fixed(body1_variables),
    solvers: stiff_solvers,
    construct: |a| instantiate_body1(a.parameters, a.solver),
};

/// Registry entry of body 2.
pub(super) const BODY2_ENTRY: ModelEntry = ModelEntry {
    id: BODY2_ID,
    summary: "Seed 002 Example 1, body 2: mass on a spring to ground; input fc (acting with - \
              sign), outputs x2, v2; BDF by default.",
    parameters: ParameterList::Fixed(body2_variables),
    solvers: stiff_solvers,
    construct: |a| instantiate_body2(a.parameters, a.solver),
};

/// Registry entry of the coupling element.
pub(super) const COUPLING_ENTRY: ModelEntry = ModelEntry {
    id: COUPLING_ID,
    summary: "Seed 002 Example 1, coupling element: fc = cc*dx + dc*dv + Cc*dx^3 + Dc*dv^3 \
              with dx = x2 - x1, dv = v2 - v1 (algebraic, direct feedthrough).",
    parameters: ParameterList::Fixed(coupling_variables),
    solvers: default_only,
    construct: |a| instantiate_coupling(a.parameters),
};
