//! Polynomial inputs over one step: Taylor coefficients `u^(k)` at the step start,
//! `u(t0 + s) = Σ_k u^(k) s^k / k!` for `s ∈ [0, h]` (docs/methods.md §2.4, paper eqn (12)).

use nalgebra::DMatrix;

/// Taylor coefficients of an `m`-vector input up to order `p`: column `k` holds `u^(k)`.
#[derive(Clone, Debug)]
pub struct TaylorInput {
    coeffs: DMatrix<f64>,
    /// Every column above this order is zero (of either sign): the derivatives a master
    /// does not set cost nothing in [`Self::advance`] and the linear step.
    degree: usize,
    /// Every derivative coefficient is `+0.0`, as [`Self::advance`] leaves them (none set
    /// since), so the next advance need not clear them again.
    derivatives_cleared: bool,
}

/// Equal coefficients (the degree bound is bookkeeping).
impl PartialEq for TaylorInput {
    fn eq(&self, other: &Self) -> bool {
        self.coeffs == other.coeffs
    }
}

impl TaylorInput {
    /// All-zero coefficients for `m` inputs up to order `p`.
    pub fn zeros(m: usize, p: usize) -> Self {
        TaylorInput {
            coeffs: DMatrix::zeros(m, p + 1),
            degree: 0,
            derivatives_cleared: true,
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

    /// An order above which every coefficient is zero (of either sign).
    pub fn degree(&self) -> usize {
        self.degree
    }

    /// Set `u^(k)_i` (caller checks bounds).
    pub fn set(&mut self, i: usize, k: usize, value: f64) {
        self.coeffs[(i, k)] = value;
        if k > 0 {
            self.derivatives_cleared = false;
        }
        if k > self.degree && value != 0.0 {
            self.degree = k;
        }
    }

    /// Overwrite all coefficients from a matrix of the same shape; false if it differs.
    pub fn assign(&mut self, coeffs: &DMatrix<f64>) -> bool {
        if coeffs.shape() != self.coeffs.shape() {
            return false;
        }
        self.coeffs.copy_from(coeffs);
        self.derivatives_cleared = false;
        let nonzero = |k: &usize| self.coeffs.column(*k).iter().any(|&v| v != 0.0);
        self.degree = (1..coeffs.ncols()).rev().find(nonzero).unwrap_or(0);
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
    /// top order down. The zero orders above [`Self::degree`] are left out when `s` is
    /// finite and the result is not zero: they only add signed zeros, which change a sum
    /// only while it is zero (its sign), so a non-zero result has the full scheme's bits.
    #[inline(always)]
    fn horner(&self, i: usize, j: usize, s: f64) -> f64 {
        let (p, top) = (self.order(), self.degree.max(j));
        let short = self.horner_from(top, i, j, s);
        if top == p || (short != 0.0 && s.is_finite()) {
            short
        } else {
            self.horner_from(p, i, j, s)
        }
    }

    /// Horner's scheme from order `top` down to `j`. A zero product is not divided: the
    /// quotient would be that same zero.
    #[inline(always)]
    fn horner_from(&self, top: usize, i: usize, j: usize, s: f64) -> f64 {
        let m = self.len();
        let c = self.coeffs.as_slice();
        let mut acc = c[top * m + i];
        for k in (j..top).rev() {
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
        if !self.derivatives_cleared {
            self.coeffs.as_mut_slice()[m..].fill(0.0);
            self.derivatives_cleared = true;
        }
        self.degree = 0;
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

    /// Horner's scheme over every order, as `advance` computed before it knew the degree.
    fn full_horner(u: &TaylorInput, i: usize, s: f64) -> f64 {
        let p = u.order();
        let mut acc = u.get(i, p);
        for k in (0..p).rev() {
            acc = u.get(i, k) + acc * s / (k + 1) as f64;
        }
        acc
    }

    #[test]
    fn leaving_out_the_zero_orders_keeps_every_bit_also_of_signed_zeros() {
        let cases: [&[(usize, f64)]; 6] = [
            &[(0, 1.5)],
            &[(0, -0.0)],
            &[(0, -0.0), (1, -0.0)],
            &[(0, 0.0), (2, -0.0)],
            &[(0, -2.0), (1, 3.0)],
            &[(0, -0.0), (3, 1e-300)],
        ];
        for coefficients in cases {
            for s in [0.25, -0.5, 0.0, f64::INFINITY] {
                let mut u = TaylorInput::zeros(1, 4);
                for &(k, v) in coefficients {
                    u.set(0, k, v);
                }
                let want = full_horner(&u, 0, s);
                let mut out = [0.0];
                u.eval_into(s, &mut out);
                assert_eq!(
                    out[0].to_bits(),
                    want.to_bits(),
                    "{coefficients:?}, s = {s}"
                );
            }
        }
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

    /// Derivatives set since the last advance are cleared by the next one, of whatever
    /// sign they were, also after a restore (`assign`); the coefficients are those of a
    /// fresh clear each time.
    #[test]
    fn advance_clears_whatever_was_set_since_the_last_one() {
        let mut u = TaylorInput::zeros(1, 2);
        u.set(0, 0, 1.0);
        u.advance(0.5);
        u.set(0, 2, -0.0);
        u.advance(0.5);
        assert_eq!(u.get(0, 2).to_bits(), 0.0f64.to_bits());
        let mut restored = DMatrix::zeros(1, 3);
        restored[(0, 1)] = -0.0;
        assert!(u.assign(&restored));
        u.advance(0.25);
        assert_eq!(u.get(0, 1).to_bits(), 0.0f64.to_bits());
        u.advance(0.25);
        assert_eq!(u.coeffs().as_slice(), &[0.0, 0.0, 0.0]);
    }
}
