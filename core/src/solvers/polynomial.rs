//! Polynomial inputs over one step: Taylor coefficients `u^(k)` at the step start,
//! `u(t0 + s) = Σ_k u^(k) s^k / k!` for `s ∈ [0, h]` (docs/methods.md §2.4, paper eqn (12)).

use nalgebra::DMatrix;

/// Taylor coefficients of an `m`-vector input up to order `p`: column `k` holds `u^(k)`.
#[derive(Clone, Debug, PartialEq)]
pub struct TaylorInput {
    coeffs: DMatrix<f64>,
}

impl TaylorInput {
    /// All-zero coefficients for `m` inputs up to order `p`.
    pub fn zeros(m: usize, p: usize) -> Self {
        TaylorInput {
            coeffs: DMatrix::zeros(m, p + 1),
        }
    }

    /// Number of inputs.
    pub fn len(&self) -> usize {
        self.coeffs.nrows()
    }

    /// True when there are no inputs.
    pub fn is_empty(&self) -> bool {
        self.coeffs.nrows() == 0
    }

    /// Highest stored order `p`.
    pub fn order(&self) -> usize {
        self.coeffs.ncols() - 1
    }

    /// Coefficient matrix (m × (p+1)), column `k` = `u^(k)`.
    pub fn coeffs(&self) -> &DMatrix<f64> {
        &self.coeffs
    }

    /// `u^(k)_i`.
    pub fn get(&self, i: usize, k: usize) -> f64 {
        self.coeffs[(i, k)]
    }

    /// Set `u^(k)_i` (caller checks bounds).
    pub fn set(&mut self, i: usize, k: usize, value: f64) {
        self.coeffs[(i, k)] = value;
    }

    /// Overwrite all coefficients from a matrix of the same shape; false if it differs.
    pub fn assign(&mut self, coeffs: &DMatrix<f64>) -> bool {
        if coeffs.shape() != self.coeffs.shape() {
            return false;
        }
        self.coeffs.copy_from(coeffs);
        true
    }

    /// `u(t0 + s)` written into `out` (length m), by Horner's scheme in `s`.
    pub fn eval_into(&self, s: f64, out: &mut [f64]) {
        for (i, o) in out.iter_mut().enumerate().take(self.len()) {
            *o = self.horner(i, 0, s);
        }
    }

    /// `d^j u / ds^j (t0 + s)` into `out`: the same polynomial shifted by `j` orders.
    pub fn eval_derivative_into(&self, j: usize, s: f64, out: &mut [f64]) {
        let p = self.order();
        for (i, o) in out.iter_mut().enumerate().take(self.len()) {
            *o = if j > p { 0.0 } else { self.horner(i, j, s) };
        }
    }

    /// `d^j u_i / ds^j (t0 + s)` for `j ≤ p`: `acc ← u^(k) + acc·s/(k + 1 − j)` from the
    /// top order down. A zero product is not divided: the quotient would be that same
    /// zero, so only the division is saved (derivatives are mostly zero).
    #[inline]
    fn horner(&self, i: usize, j: usize, s: f64) -> f64 {
        let (m, p) = (self.len(), self.order());
        let c = self.coeffs.as_slice();
        let mut acc = c[p * m + i];
        for k in (j..p).rev() {
            let scaled = acc * s;
            let term = if scaled == 0.0 {
                scaled
            } else {
                scaled / (k + 1 - j) as f64
            };
            acc = c[k * m + i] + term;
        }
        acc
    }

    /// FMI 2 semantics after a completed step of length `h`: the value becomes `u(t0 + h)`
    /// and every derivative is reset to zero (derivatives hold for one step only).
    pub fn advance(&mut self, h: f64) {
        let m = self.len();
        for i in 0..m {
            let end = self.horner(i, 0, h);
            self.coeffs.as_mut_slice()[i] = end;
        }
        self.coeffs.as_mut_slice()[m..].fill(0.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evaluates_taylor_polynomial_and_its_derivatives() {
        // u(s) = 1 + 2 s + 3 s²/2 + 4 s³/6 + 5 s⁴/24
        let mut u = TaylorInput::zeros(1, 4);
        for k in 0..=4 {
            u.set(0, k, (k + 1) as f64);
        }
        let s = 0.37;
        let exact =
            1.0 + 2.0 * s + 1.5 * s * s + 4.0 / 6.0 * s * s * s + 5.0 / 24.0 * s * s * s * s;
        let mut out = [0.0];
        u.eval_into(s, &mut out);
        assert!(libm::fabs(out[0] - exact) < 1e-15);
        u.eval_derivative_into(1, s, &mut out);
        let d1 = 2.0 + 3.0 * s + 2.0 * s * s + 5.0 / 6.0 * s * s * s;
        assert!(libm::fabs(out[0] - d1) < 1e-15);
        u.eval_derivative_into(5, s, &mut out);
        assert_eq!(out[0], 0.0);
    }

    #[test]
    fn advance_keeps_end_value_and_clears_derivatives() {
        let mut u = TaylorInput::zeros(2, 2);
        u.set(0, 0, 1.0);
        u.set(0, 1, 2.0);
        u.set(1, 2, 2.0);
        u.advance(0.5);
        assert_eq!(u.get(0, 0), 2.0);
        assert_eq!(u.get(1, 0), 0.25);
        assert_eq!(u.get(0, 1), 0.0);
        assert_eq!(u.get(1, 2), 0.0);
    }
}
