//! The double nonlinear oscillator of the energy benchmarks (docs/energy-benchmarks.md §2,
//! seed 001 Sect. 4.2): masses m₁, m₂ joined to the ground and to each other by three
//! elements, each a spring and a damper that may be linear, `√` or quadratic, split for
//! force–displacement coupling.
//!
//! One element with elongation `e` (rate `ė`) pushes back with
//! `F(e, ė) = −(k e + k_s sgn(e) √|e| + c ė + c_q sgn(ė) ė²)` and stores
//! `V(e) = ½ k e² + ⅔ k_s |e|^{3/2}` (not ½ k e²: the √-spring's energy).
//!
//! - **`NonlinearOscillator.Mass1`** (mass 1, its ground element and the coupling element;
//!   direct feedthrough): states `x`, `v`; inputs `x2`, `v2` (mass 2); outputs `f`, the
//!   force the coupling element exerts on mass 2, and `E`.
//!   `m₁ v' = F₁(x, v) − f`, `f = F_c(x2 − x, v2 − v)`,
//!   `E = ½ m₁ v² + V₁(x) + V_c(x2 − x)`.
//! - **`NonlinearOscillator.Mass2`** (mass 2 and its ground element): states `x`, `v`;
//!   input `f`; outputs `x2`, `v2`, `E`. `m₂ v' = F₂(x, v) + f`, `E = ½ m₂ v² + V₂(x)`.
//!
//! Defaults are case 1 (√-springs, no damping): m₁ = m₂ = 1 kg, k_s = 10, 100, 1000
//! N/m^½ (ground 1, coupling, ground 2), started at rest positions with ±100 m/s. Case 2
//! sets the springs linear (10, 100, 1000 N/m) and c_q = 1e-3 N·s²/m² on every element.
//! Both step by one symplectic Euler step per communication step unless the scenario
//! chooses `rk4` or `dopri45`.

use super::entry::{ModelEntry, ParameterList};
use super::layout::PortSpec;
use super::ode_module::OdeModel;
use super::parameters::{ParameterSet, Range::*, Slot};
use super::stepped::{self, solvers_with, symplectic_euler, OwnMethod, OwnStep};
use crate::module::DependencyKind;
use alloc::vec;
use alloc::vec::Vec;

#[cfg(test)]
mod tests;

/// Model id of mass 1 (with the coupling element).
pub const MASS1_ID: &str = "NonlinearOscillator.Mass1";
/// Model id of mass 2.
pub const MASS2_ID: &str = "NonlinearOscillator.Mass2";

/// One spring–damper element: linear and `√` spring, linear and quadratic damper.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Element {
    /// Linear stiffness k in N/m.
    pub k: f64,
    /// Square-root stiffness k_s in N/m^½ (seed eq. 22).
    pub ks: f64,
    /// Linear damping c in N·s/m.
    pub c: f64,
    /// Quadratic damping c_q in N·s²/m² (seed eq. 23).
    pub cq: f64,
}

impl Element {
    /// Force on the mass at the moving end for elongation `e` and rate `ed`.
    pub fn force(&self, e: f64, ed: f64) -> f64 {
        let sqrt_spring = self.ks * signum(e) * libm::sqrt(libm::fabs(e));
        let quadratic_damper = self.cq * signum(ed) * ed * ed;
        -(self.k * e + sqrt_spring + self.c * ed + quadratic_damper)
    }

    /// Energy stored at elongation `e`.
    pub fn potential(&self, e: f64) -> f64 {
        let a = libm::fabs(e);
        0.5 * self.k * e * e + 2.0 / 3.0 * self.ks * a * libm::sqrt(a)
    }
}

/// `sgn` with `sgn(0) = 0` (f64::signum gives ±1 at ±0).
fn signum(x: f64) -> f64 {
    if x > 0.0 {
        1.0
    } else if x < 0.0 {
        -1.0
    } else {
        0.0
    }
}

/// Mass 1 with its ground element and the coupling element.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Mass1 {
    /// Mass m₁ in kg. Default 1.
    pub m: f64,
    /// Element to ground. Default `k_s = 10`.
    pub ground: Element,
    /// Coupling element. Default `k_s = 100`.
    pub coupling: Element,
    /// Start position in m. Default 0.
    pub x: f64,
    /// Start velocity in m/s. Default 100.
    pub v: f64,
}

