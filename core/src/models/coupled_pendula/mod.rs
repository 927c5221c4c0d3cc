//! The coupled pendula of the energy benchmarks (docs/energy-benchmarks.md §3, seed 001
//! Sect. 4.3): two point masses on massless rods pinned at A and B, their tips joined by a
//! spring–damper, split for force–displacement coupling. Each pendulum is written in the
//! Cartesian coordinates of its tip with the rod as a constraint
//! `Φ = ½(|r − p|² − l²) = 0` (p the pivot), not in its angle.
//!
//! - **`CoupledPendula.Pendulum1`** (pendulum 1 and the spring–damper; direct
//!   feedthrough): states `x`, `y`, `vx`, `vy` of tip 1; inputs `x2`, `y2`, `vx2`, `vy2`
//!   (tip 2); outputs `fx`, `fy`, the force of the spring–damper on tip 2, and `E`
//!   (kinetic, gravity and spring energy).
//! - **`CoupledPendula.Pendulum2`**: states of tip 2; inputs `fx`, `fy`; outputs `x2`,
//!   `y2`, `vx2`, `vy2` and `E` (kinetic and gravity energy).
//!
//! **Own step** (`symplectic_euler`, the default): symplectic Euler with the rod force
//! `−λ (r_k − p)` chosen so that the new position lies on the circle,
//! `v_{k+1} = v_k + h (Q − λ d_k)/m`, `r_{k+1} = r_k + h v_{k+1}`, `|r_{k+1} − p| = l`, a
//! quadratic in λ solved exactly (its root nearest 0). This is the limit the augmented
//! Lagrangian iterations of the seed converge to (SHAKE); the constraint holds to rounding
//! at every step. **Equations** (for `rk4`, `dopri45` and the monolithic reference): the
//! index-1 form with λ from `Φ̈ = 0`, `λ = (d·Q + m |v|²)/|d|²`, `a = (Q − λ d)/m`.
//!
//! The start is given by the angle `theta0` from the −y axis and the angular velocity
//! `omega0` (the tip states follow from them). Defaults: m₁ = m₂ = 1 kg, l₁ = 4.75 m at
//! A = (0, 0), l₂ = 10 m at B = (7.5, 0), θ₁ = π/4, θ₂ = π/18 at rest, k = 10 N/m, c = 0,
//! l₀ = 8.7555 m, the initial tip distance (the seed: about 8.756 m).

use super::entry::{ModelEntry, ParameterList};
use super::layout::PortSpec;
use super::ode_module::OdeModel;
use super::parameters::{ParameterSet, Range::*, Slot};
use super::stepped::{self, solvers_with, OwnMethod, OwnStep};
use crate::module::DependencyKind;
use crate::solvers::SolverSpec;
use alloc::vec;
use alloc::vec::Vec;

mod rod;
#[cfg(test)]
mod tests;

pub use rod::Rod;

/// Model id of pendulum 1 (with the spring–damper).
pub const PENDULUM1_ID: &str = "CoupledPendula.Pendulum1";
/// Model id of pendulum 2.
pub const PENDULUM2_ID: &str = "CoupledPendula.Pendulum2";

/// Natural length of the spring in the defaults: the distance of the default tips at the
/// start, so the spring starts unloaded.
pub const DEFAULT_L0: f64 = 8.755_508_225_285_6;

/// The spring–damper between the tips.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spring {
    /// Stiffness k in N/m. Default 10.
    pub k: f64,
    /// Damping c in N·s/m. Default 0.
    pub c: f64,
    /// Natural length l₀ in m. Default [`DEFAULT_L0`].
    pub l0: f64,
}

impl Spring {
    /// Force on tip 2 at `(r2, v2)` from tip 1 at `(r1, v1)`, and the stored energy.
    pub fn force(&self, r1: [f64; 2], v1: [f64; 2], r2: [f64; 2], v2: [f64; 2]) -> ([f64; 2], f64) {
        let d = [r2[0] - r1[0], r2[1] - r1[1]];
        let length = libm::hypot(d[0], d[1]);
        let stretch = length - self.l0;
        let energy = 0.5 * self.k * stretch * stretch;
        if length == 0.0 {
            // Coincident tips: no direction; never reached from the defaults.
            return ([0.0, 0.0], energy);
        }
        let e = [d[0] / length, d[1] / length];
        let rate = e[0] * (v2[0] - v1[0]) + e[1] * (v2[1] - v1[1]);
        let magnitude = -(self.k * stretch + self.c * rate);
        ([magnitude * e[0], magnitude * e[1]], energy)
    }
}

/// Pendulum 1 and the spring–damper.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pendulum1 {
    /// The pendulum.
    pub rod: Rod,
    /// The spring–damper to tip 2.
    pub spring: Spring,
}

