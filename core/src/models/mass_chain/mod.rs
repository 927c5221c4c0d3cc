//! The nonlinear mass chain of seed 002, Example 2 (eqns 37, 38), force/force decomposed
//! into segments and cut elements (docs/methods.md §14, "The mass chain").
//!
//! **`MassChain.Segment`**: `n` masses (global numbers `first … first + n − 1` of a chain
//! of `total`), states `x1, v1, …, xn, vn` (interleaved, so the Jacobian is banded);
//! neighbours joined by `F_SD = c Δx + d Δv + C Δx³ + D Δv³` (eqn 37); impulses
//! `½ΔF [tanh((t − t_α)/δ) − tanh((t − t_α − Δt)/δ)]`, `t_α = 0, P, 2P, …`, on 30 % and
//! contacts `A e^{B x}` (overflow-guarded) on 10 % of the chain's masses, drawn by
//! [`data`]. Inputs `lambda_left` (the cut force on the left, acting with − sign on the
//! first mass) and `lambda_right` (acting with + sign on the last mass); outputs
//! `x_first`, `v_first`, `x_last`, `v_last`. A segment holding the chain's first or last
//! mass ties it to a wall at x = 0 through the same spring-damper instead (both ends
//! fixed: seed 002 does not give the boundary conditions; fixed ends keep the chain from
//! drifting away under the impulses) and has no input on that side.
//!
//! **`MassChain.Cut`**: the cut element (eqn 38): inputs `x_left`, `v_left` (last mass of
//! the left segment), `x_right`, `v_right` (first mass of the right one); output
//! `lambda = c_c Δx + d_c Δv + C_c Δx³ + D_c Δv³`, `Δ = right − left`; parameters default
//! to the chain's, so the decomposed chain is the undecomposed one.
//!
//! Defaults: seed 002's m = 0.1 kg, c = 1e7 N/m, d = 1e4 N·s/m, C = 1e14 N/m³,
//! D = 1e2 N·s³/m³, δ = 1e-5 s, Δt = 2.5e-3 s, P = 0.05 s, |ΔF| ∈ [1e6, 5e6] N,
//! A = −1e-2 N, B = 5e5 1/m; a 100-mass chain as 10 segments of 10, seed 1. Segments
//! integrate with the BDF at the seed's tolerances (rtol 1e-6, atol 1e-9 m and 1e-6 m/s)
//! and its finite-difference Jacobian (2n evaluations for 2n states is cheap at this
//! size). Segments built by the scenario's `chain` generator set `banded = 1`: the
//! analytic Jacobian of the `jacobian` module factorised in its band (docs/methods.md §16), and
//! `draw = 1`: memberships per mass, so a segment of a 10^6-mass chain draws in O(n).

mod cut;
pub mod data;
mod jacobian;
mod segment;
#[cfg(test)]
mod tests;

pub use cut::{Cut, CUT_ID};
pub use segment::{Segment, SEGMENT_ID};

pub(super) use cut::ENTRY as CUT_ENTRY;
pub(super) use segment::ENTRY as SEGMENT_ENTRY;

/// `c Δx + d Δv + C Δx³ + D Δv³` (eqns 37, 38).
pub fn spring_damper(k: [f64; 4], dx: f64, dv: f64) -> f64 {
    k[0] * dx + k[1] * dv + k[2] * dx * dx * dx + k[3] * dv * dv * dv
}
