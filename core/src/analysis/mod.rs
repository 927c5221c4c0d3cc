//! Analysis of coupled systems: monolithic reference solutions, propagation matrices,
//! stability and error metrics.
//!
//! - [`LinearBlock`]: `(A, B, C, D, x0)` of one module, read through FMI calls.
//! - [`MonolithicReference`]: the exact coupled solution `x' = A* x, y = C* x`.
//! - [`global_nrmse`]: the accuracy metric of seed 000, eqn (33).
//! - [`propagation`]: `z_{n+1} = Φ z_n` for a co-simulation method (seed 000 §3).
//! - [`spectrum`]: eigenvalues and `ρ(Φ)` with the stability tolerance.

mod linear_block;
mod monolithic;
mod nrmse;
pub mod propagation;
mod spectral;

#[cfg(test)]
mod tests;

pub use linear_block::LinearBlock;
pub use monolithic::MonolithicReference;
pub use nrmse::global_nrmse;
pub use propagation::{reference_matrix, Layout, PropagationMatrix, PropagationMethod};
pub use spectral::{spectral_radius, spectrum, Spectrum, STABILITY_TOLERANCE};
