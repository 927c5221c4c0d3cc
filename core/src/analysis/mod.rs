//! Analysis of coupled systems: monolithic reference solutions and error metrics.
//!
//! - [`LinearBlock`]: `(A, B, C, D, x0)` of one module, read through FMI calls.
//! - [`MonolithicReference`]: the exact coupled solution `x' = A* x, y = C* x`.
//! - [`global_nrmse`]: the accuracy metric of seed 000, eqn (33).

mod linear_block;
mod monolithic;
mod nrmse;

#[cfg(test)]
mod tests;

pub use linear_block::LinearBlock;
pub use monolithic::MonolithicReference;
pub use nrmse::global_nrmse;
