//! [`PropagationMethod`] (which master a propagation matrix models), the [`Layout`] of the
//! information vector z, and the constant coefficient tables of the model-based corrector
//! (docs/methods.md §8.3, §8.4, §9.1).

use crate::master::Scheme;
use core::ops::Range;

/// The co-simulation method a propagation matrix describes.
#[derive(Clone, Debug, PartialEq)]
pub struct PropagationMethod {
    /// Jacobi, or Gauss-Seidel with its module sequence (indices into the blocks).
    pub scheme: Scheme,
    /// Polynomial extrapolation order `p`, 0 (zero-order hold) to 4.
    pub order: u32,
    /// Model-based correction with this α (docs/methods.md §8.4, paper eqn 21; 1 is the common choice).
    /// Jacobi only, like the paper (docs/methods.md §8.6).
    pub correction: Option<f64>,
}

impl PropagationMethod {
    /// Plain Jacobi with extrapolation order `order`.
    pub fn jacobi(order: u32) -> Self {
        PropagationMethod {
            scheme: Scheme::Jacobi,
            order,
            correction: None,
        }
    }

    /// Jacobi with order `order` and model-based correction with `alpha`.
    pub fn corrected(order: u32, alpha: f64) -> Self {
        PropagationMethod {
            scheme: Scheme::Jacobi,
            order,
            correction: Some(alpha),
        }
    }
}

/// Where each part of the information vector lives.
///
/// Plain: `z = [x; y_n; y_{n−1}; …; y_{n−p}]`. Corrected: `z = [x; ȳ_n; …; ȳ_{n−p}; δu_{c,n}]`
/// (docs/methods.md §9.1). `x` is the stacked block states in block order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Stacked states.
    pub n_x: usize,
    /// Stacked outputs.
    pub n_y: usize,
    /// Stacked inputs.
    pub n_u: usize,
    /// Extrapolation order `p` (history slots `0..=p`).
    pub order: usize,
    /// Whether the δu slot is present.
    pub corrected: bool,
}

impl Layout {
    /// Length of z.
    pub fn dim(&self) -> usize {
        self.n_x + (self.order + 1) * self.n_y + if self.corrected { self.n_u } else { 0 }
    }

    /// The state block.
    pub fn x(&self) -> Range<usize> {
        0..self.n_x
    }

    /// Output history slot `j` (0: the newest, `y_n`; `p`: `y_{n−p}`).
    pub fn y(&self, j: usize) -> Range<usize> {
        let s = self.n_x + j * self.n_y;
        s..s + self.n_y
    }

    /// The δu block (corrected methods only).
    pub fn du(&self) -> Option<Range<usize>> {
        let s = self.n_x + (self.order + 1) * self.n_y;
        self.corrected.then_some(s..s + self.n_u)
    }
}
