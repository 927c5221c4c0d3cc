//! [`StepMatrix`]: the exact step of a linear module, `x_{n+1} = A_d x_n + Σ_k Γ_k u^(k)`
//! (docs/methods.md §3.1, paper eqn (38)), with `[A_d | Γ_0 | … | Γ_p]` laid out once per
//! step size in one column-major buffer, so a step is one pass over its columns.
//!
//! The products are added in the order of the nalgebra `gemv` calls this replaces (`A_d x`
//! column by column, then each `Γ_k u^(k)` column by column), so the bits are the same.

use super::{Discretization, TaylorInput};
use alloc::vec::Vec;

/// `[A_d | Γ_0 | … | Γ_p]` of one [`Discretization`].
#[derive(Clone, Debug, Default)]
pub struct StepMatrix {
    /// Rows (states).
    n: usize,
    /// The columns, each `n` long: `A_d`'s, then `Γ_0`'s, ..., `Γ_p`'s.
    columns: Vec<f64>,
    /// Columns of all the `Γ_k` together.
    gamma_columns: usize,
    /// Every `Γ_k` is finite: a zero input derivative then adds only signed zeros.
    gammas_finite: bool,
}

impl StepMatrix {
    /// The columns of `d`.
    pub fn of(d: &Discretization) -> Self {
        let mut columns = d.ad.as_slice().to_vec();
        for g in &d.gamma {
            columns.extend_from_slice(g.as_slice());
        }
        StepMatrix {
            n: d.ad.nrows(),
            gamma_columns: d.gamma.iter().map(|g| g.ncols()).sum(),
            columns,
            gammas_finite: d.gamma.iter().all(|g| g.iter().all(|v| v.is_finite())),
        }
    }

    /// `out = A_d x + Σ_k Γ_k u^(k)` (`x` and `out` of length `n`; `u` with the orders of
    /// the discretisation). The orders above [`TaylorInput::degree`] are left out unless
    /// a component of the sum is zero (or a `Γ_k` is not finite): their products are
    /// signed zeros, which leave a non-zero sum unchanged (a zero sum could change sign).
    // `a * z + sum`, not `+=`: gemv's operand order (which NaN a sum keeps depends on it).
    #[allow(clippy::assign_op_pattern)]
    pub fn propagate(&self, x: &[f64], u: &TaylorInput, out: &mut [f64]) {
        let n = self.n;
        if n == 0 {
            return;
        }
        let (out, x) = (&mut out[..n], &x[..n]);
        let us = u.coeffs().as_slice();
        let (ad, gammas) = self.columns.split_at(n * n);
        let factors = us.len().min(self.gamma_columns);
        let used = (u.len() * (u.degree() + 1)).min(factors);
        // Row by row, each sum kept in a register: every component gets the same products
        // in the same column order as column-by-column gemv, so the same bits.
        for (r, o) in out.iter_mut().enumerate() {
            // The first column as gemv with beta = 0, then every column added.
            let mut sum = ad[r] * x[0];
            for (j, &z) in x.iter().enumerate().skip(1) {
                sum = ad[j * n + r] * z + sum;
            }
            for (k, &z) in us[..used].iter().enumerate() {
                sum = gammas[k * n + r] * z + sum;
            }
            *o = sum;
        }
        if self.gammas_finite && out.iter().all(|&o| o != 0.0) {
            return;
        }
        for (r, o) in out.iter_mut().enumerate() {
            for (k, &z) in us.iter().enumerate().take(factors).skip(used) {
                *o = gammas[k * n + r] * z + *o;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solvers::discretize;
    use nalgebra::{DMatrix, DVector};

    /// The `gemv` calls [`StepMatrix::propagate`] replaces.
    fn by_gemv(d: &Discretization, x: &[f64], u: &TaylorInput) -> Vec<f64> {
        let mut out = DVector::zeros(x.len());
        out.gemv(1.0, &d.ad, &DVector::from_column_slice(x), 0.0);
        for (k, g) in d.gamma.iter().enumerate() {
            out.gemv(1.0, g, &u.coeffs().column(k), 1.0);
        }
        out.as_slice().to_vec()
    }

    #[test]
    fn propagation_has_the_bits_of_gemv_also_for_zero_derivatives_and_signed_zeros() {
        let a = DMatrix::from_row_slice(2, 2, &[0.0, 1.0, -4.0, -0.3]);
        let b = DMatrix::from_row_slice(2, 2, &[0.0, 0.0, 2.0, -0.5]);
        let d = discretize(&a, &b, 0.01, 4).expect("discretisation");
        let mut not_finite = d.clone();
        not_finite.gamma[3][(1, 0)] = f64::INFINITY;
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        // A state at rest gives signed zeros that a skipped +0 product would flip.
        for x in [[0.3, -1.2], [0.0, 0.0], [-0.0, -0.0], [0.0, 2.0]] {
            for (u0, u1, u2) in [
                (0.5, 0.0, 0.0),
                (0.0, 0.0, 0.0),
                (-0.0, -0.0, 0.0),
                (1.0, -2.0, 3.0),
            ] {
                let mut u = TaylorInput::zeros(2, 4);
                for (i, k, v) in [(0, 0, u0), (1, 0, -u0), (0, 1, u1), (1, 2, u2)] {
                    u.set(i, k, v);
                }
                for d in [&d, &not_finite] {
                    let mut out = [f64::NAN; 2];
                    StepMatrix::of(d).propagate(&x, &u, &mut out);
                    let want = by_gemv(d, &x, &u);
                    assert_eq!(bits(&out), bits(&want), "x = {x:?}, u = {u:?}");
                }
            }
        }
    }
}
