//! Propagation matrices of explicit co-simulation of linear blocks (docs/methods.md §9):
//! the method ([`PropagationMethod`]), the information-vector [`Layout`], Φ
//! ([`PropagationMatrix`]) and the reference `Φ*` ([`reference_matrix`]).

mod matrix;
mod method;
mod step;

#[cfg(test)]
mod tests;

pub use matrix::{reference_matrix, PropagationMatrix};
pub use method::{Layout, PropagationMethod};