impl Default for Mass1 {
    fn default() -> Self {
        Mass1 {
            m: 1.0,
            ground: Element {
                ks: 10.0,
                ..Element::default()
            },
            coupling: Element {
                ks: 100.0,
                ..Element::default()
            },
            x: 0.0,
            v: 100.0,
        }
    }
}

impl ParameterSet for Mass1 {
    const MODEL_ID: &'static str = MASS1_ID;
    const PARAMETERS: usize = 9;

    fn with_slots<R>(&mut self, f: impl FnOnce(&mut [Slot<'_>]) -> R) -> R {
        let (g, c) = (&mut self.ground, &mut self.coupling);
        #[rustfmt::skip] // a table: one slot a row
        let mut slots = [
            ("m1",  Positive,    "kg",       "mass m1",                                &mut self.m),
            ("k1",  NonNegative, "N/m",      "linear spring k1 to ground",             &mut g.k),
            ("ks1", NonNegative, "N/m0.5",   "square-root spring ks1 to ground",       &mut g.ks),
            ("c1",  NonNegative, "N*s/m",    "linear damper c1 to ground",             &mut g.c),
            ("cq1", NonNegative, "N*s2/m2",  "quadratic damper cq1 to ground",         &mut g.cq),
            ("kc",  NonNegative, "N/m",      "linear coupling spring kc",              &mut c.k),
            ("ksc", NonNegative, "N/m0.5",   "square-root coupling spring ksc",        &mut c.ks),
            ("cc",  NonNegative, "N*s/m",    "linear coupling damper cc",              &mut c.c),
            ("cqc", NonNegative, "N*s2/m2",  "quadratic coupling damper cqc",          &mut c.cq),
            ("x",   Finite,      "m",        "position x1 of mass 1",                  &mut self.x),
            ("v",   Finite,      "m/s",      "velocity v1 of mass 1",                  &mut self.v),
        ];
        f(&mut slots)
    }
}

impl Mass1 {
    /// The coupling force on mass 2 for mass 1 at `(x, v)` and mass 2 at `(x2, v2)`.
    pub fn coupling_force(&self, x: f64, v: f64, x2: f64, v2: f64) -> f64 {
        self.coupling.force(x2 - x, v2 - v)
    }
}

impl OdeModel for Mass1 {
    fn inputs(&self) -> Vec<PortSpec> {
        vec![
            PortSpec::new("x2", "m", 0.0, "position x2 of mass 2"),
            PortSpec::new("v2", "m/s", 0.0, "velocity v2 of mass 2"),
        ]
    }
    fn outputs(&self) -> Vec<PortSpec> {
        vec![
            PortSpec::new("f", "N", 0.0, "force of the coupling element on mass 2"),
            PortSpec::new(
                "E",
                "J",
                0.0,
                "energy of mass 1, its ground and coupling elements",
            ),
        ]
    }
    fn feedthrough(&self) -> Vec<(usize, usize, DependencyKind)> {
        use DependencyKind::Dependent;
        vec![(0, 0, Dependent), (0, 1, Dependent), (1, 0, Dependent)]
    }
    fn rhs(&self, _t: f64, x: &[f64], u: &[f64], dx: &mut [f64]) {
        let f = self.coupling_force(x[0], x[1], u[0], u[1]);
        dx[0] = x[1];
        dx[1] = (self.ground.force(x[0], x[1]) - f) / self.m;
    }
    fn output(&self, _t: f64, x: &[f64], u: &[f64], y: &mut [f64]) {
        y[0] = self.coupling_force(x[0], x[1], u[0], u[1]);
        y[1] = 0.5 * self.m * x[1] * x[1]
            + self.ground.potential(x[0])
            + self.coupling.potential(u[0] - x[0]);
    }
}

impl OwnStep for Mass1 {
    const OWN_METHOD: OwnMethod = OwnMethod::SymplecticEuler;
    fn own_step(&self, t: f64, h: f64, x: &mut [f64], u: &[f64]) {
        symplectic_euler(self, t, h, x, u);
    }
}

/// Mass 2 with its ground element.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Mass2 {
    /// Mass m₂ in kg. Default 1.
    pub m: f64,
    /// Element to ground. Default `k_s = 1000`.
    pub ground: Element,
    /// Start position in m. Default 0.
    pub x: f64,
    /// Start velocity in m/s. Default −100.
    pub v: f64,
}

impl Default for Mass2 {
    fn default() -> Self {
        Mass2 {
            m: 1.0,
            ground: Element {
                ks: 1000.0,
                ..Element::default()
            },
            x: 0.0,
            v: -100.0,
        }
    }
}

impl ParameterSet for Mass2 {
    const MODEL_ID: &'static str = MASS2_ID;
    const PARAMETERS: usize = 5;

