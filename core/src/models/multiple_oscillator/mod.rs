//! The multiple linear oscillator of the energy benchmarks (docs/energy-benchmarks.md §1,
//! seed 001 Sect. 4.1): n − 1 outer masses, each on a spring–damper to the ground and
//! coupled to the tip mass n by its own spring–damper, split into n subsystems for
//! force–displacement coupling.
//!
//! - **`MultipleOscillator.Mass`** (outer mass i with its ground and coupling elements;
//!   direct feedthrough): states `x`, `v`; inputs `xn`, `vn` (the tip); outputs `f`, the
//!   force its coupling element exerts on the tip, and `E`.
//!   `m v' = −k x − c v − f`, `f = −k_c (xn − x) − c_c (vn − v)`,
//!   `E = ½ m v² + ½ k x² + ½ k_c (xn − x)²`.
//! - **`MultipleOscillator.Tip2`**, **`MultipleOscillator.Tip4`** (the tip mass on its
//!   spring–damper to the ground, for n = 3 and n = 5): states `x`, `v`; inputs `f1`…`fN`,
//!   one per outer mass (their sum is the seed's "algebraic sum f", kept apart so that
//!   every bond is monitored and corrected on its own); outputs `xn`, `vn`, `E`.
//!   `m v' = −k x − c v + Σ f_i`, `E = ½ m v² + ½ k x²`.
//!
//! Defaults: every mass 1 kg, outer mass k = 10 N/m, k_c = 25 N/m (the presets set outer
//! mass i to k = 5(i + 1), k_c = 20 + 5i N/m), tip k = 500 N/m, no damping; starts at rest
//! positions, outer masses at +100 m/s, the tip at −100 m/s (the seed's start).

use super::entry::{ModelEntry, ParameterList};
use super::layout::PortSpec;
use super::ode_module::OdeModel;
use super::parameters::{ParameterSet, Range::*, Slot};
use super::stepped::{self, solvers_with, symplectic_euler, OwnMethod, OwnStep};
use crate::module::DependencyKind;
use crate::solvers::SolverSpec;
use alloc::format;
use alloc::vec;
use alloc::vec::Vec;

#[cfg(test)]
mod tests;

/// Model id of an outer mass.
pub const MASS_ID: &str = "MultipleOscillator.Mass";
/// Model id of the tip with two coupling inputs (n = 3).
pub const TIP2_ID: &str = "MultipleOscillator.Tip2";
/// Model id of the tip with four coupling inputs (n = 5).
pub const TIP4_ID: &str = "MultipleOscillator.Tip4";

/// An outer mass with its ground and coupling spring–dampers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OuterMass {
    /// Mass in kg. Default 1.
    pub m: f64,
    /// Spring to ground in N/m. Default 10.
    pub k: f64,
    /// Damper to ground in N·s/m. Default 0.
    pub c: f64,
    /// Coupling spring to the tip in N/m. Default 25.
    pub kc: f64,
    /// Coupling damper to the tip in N·s/m. Default 0.
    pub cc: f64,
    /// Start position in m. Default 0.
    pub x: f64,
    /// Start velocity in m/s. Default 100.
    pub v: f64,
}

impl Default for OuterMass {
    fn default() -> Self {
        OuterMass {
            m: 1.0,
            k: 10.0,
            c: 0.0,
            kc: 25.0,
            cc: 0.0,
            x: 0.0,
            v: 100.0,
        }
    }
}

impl ParameterSet for OuterMass {
    const MODEL_ID: &'static str = MASS_ID;
    const PARAMETERS: usize = 5;

