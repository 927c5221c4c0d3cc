//! [`PropagationMethod`] (which master a propagation matrix models), the [`Layout`] of the
//! information vector z, and the constant coefficient tables of the model-based corrector
//! (seed-000 digest §2.6, §2.7, §3.4).

use crate::master::{Scheme, MAX_ORDER};
use core::ops::Range;

/// The co-simulation method a propagation matrix describes.
#[derive(Clone, Debug, PartialEq)]
pub struct PropagationMethod {
    /// Jacobi, or Gauss-Seidel with its module sequence (indices into the blocks).
    pub scheme: Scheme,
    /// Polynomial extrapolation order `p`, 0 (zero-order hold) to 4.
    pub order: u32,
    /// Model-based correction with this α (digest eqn 21; 1 is the common choice).
    /// Jacobi only, like the paper (digest §8 item 15).
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
/// (digest §3.4). `x` is the stacked block states in block order.
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

/// `c_p = ∫₀¹ σ(σ+1)…(σ+p) dσ / (p+1)!`: the state-correction weight of `∇^{p+1}ȳ_{n+1}`
/// (digest §2.7 "\[derived\] General order p"; the Adams–Bashforth error constants).
pub const STATE_CORRECTION_WEIGHT: [f64; MAX_ORDER + 1] = [
    1.0 / 2.0,
    5.0 / 12.0,
    3.0 / 8.0,
    251.0 / 720.0,
    95.0 / 288.0,
];

/// Binomial coefficient for the small orders used here (exact in f64).
pub(super) fn binomial(n: usize, k: usize) -> f64 {
    if k > n {
        return 0.0;
    }
    let mut c = 1.0;
    for i in 0..k {
        c = c * (n - i) as f64 / (i + 1) as f64;
    }
    c
}

/// Weights of `ȳ_{n−j}`, `j = 0..=p`, in the extrapolation polynomial's value at `T_{n+1}`:
/// `P_ext = Σ_j (−1)^j C(p+1, j+1) ȳ_{n−j}` (digest §2.6).
pub(super) fn extrapolated_end_weights(p: usize) -> [f64; MAX_ORDER + 1] {
    core::array::from_fn(|j| {
        if j <= p {
            sign(j) * binomial(p + 1, j + 1)
        } else {
            0.0
        }
    })
}

/// Weights of `ȳ_{n+1−j}`, `j = 0..=p+1`, in `∇^{p+1}ȳ_{n+1}` (digest §2.7).
pub(super) fn backward_difference_weights(p: usize) -> [f64; MAX_ORDER + 2] {
    core::array::from_fn(|j| {
        if j <= p + 1 {
            sign(j) * binomial(p + 1, j)
        } else {
            0.0
        }
    })
}

/// Coefficients `b_k` of `q(τ) = τ(τ+1)…(τ+p−1)/p! = Σ_k b_k τ^k`, the shape of the
/// difference between the true-input and the extrapolation polynomial (digest §2.6).
/// `G_p = C Σ_k b_k k! B_dk / ΔT^k + D`.
pub(super) fn true_input_shape(p: usize) -> [f64; MAX_ORDER + 1] {
    let mut b = [0.0; MAX_ORDER + 1];
    b[0] = 1.0;
    let mut fact = 1.0;
    for i in 0..p {
        // multiply by (τ + i)
        for k in (0..=i + 1).rev() {
            let shifted = if k > 0 { b[k - 1] } else { 0.0 };
            b[k] = shifted + i as f64 * b[k];
        }
        fact *= (i + 1) as f64;
    }
    b.iter_mut().for_each(|v| *v /= fact);
    b
}

fn sign(j: usize) -> f64 {
    if j & 1 == 0 {
        1.0
    } else {
        -1.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corrector_tables_match_the_digest() {
        // §2.6: P_ext rows.
        assert_eq!(extrapolated_end_weights(2)[..3], [3.0, -3.0, 1.0]);
        assert_eq!(extrapolated_end_weights(4), [5.0, -10.0, 10.0, -5.0, 1.0]);
        assert_eq!(backward_difference_weights(2)[..4], [1.0, -3.0, 3.0, -1.0]);
        // G_4 = C(B_d1/(4ΔT) + (11/12)B_d2/ΔT² + (3/2)B_d3/ΔT³ + B_d4/ΔT⁴) + D.
        let b = true_input_shape(4);
        let fact = [1.0, 1.0, 2.0, 6.0, 24.0];
        let g: [f64; 5] = core::array::from_fn(|k| b[k] * fact[k]);
        let want = [0.0, 0.25, 11.0 / 12.0, 1.5, 1.0];
        for k in 0..5 {
            assert!((g[k] - want[k]).abs() < 1e-15, "k = {k}: {}", g[k]);
        }
        assert_eq!(true_input_shape(0)[0], 1.0);
        // c_p by numerical integration of σ(σ+1)…(σ+p)/(p+1)!.
        for (p, want) in STATE_CORRECTION_WEIGHT.iter().enumerate() {
            let n = 2000;
            let f = |s: f64| (0..=p).map(|i| s + i as f64).product::<f64>();
            let mut sum = f(0.0) + f(1.0);
            for i in 1..n {
                sum += f(i as f64 / n as f64) * if i % 2 == 1 { 4.0 } else { 2.0 };
            }
            let integral = sum / (3.0 * n as f64) / (1..=p + 1).map(|i| i as f64).product::<f64>();
            assert!((integral - want).abs() < 1e-12, "p = {p}");
        }
    }
}