    fn with_slots<R>(&mut self, f: impl FnOnce(&mut [Slot<'_>]) -> R) -> R {
        let g = &mut self.ground;
        #[rustfmt::skip] // a table: one slot a row
        let mut slots = [
            ("m2",  Positive,    "kg",      "mass m2",                          &mut self.m),
            ("k2",  NonNegative, "N/m",     "linear spring k2 to ground",       &mut g.k),
            ("ks2", NonNegative, "N/m0.5",  "square-root spring ks2 to ground", &mut g.ks),
            ("c2",  NonNegative, "N*s/m",   "linear damper c2 to ground",       &mut g.c),
            ("cq2", NonNegative, "N*s2/m2", "quadratic damper cq2 to ground",   &mut g.cq),
            ("x",   Finite,      "m",       "position x2 of mass 2",            &mut self.x),
            ("v",   Finite,      "m/s",     "velocity v2 of mass 2",            &mut self.v),
        ];
        f(&mut slots)
    }
}

impl OdeModel for Mass2 {
    fn inputs(&self) -> Vec<PortSpec> {
        vec![PortSpec::new("f", "N", 0.0, "coupling force on mass 2")]
    }
    fn outputs(&self) -> Vec<PortSpec> {
        vec![
            PortSpec::new("x2", "m", 0.0, "position x2"),
            PortSpec::new("v2", "m/s", 0.0, "velocity v2"),
            PortSpec::new("E", "J", 0.0, "energy of mass 2 and its ground element"),
        ]
    }
    fn feedthrough(&self) -> Vec<(usize, usize, DependencyKind)> {
        Vec::new()
    }
    fn rhs(&self, _t: f64, x: &[f64], u: &[f64], dx: &mut [f64]) {
        dx[0] = x[1];
        dx[1] = (self.ground.force(x[0], x[1]) + u[0]) / self.m;
    }
    fn output(&self, _t: f64, x: &[f64], _u: &[f64], y: &mut [f64]) {
        y[0] = x[0];
        y[1] = x[1];
        y[2] = 0.5 * self.m * x[1] * x[1] + self.ground.potential(x[0]);
    }
}

impl OwnStep for Mass2 {
    const OWN_METHOD: OwnMethod = OwnMethod::SymplecticEuler;
    fn own_step(&self, t: f64, h: f64, x: &mut [f64], u: &[f64]) {
        symplectic_euler(self, t, h, x, u);
    }
}

fn symplectic_solvers() -> Vec<crate::solvers::SolverSpec> {
    solvers_with(OwnMethod::SymplecticEuler)
}

/// Registry entry of mass 1.
pub(super) const MASS1_ENTRY: ModelEntry = ModelEntry {
    id: MASS1_ID,
    summary: "Energy benchmark (seed 001), double nonlinear oscillator, mass 1 with its ground \
              element and the coupling element (linear, sqrt or quadratic springs and dampers); \
              inputs x2, v2, outputs the force f on mass 2 (direct feedthrough) and the energy \
              E; symplectic Euler by default.",
    parameters: ParameterList::Fixed(Mass1::catalog),
    solvers: symplectic_solvers,
    construct: |a| stepped::build(Mass1::from_map(a.parameters)?, a),
};

/// Registry entry of mass 2.
pub(super) const MASS2_ENTRY: ModelEntry = ModelEntry {
    id: MASS2_ID,
    summary: "Energy benchmark (seed 001), double nonlinear oscillator, mass 2 with its ground \
              element; input the coupling force f, outputs x2, v2 and the energy E; symplectic \
              Euler by default.",
    parameters: ParameterList::Fixed(Mass2::catalog),
    solvers: symplectic_solvers,
    construct: |a| stepped::build(Mass2::from_map(a.parameters)?, a),
};
