//! Taylor polynomials of one scalar signal over one macro-step (docs/methods.md §15.2):
//! derivative samples `d_j = p^(j)(a)` at an anchor `a`, so `p(t) = Σ_j d_j (t − a)^j / j!`.
//! Defects are differences of such polynomials; their per-step RMS is computed exactly by
//! squaring the polynomial and integrating it term by term (no quadrature).
//!
//! Times are offsets from the step start `t_k` in the master, so anchors and intervals are
//! `0` and `h`, never large absolute times minus each other.

/// Highest degree stored: output order 2 plus the one degree the Hermite estimate adds.
pub const MAX_DEGREE: usize = 3;

const N: usize = MAX_DEGREE + 1;

/// `k!` for `k ≤ 2·MAX_DEGREE`.
fn factorial(k: usize) -> f64 {
    (1..=k).map(|i| i as f64).product()
}

/// The shift formula of docs/methods.md §15.2: derivative samples `d` at `a` become the
/// samples at `a + delta`, `d'_m = Σ_{k=0}^{q−m} d_{k+m} delta^k / k!` (exact for a
/// polynomial of degree `q = d.len() − 1`). `out` has the length of `d`.
pub fn shift_derivatives(d: &[f64], delta: f64, out: &mut [f64]) {
    let q = d.len();
    for m in 0..q {
        // Horner in delta: d_m + delta (d_{m+1} + delta/2 (d_{m+2} + ...)).
        let mut acc = 0.0;
        for k in (0..q - m).rev() {
            acc = d[k + m] + acc * delta / (k + 1) as f64;
        }
        out[m] = acc;
    }
}

/// A Taylor polynomial of degree at most [`MAX_DEGREE`]: derivative samples at an anchor.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Taylor {
    /// Expansion point (an offset from the step start in the master).
    pub anchor: f64,
    /// `d[j] = p^(j)(anchor)`; entries above the degree are 0.
    d: [f64; N],
}

impl Taylor {
    /// The zero polynomial anchored at `anchor`.
    pub fn zero(anchor: f64) -> Self {
        Taylor {
            anchor,
            d: [0.0; N],
        }
    }

    /// The polynomial with derivative samples `derivatives` (value first) at `anchor`;
    /// samples beyond [`MAX_DEGREE`] are ignored.
    pub fn new(anchor: f64, derivatives: &[f64]) -> Self {
        let mut p = Self::zero(anchor);
        for (dst, &v) in p.d.iter_mut().zip(derivatives) {
            *dst = v;
        }
        p
    }

    /// The `j`-th derivative at the anchor (0 above [`MAX_DEGREE`]).
    pub fn derivative(&self, j: usize) -> f64 {
        self.d.get(j).copied().unwrap_or(0.0)
    }

    /// Sets the `j`-th derivative at the anchor (`j ≤ MAX_DEGREE`).
    pub fn set_derivative(&mut self, j: usize, value: f64) {
        self.d[j] = value;
    }

    /// `p(t)`, by Horner's scheme in `t − anchor`.
    pub fn eval(&self, t: f64) -> f64 {
        let s = t - self.anchor;
        let mut acc = 0.0;
        for j in (0..N).rev() {
            acc = self.d[j] + acc * s / (j + 1) as f64;
        }
        acc
    }

    /// The same polynomial expanded at `anchor` ([`shift_derivatives`]).
    pub fn shifted(&self, anchor: f64) -> Self {
        let mut d = [0.0; N];
        shift_derivatives(&self.d, anchor - self.anchor, &mut d);
        Taylor { anchor, d }
    }

    /// `self − other`, expanded at `self`'s anchor (`other` is shifted there first).
    pub fn minus(&self, other: &Taylor) -> Self {
        let o = other.shifted(self.anchor);
        let mut d = self.d;
        for (a, b) in d.iter_mut().zip(o.d) {
            *a -= b;
        }
        Taylor {
            anchor: self.anchor,
            d,
        }
    }

    /// `∫_{t0}^{t1} p(t)² dt`, exactly: the polynomial is re-expanded at `t0`, its power
    /// coefficients `b_j = d_j (t1 − t0)^j / j!` (in `σ = (t − t0)/(t1 − t0)`) are squared
    /// into `Σ_{i,j} b_i b_j σ^{i+j}`, and each power integrates to `1/(i + j + 1)`.
    pub fn integral_of_square(&self, t0: f64, t1: f64) -> f64 {
        let h = t1 - t0;
        let at_start = self.shifted(t0);
        let mut b = [0.0; N];
        let mut hj = 1.0;
        for (j, bj) in b.iter_mut().enumerate() {
            *bj = at_start.d[j] * hj / factorial(j);
            hj *= h;
        }
        let mut square = [0.0; 2 * N - 1];
        for i in 0..N {
            for j in 0..N {
                square[i + j] += b[i] * b[j];
            }
        }
        let integral: f64 = square
            .iter()
            .enumerate()
            .map(|(p, c)| c / (p + 1) as f64)
            .sum();
        // Rounding can leave a tiny negative value where p vanishes.
        (integral * h).max(0.0)
    }

