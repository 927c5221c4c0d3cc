//! The hydraulic crane of the energy benchmarks (docs/energy-benchmarks.md §4, seed 001
//! Sect. 4.4): a boom pinned at A = (0, 0), a massless second link hanging from its tip Q
//! with the load at P, lifted by a double-acting cylinder from the ground point C to the
//! boom point D, split into the multibody side ℳ and the hydraulic side ℋ
//! (force–displacement coupling, ℋ with direct feedthrough).
//!
//! - **`HydraulicCrane.Mechanics`** ([`mechanics`]): states `theta1`, `theta2` (from +x,
//!   counter-clockwise), `omega1`, `omega2`; input `f`, the cylinder force (extending
//!   positive); outputs the cylinder length `sc`, its rate `vsc` and `E` (kinetic plus
//!   gravity energy). Symplectic Euler by default.
//! - **`HydraulicCrane.Hydraulics`** ([`hydraulics`]): states the chamber pressures `p1`,
//!   `p2` (starting at the valve's equilibrium for `gamma0`); inputs `sc`, `vsc`; output
//!   `f = a_p (p₂ − p₁) − c·vsc` (seed eqs. 25–33). Forward Euler by default, one step per
//!   communication step.
//!
//! The defaults balance the load at θ₁ = π/6 with the valve at γ₀ = 0.45435 (the seed's
//! value; docs/energy-benchmarks.md §4 derives the load mass from it).

use super::entry::{ModelEntry, ParameterList};
use super::stepped::{self, solvers_with, OwnMethod};
use crate::solvers::SolverSpec;
use alloc::vec::Vec;

pub mod hydraulics;
pub mod mechanics;
#[cfg(test)]
mod tests;

pub use hydraulics::Hydraulics;
pub use mechanics::Mechanics;

/// Model id of the multibody side.
pub const MECHANICS_ID: &str = "HydraulicCrane.Mechanics";
/// Model id of the hydraulic side.
pub const HYDRAULICS_ID: &str = "HydraulicCrane.Hydraulics";

fn symplectic_solvers() -> Vec<SolverSpec> {
    solvers_with(OwnMethod::SymplecticEuler)
}

fn euler_solvers() -> Vec<SolverSpec> {
    solvers_with(OwnMethod::Euler)
}

/// Registry entry of the multibody side.
pub(super) const MECHANICS_ENTRY: ModelEntry = ModelEntry {
    id: MECHANICS_ID,
    summary: "Energy benchmark (seed 001), hydraulic crane, multibody side: boom with a \
              hanging link and load, driven by the cylinder force f; outputs the cylinder \
              length sc, its rate vsc and the energy E; symplectic Euler by default.",
    parameters: ParameterList::Fixed(mechanics::catalog),
    solvers: symplectic_solvers,
    construct: |a| {
        use super::parameters::ParameterSet;
        stepped::build(Mechanics::from_map(a.parameters)?, a)
    },
};

/// Registry entry of the hydraulic side.
pub(super) const HYDRAULICS_ENTRY: ModelEntry = ModelEntry {
    id: HYDRAULICS_ID,
    summary: "Energy benchmark (seed 001), hydraulic crane, hydraulic side: cylinder chamber \
              pressures fed by a 4/3 valve whose spool follows the seed's manoeuvre; inputs sc, \
              vsc, output the cylinder force f (direct feedthrough); forward Euler by default.",
    parameters: ParameterList::Fixed(hydraulics::catalog),
    solvers: euler_solvers,
    construct: |a| {
        use super::parameters::ParameterSet;
        stepped::build(Hydraulics::from_map(a.parameters)?, a)
    },
};