    fn with_slots<R>(&mut self, f: impl FnOnce(&mut [Slot<'_>]) -> R) -> R {
        #[rustfmt::skip] // a table: one slot a row
        let mut slots = [
            ("m",  Positive,    "kg",    "mass",                        &mut self.m),
            ("k",  NonNegative, "N/m",   "spring k to ground",          &mut self.k),
            ("c",  NonNegative, "N*s/m", "damper c to ground",          &mut self.c),
            ("kc", NonNegative, "N/m",   "coupling spring kc to the tip", &mut self.kc),
            ("cc", NonNegative, "N*s/m", "coupling damper cc to the tip", &mut self.cc),
            ("x",  Finite,      "m",     "position of the mass",        &mut self.x),
            ("v",  Finite,      "m/s",   "velocity of the mass",        &mut self.v),
        ];
        f(&mut slots)
    }
}

impl OuterMass {
    /// The force of the coupling element on the tip for this mass at `(x, v)` and the tip
    /// at `(xn, vn)`.
    pub fn coupling_force(&self, x: f64, v: f64, xn: f64, vn: f64) -> f64 {
        -self.kc * (xn - x) - self.cc * (vn - v)
    }
}

impl OdeModel for OuterMass {
    fn inputs(&self) -> Vec<PortSpec> {
        vec![
            PortSpec::new("xn", "m", 0.0, "position of the tip mass"),
            PortSpec::new("vn", "m/s", 0.0, "velocity of the tip mass"),
        ]
    }
    fn outputs(&self) -> Vec<PortSpec> {
        vec![
            PortSpec::new("f", "N", 0.0, "force of the coupling element on the tip"),
            PortSpec::new("E", "J", 0.0, "energy of the mass and its two springs"),
        ]
    }
    fn feedthrough(&self) -> Vec<(usize, usize, DependencyKind)> {
        use DependencyKind::{Constant, Dependent};
        vec![(0, 0, Constant), (0, 1, Constant), (1, 0, Dependent)]
    }
    fn rhs(&self, _t: f64, x: &[f64], u: &[f64], dx: &mut [f64]) {
        let f = self.coupling_force(x[0], x[1], u[0], u[1]);
        dx[0] = x[1];
        dx[1] = (-self.k * x[0] - self.c * x[1] - f) / self.m;
    }
    fn output(&self, _t: f64, x: &[f64], u: &[f64], y: &mut [f64]) {
        let stretch = u[0] - x[0];
        y[0] = self.coupling_force(x[0], x[1], u[0], u[1]);
        y[1] = 0.5 * (self.m * x[1] * x[1] + self.k * x[0] * x[0] + self.kc * stretch * stretch);
    }
}

impl OwnStep for OuterMass {
    const OWN_METHOD: OwnMethod = OwnMethod::SymplecticEuler;
    fn own_step(&self, t: f64, h: f64, x: &mut [f64], u: &[f64]) {
        symplectic_euler(self, t, h, x, u);
    }
}

/// The tip mass with `N` coupling-force inputs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tip<const N: usize> {
    /// Mass in kg. Default 1.
    pub m: f64,
    /// Spring to ground in N/m. Default 500.
    pub k: f64,
    /// Damper to ground in N·s/m. Default 0.
    pub c: f64,
    /// Start position in m. Default 0.
    pub x: f64,
    /// Start velocity in m/s. Default −100.
    pub v: f64,
}

impl<const N: usize> Default for Tip<N> {
    fn default() -> Self {
        Tip {
            m: 1.0,
            k: 500.0,
            c: 0.0,
            x: 0.0,
            v: -100.0,
        }
    }
}

impl<const N: usize> ParameterSet for Tip<N> {
    const MODEL_ID: &'static str = if N == 2 { TIP2_ID } else { TIP4_ID };
    const PARAMETERS: usize = 3;