impl Default for Pendulum1 {
    fn default() -> Self {
        Pendulum1 {
            rod: Rod {
                l: 4.75,
                theta0: core::f64::consts::FRAC_PI_4,
                ..Rod::default()
            },
            spring: Spring {
                k: 10.0,
                c: 0.0,
                l0: DEFAULT_L0,
            },
        }
    }
}

impl ParameterSet for Pendulum1 {
    const MODEL_ID: &'static str = PENDULUM1_ID;
    const PARAMETERS: usize = 10;

    fn with_slots<R>(&mut self, f: impl FnOnce(&mut [Slot<'_>]) -> R) -> R {
        let (r, s) = (&mut self.rod, &mut self.spring);
        #[rustfmt::skip] // a table: one slot a row
        let mut slots = [
            ("m1",     Positive,    "kg",    "tip mass m1",                          &mut r.m),
            ("l1",     Positive,    "m",     "rod length l1",                        &mut r.l),
            ("ax",     Finite,      "m",     "pivot A, x",                           &mut r.px),
            ("ay",     Finite,      "m",     "pivot A, y",                           &mut r.py),
            ("theta1", Finite,      "rad",   "start angle of rod 1 from the -y axis", &mut r.theta0),
            ("omega1", Finite,      "rad/s", "start angular velocity of rod 1",      &mut r.omega0),
            ("g",      NonNegative, "m/s2",  "gravity along -y",                     &mut r.g),
            ("k",      NonNegative, "N/m",   "spring stiffness k",                   &mut s.k),
            ("c",      NonNegative, "N*s/m", "damping c",                            &mut s.c),
            ("l0",     NonNegative, "m",     "natural length l0 of the spring",      &mut s.l0),
        ];
        f(&mut slots)
    }

    fn ports(&self) -> (Vec<PortSpec>, Vec<PortSpec>) {
        (parameter_ports(self), self.rod.state_ports("1"))
    }
}

/// Every slot of `p` as a parameter port.
fn parameter_ports<P: ParameterSet>(p: &P) -> Vec<PortSpec> {
    let mut p = p.clone();
    p.with_slots(|s| {
        s.iter()
            .map(|(name, _, unit, text, value)| PortSpec::new(name, unit, **value, text))
            .collect()
    })
}

/// Tip 2 as inputs or outputs.
fn tip2_ports() -> Vec<PortSpec> {
    vec![
        PortSpec::new("x2", "m", 0.0, "tip 2, x"),
        PortSpec::new("y2", "m", 0.0, "tip 2, y"),
        PortSpec::new("vx2", "m/s", 0.0, "tip 2, velocity x"),
        PortSpec::new("vy2", "m/s", 0.0, "tip 2, velocity y"),
    ]
}

impl Pendulum1 {
    /// Force of the spring–damper on tip 2 (from tip 1's states `x` and tip 2's `u`) and
    /// the spring's energy.
    pub fn spring_force(&self, x: &[f64], u: &[f64]) -> ([f64; 2], f64) {
        self.spring
            .force([x[0], x[1]], [x[2], x[3]], [u[0], u[1]], [u[2], u[3]])
    }
}

impl OdeModel for Pendulum1 {
    fn inputs(&self) -> Vec<PortSpec> {
        tip2_ports()
    }
    fn outputs(&self) -> Vec<PortSpec> {
        vec![
            PortSpec::new("fx", "N", 0.0, "force of the spring-damper on tip 2, x"),
            PortSpec::new("fy", "N", 0.0, "force of the spring-damper on tip 2, y"),
            PortSpec::new("E", "J", 0.0, "energy of pendulum 1 and the spring"),
        ]
    }
    fn feedthrough(&self) -> Vec<(usize, usize, DependencyKind)> {
        let mut d = Vec::new();
        for o in 0..2 {
            d.extend((0..4).map(|i| (o, i, DependencyKind::Dependent)));
        }
        d.extend((0..2).map(|i| (2, i, DependencyKind::Dependent)));
        d
    }
    fn rhs(&self, _t: f64, x: &[f64], u: &[f64], dx: &mut [f64]) {
        let (f, _) = self.spring_force(x, u);
        self.rod.rhs(x, [-f[0], -f[1]], dx);
    }
    fn output(&self, _t: f64, x: &[f64], u: &[f64], y: &mut [f64]) {
        let (f, spring_energy) = self.spring_force(x, u);
        y[0] = f[0];
        y[1] = f[1];
        y[2] = self.rod.energy(x) + spring_energy;
    }
}

impl OwnStep for Pendulum1 {
    const OWN_METHOD: OwnMethod = OwnMethod::SymplecticEuler;
    fn own_step(&self, _t: f64, h: f64, x: &mut [f64], u: &[f64]) {
        let (f, _) = self.spring_force(x, u);
        self.rod.constrained_step(h, x, [-f[0], -f[1]]);
    }
}

/// Pendulum 2.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pendulum2 {
    /// The pendulum.
    pub rod: Rod,
}

impl Default for Pendulum2 {
    fn default() -> Self {
        Pendulum2 {
            rod: Rod {
                l: 10.0,
                px: 7.5,
                theta0: core::f64::consts::PI / 18.0,
                ..Rod::default()
            },
        }
    }
}

impl ParameterSet for Pendulum2 {
    const MODEL_ID: &'static str = PENDULUM2_ID;
    const PARAMETERS: usize = 7;

