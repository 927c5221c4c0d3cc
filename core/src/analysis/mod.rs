//! Analysis of coupled systems: monolithic reference solutions, propagation matrices,
//! stability and error metrics.
//!
//! - [`LinearBlock`]: `(A, B, C, D, x0)` of one module, read through FMI calls.
//! - [`MonolithicReference`]: the exact coupled solution `x' = A* x, y = C* x`.
//! - [`reference`](mod@reference): monolithic references sampled as a run advances, exact or integrated
//!   from the modules' exposed equations.
//! - [`global_nrmse`]: the accuracy metric of seed 000, eqn (33).
//! - [`propagation`]: `z_{n+1} = Φ z_n` for a co-simulation method (docs/methods.md §9).
//! - [`spectrum`]: eigenvalues and `ρ(Φ)` with the stability tolerance.
//! - [`accuracy`]: local and global NRMSE over a horizon with exact start-up (eqns 31–33).
//! - [`sweep`]: maps, sweeps and stability crossings over any scenario parameter.
//! - [`convergence`]: local error against the macro-step with fitted slopes (Fig. 8).

pub mod accuracy;
pub mod convergence;
pub mod defect_study;
mod linear_block;
mod monolithic;
mod nrmse;
pub mod propagation;
pub mod reference;
mod spectral;
pub mod sweep;

#[cfg(test)]
mod convergence_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod time_domain_tests;

pub use linear_block::{block_diag, LinearBlock};
pub use monolithic::MonolithicReference;
pub use nrmse::global_nrmse;
pub use propagation::{reference_matrix, Layout, PropagationMatrix, PropagationMethod};
pub use reference::{CustomReference, Reference, ReferenceError};
pub use spectral::{spectral_radius, spectrum, Spectrum, STABILITY_TOLERANCE};