    /// The RMS over `[t0, t1]`, `sqrt(1/(t1 − t0) ∫ p² dt)` (docs/methods.md §15.4).
    pub fn rms(&self, t0: f64, t1: f64) -> f64 {
        libm::sqrt(self.integral_of_square(t0, t1) / (t1 - t0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        libm::fabs(a - b) <= tol * (1.0 + libm::fabs(b))
    }

    /// p(t) = 2 − 3(t − 1) + 4(t − 1)²/2 + 6(t − 1)³/6 = 2 − 3s + 2s² + s³, s = t − 1.
    fn cubic() -> Taylor {
        Taylor::new(1.0, &[2.0, -3.0, 4.0, 6.0])
    }

    #[test]
    fn shift_agrees_with_direct_evaluation_of_every_derivative() {
        let p = cubic();
        let q = p.shifted(-0.7);
        // Derivatives of 2 − 3s + 2s² + s³ at s = −1.7, by hand.
        let s: f64 = -1.7;
        let direct = [
            2.0 - 3.0 * s + 2.0 * s * s + s * s * s,
            -3.0 + 4.0 * s + 3.0 * s * s,
            4.0 + 6.0 * s,
            6.0,
        ];
        for (j, want) in direct.iter().enumerate() {
            assert!(close(q.derivative(j), *want, 1e-14), "derivative {j}");
        }
        for t in [-2.0, -0.7, 0.0, 0.4, 3.0] {
            assert!(close(q.eval(t), p.eval(t), 1e-13), "value at {t}");
        }
    }

    #[test]
    fn difference_is_taken_at_the_first_anchor() {
        let a = Taylor::new(0.0, &[1.0, 2.0]); // 1 + 2t
        let b = Taylor::new(0.5, &[2.0, 2.0]); // 2 + 2(t − 0.5) = 1 + 2t
        let d = a.minus(&b);
        assert_eq!(d.anchor, 0.0);
        assert!(libm::fabs(d.derivative(0)) < 1e-15 && libm::fabs(d.derivative(1)) < 1e-15);
        let c = Taylor::new(0.5, &[1.0]); // constant 1
        let e = a.minus(&c); // 2t
        assert!(close(e.eval(0.3), 0.6, 1e-15));
    }

    #[test]
    fn exact_rms_matches_hand_computed_integrals() {
        // ∫_0^2 (3)² dt = 18.
        assert!(close(
            Taylor::new(0.0, &[3.0]).integral_of_square(0.0, 2.0),
            18.0,
            1e-15
        ));
        // p = 1 + t on [0, 1]: ∫ (1 + t)² = 7/3.
        assert!(close(
            Taylor::new(0.0, &[1.0, 1.0]).integral_of_square(0.0, 1.0),
            7.0 / 3.0,
            1e-15
        ));
        // p = t² (d2 = 2) on [1, 3]: ∫ t⁴ = (243 − 1)/5.
        assert!(close(
            Taylor::new(0.0, &[0.0, 0.0, 2.0]).integral_of_square(1.0, 3.0),
            242.0 / 5.0,
            1e-14
        ));
        // The cubic anchored at 1, on [−1, 0.5] (s from −2 to −0.5): ∫ (2 − 3s + 2s² + s³)² ds,
        // expanded by hand: s⁶ + 4s⁵ − 2s⁴ − 8s³ + 17s² − 12s + 4.
        let prim = |s: f64| {
            s.powi(7) / 7.0 + 4.0 * s.powi(6) / 6.0 - 2.0 * s.powi(5) / 5.0 - 2.0 * s.powi(4)
                + 17.0 * s.powi(3) / 3.0
                - 6.0 * s * s
                + 4.0 * s
        };
        let want = prim(-0.5) - prim(-2.0);
        assert!(close(cubic().integral_of_square(-1.0, 0.5), want, 1e-13));
        // RMS of 2t − 1 on [0, 1] is 1/√3 (a sign change inside the interval).
        assert!(close(
            Taylor::new(0.0, &[-1.0, 2.0]).rms(0.0, 1.0),
            1.0 / libm::sqrt(3.0),
            1e-15
        ));
    }

    #[test]
    fn samples_above_the_maximum_degree_are_ignored() {
        let p = Taylor::new(0.0, &[1.0, 0.0, 0.0, 0.0, 24.0]);
        assert_eq!(p.eval(2.0), 1.0);
        assert_eq!(p.derivative(MAX_DEGREE + 1), 0.0);
    }
}