    fn with_slots<R>(&mut self, f: impl FnOnce(&mut [Slot<'_>]) -> R) -> R {
        let r = &mut self.rod;
        #[rustfmt::skip] // a table: one slot a row
        let mut slots = [
            ("m2",     Positive,    "kg",    "tip mass m2",                          &mut r.m),
            ("l2",     Positive,    "m",     "rod length l2",                        &mut r.l),
            ("bx",     Finite,      "m",     "pivot B, x",                           &mut r.px),
            ("by",     Finite,      "m",     "pivot B, y",                           &mut r.py),
            ("theta2", Finite,      "rad",   "start angle of rod 2 from the -y axis", &mut r.theta0),
            ("omega2", Finite,      "rad/s", "start angular velocity of rod 2",      &mut r.omega0),
            ("g",      NonNegative, "m/s2",  "gravity along -y",                     &mut r.g),
        ];
        f(&mut slots)
    }

    fn ports(&self) -> (Vec<PortSpec>, Vec<PortSpec>) {
        (parameter_ports(self), self.rod.state_ports("2"))
    }
}

impl OdeModel for Pendulum2 {
    fn inputs(&self) -> Vec<PortSpec> {
        vec![
            PortSpec::new("fx", "N", 0.0, "coupling force on tip 2, x"),
            PortSpec::new("fy", "N", 0.0, "coupling force on tip 2, y"),
        ]
    }
    fn outputs(&self) -> Vec<PortSpec> {
        let mut out = tip2_ports();
        out.push(PortSpec::new("E", "J", 0.0, "energy of pendulum 2"));
        out
    }
    fn feedthrough(&self) -> Vec<(usize, usize, DependencyKind)> {
        Vec::new()
    }
    fn rhs(&self, _t: f64, x: &[f64], u: &[f64], dx: &mut [f64]) {
        self.rod.rhs(x, [u[0], u[1]], dx);
    }
    fn output(&self, _t: f64, x: &[f64], _u: &[f64], y: &mut [f64]) {
        y[..4].copy_from_slice(&x[..4]);
        y[4] = self.rod.energy(x);
    }
}

impl OwnStep for Pendulum2 {
    const OWN_METHOD: OwnMethod = OwnMethod::SymplecticEuler;
    fn own_step(&self, _t: f64, h: f64, x: &mut [f64], u: &[f64]) {
        self.rod.constrained_step(h, x, [u[0], u[1]]);
    }
}

fn symplectic_solvers() -> Vec<SolverSpec> {
    solvers_with(OwnMethod::SymplecticEuler)
}

/// Registry entry of pendulum 1.
pub(super) const PENDULUM1_ENTRY: ModelEntry = ModelEntry {
    id: PENDULUM1_ID,
    summary: "Energy benchmark (seed 001), coupled pendula, pendulum 1 (tip in Cartesian \
              coordinates, rod as a constraint) with the spring-damper to tip 2; inputs tip 2's \
              x2, y2, vx2, vy2, outputs the force fx, fy on tip 2 (direct feedthrough) and the \
              energy E; constrained symplectic Euler by default.",
    parameters: ParameterList::Fixed(Pendulum1::catalog),
    solvers: symplectic_solvers,
    construct: |a| stepped::build(Pendulum1::from_map(a.parameters)?, a),
};

/// Registry entry of pendulum 2.
pub(super) const PENDULUM2_ENTRY: ModelEntry = ModelEntry {
    id: PENDULUM2_ID,
    summary: "Energy benchmark (seed 001), coupled pendula, pendulum 2 (tip in Cartesian \
              coordinates, rod as a constraint); inputs the force fx, fy on its tip, outputs \
              x2, y2, vx2, vy2 and the energy E; constrained symplectic Euler by default.",
    parameters: ParameterList::Fixed(Pendulum2::catalog),
    solvers: symplectic_solvers,
    construct: |a| stepped::build(Pendulum2::from_map(a.parameters)?, a),
};