    fn with_slots<R>(&mut self, f: impl FnOnce(&mut [Slot<'_>]) -> R) -> R {
        #[rustfmt::skip] // a table: one slot a row
        let mut slots = [
            ("m", Positive,    "kg",    "tip mass",               &mut self.m),
            ("k", NonNegative, "N/m",   "spring k to ground",     &mut self.k),
            ("c", NonNegative, "N*s/m", "damper c to ground",     &mut self.c),
            ("x", Finite,      "m",     "position of the tip",    &mut self.x),
            ("v", Finite,      "m/s",   "velocity of the tip",    &mut self.v),
        ];
        f(&mut slots)
    }
}

impl<const N: usize> OdeModel for Tip<N> {
    fn inputs(&self) -> Vec<PortSpec> {
        (1..=N)
            .map(|i| {
                let text = format!("coupling force of outer mass {i} on the tip");
                PortSpec::new(&format!("f{i}"), "N", 0.0, &text)
            })
            .collect()
    }
    fn outputs(&self) -> Vec<PortSpec> {
        vec![
            PortSpec::new("xn", "m", 0.0, "position of the tip"),
            PortSpec::new("vn", "m/s", 0.0, "velocity of the tip"),
            PortSpec::new("E", "J", 0.0, "energy of the tip and its ground spring"),
        ]
    }
    fn feedthrough(&self) -> Vec<(usize, usize, DependencyKind)> {
        Vec::new()
    }
    fn rhs(&self, _t: f64, x: &[f64], u: &[f64], dx: &mut [f64]) {
        let f: f64 = u.iter().sum();
        dx[0] = x[1];
        dx[1] = (-self.k * x[0] - self.c * x[1] + f) / self.m;
    }
    fn output(&self, _t: f64, x: &[f64], _u: &[f64], y: &mut [f64]) {
        y[0] = x[0];
        y[1] = x[1];
        y[2] = 0.5 * (self.m * x[1] * x[1] + self.k * x[0] * x[0]);
    }
}

impl<const N: usize> OwnStep for Tip<N> {
    const OWN_METHOD: OwnMethod = OwnMethod::SymplecticEuler;
    fn own_step(&self, t: f64, h: f64, x: &mut [f64], u: &[f64]) {
        symplectic_euler(self, t, h, x, u);
    }
}

fn symplectic_solvers() -> Vec<SolverSpec> {
    solvers_with(OwnMethod::SymplecticEuler)
}

/// Registry entry of an outer mass.
pub(super) const MASS_ENTRY: ModelEntry = ModelEntry {
    id: MASS_ID,
    summary: "Energy benchmark (seed 001), multiple linear oscillator, an outer mass on its \
              spring-damper to ground, coupled to the tip by its own spring-damper; inputs xn, \
              vn, outputs the force f on the tip (direct feedthrough) and the energy E; \
              symplectic Euler by default.",
    parameters: ParameterList::Fixed(OuterMass::catalog),
    solvers: symplectic_solvers,
    construct: |a| stepped::build(OuterMass::from_map(a.parameters)?, a),
};

/// Registry entry of the tip for n = 3.
pub(super) const TIP2_ENTRY: ModelEntry = ModelEntry {
    id: TIP2_ID,
    summary: "Energy benchmark (seed 001), multiple linear oscillator with n = 3, the tip mass \
              on its spring-damper to ground; inputs f1, f2 (one force per outer mass), \
              outputs xn, vn and the energy E; symplectic Euler by default.",
    parameters: ParameterList::Fixed(Tip::<2>::catalog),
    solvers: symplectic_solvers,
    construct: |a| stepped::build(Tip::<2>::from_map(a.parameters)?, a),
};

/// Registry entry of the tip for n = 5.
pub(super) const TIP4_ENTRY: ModelEntry = ModelEntry {
    id: TIP4_ID,
    summary: "Energy benchmark (seed 001), multiple linear oscillator with n = 5, the tip mass \
              on its spring-damper to ground; inputs f1 to f4 (one force per outer mass), \
              outputs xn, vn and the energy E; symplectic Euler by default.",
    parameters: ParameterList::Fixed(Tip::<4>::catalog),
    solvers: symplectic_solvers,
    construct: |a| stepped::build(Tip::<4>::from_map(a.parameters)?, a),
};
