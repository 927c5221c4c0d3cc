//! Polynomial extrapolation and interpolation of coupling signals as data: the polynomial
//! through the last `q + 1` samples at possibly non-uniform times, expressed as weights that
//! give its Taylor coefficients (derivatives) at an anchor time.
//!
//! On a uniform grid with the anchor at the newest sample these weights are the Newton
//! backward-difference rows of docs/methods.md §4.2: `ΔT^k ũ^(k) = Σ_j W_kj y_{n−j}`
//! ([`Extrapolation::uniform_rows`]). Non-uniform times are what variable-step masters need.

/// Highest extrapolation order supported (seed 000 goes up to the 4th-order hold).
pub const MAX_ORDER: usize = 4;

const N: usize = MAX_ORDER + 1;

use super::OutputHistory;

/// Polynomial extrapolation of order `p` (0 = zero-order hold, ..., 4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Extrapolation {
    order: usize,
}

/// Weights `w[k][j]`: the `k`-th derivative at the anchor of the polynomial through the
/// samples `(t_j, y_j)`, `j = 0..=q`, is `Σ_j w[k][j] y_j / d_k`. Derivatives above `q` are
/// zero. The divisors `d_k` are 1 for weights built from sample times; the uniform-grid
/// rows keep `ΔT^k` apart ([`TaylorWeights::uniform`]), as the corrector's tables do.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TaylorWeights {
    degree: usize,
    w: [[f64; N]; N],
    /// `None`: every divisor is 1 (weights from sample times), so none is applied.
    divisor: Option<[f64; N]>,
}

impl Extrapolation {
    /// Order `p` in `0..=4`; `None` above [`MAX_ORDER`].
    pub fn new(order: u32) -> Option<Self> {
        let order = order as usize;
        (order <= MAX_ORDER).then_some(Extrapolation { order })
    }

    /// The order `p`.
    pub fn order(&self) -> usize {
        self.order
    }

    /// Samples a polynomial of this order uses.
    pub fn samples(&self) -> usize {
        self.order + 1
    }

    /// The order actually usable with `available` samples: `min(p, available − 1)`
    /// (the ramp-up start of docs/methods.md §4.4).
    pub fn effective_order(&self, available: usize) -> usize {
        self.order.min(available.saturating_sub(1))
    }

    /// Weights at `anchor` for the polynomial through samples at `times` (any order of
    /// times, degree `times.len() − 1`). `None` if there are no samples, more than
    /// [`MAX_ORDER`]` + 1`, a non-finite time, or two equal times.
    pub fn weights(times: &[f64], anchor: f64) -> Option<TaylorWeights> {
        TaylorWeights::through(times, anchor)
    }

    /// docs/methods.md §4.2 table: row `k` holds `ΔT^k`-scaled weights of `ũ^(k)` on
    /// `y_n, y_{n−1}, …, y_{n−p}` for a uniform grid anchored at `t_n` (row 0 is `[1, 0, …]`).
    pub fn uniform_rows(&self) -> [[f64; N]; N] {
        let times: [f64; N] = core::array::from_fn(|j| -(j as f64));
        // Infallible for p ≤ MAX_ORDER: distinct, finite times.
        TaylorWeights::through(&times[..=self.order], 0.0)
            .map(|w| w.w)
            .unwrap_or([[0.0; N]; N])
    }

    /// The weights at `anchor` of the polynomial through the newest `q + 1` samples of
    /// `history`, `q` = [`Self::effective_order`]; `None` if sample times coincide.
    pub fn through_history(&self, history: &OutputHistory, anchor: f64) -> Option<TaylorWeights> {
        let mut times = [0.0; N];
        let q = self.effective_order(history.len());
        for (j, tj) in times.iter_mut().enumerate().take(q + 1) {
            *tj = history.time(j);
        }
        TaylorWeights::through(&times[..=q], anchor)
    }
}

impl TaylorWeights {
    /// Zero-order hold: the value of the single sample, all derivatives zero.
    pub fn hold() -> Self {
        let mut w = [[0.0; N]; N];
        w[0][0] = 1.0;
        TaylorWeights {
            degree: 0,
            w,
            divisor: None,
        }
    }

    /// The order-`q` polynomial through samples at `t_n − jΔT`, `j = 0..=q`, anchored at
    /// `t_n`: the uniform rows of [`Extrapolation::uniform_rows`] with divisors `ΔT^k`.
    pub fn uniform(q: usize, h: f64) -> Option<Self> {
        let w = Extrapolation::new(q as u32)?.uniform_rows();
        let mut divisor = [1.0; N];
        for k in 1..N {
            divisor[k] = divisor[k - 1] * h;
        }
        Some(TaylorWeights {
            degree: q,
            w,
            divisor: Some(divisor),
        })
    }

    /// See [`Extrapolation::weights`].
    pub fn through(times: &[f64], anchor: f64) -> Option<Self> {
        let mut w = Self::hold();
        w.assign_through(times, anchor).then_some(w)
    }

    /// [`Self::through`] written into `self`, without moving the table (a master does this
    /// at every step); false, and `self` unchanged, where that is `None`.
    pub fn assign_through(&mut self, times: &[f64], anchor: f64) -> bool {
        let Some(q) = times.len().checked_sub(1) else {
            return false;
        };
        if q > MAX_ORDER || !anchor.is_finite() || times.iter().any(|t| !t.is_finite()) {
            return false;
        }
        // `t_j − t_i` is zero exactly when the (finite) times are equal.
        let repeated = |j: usize| times[..j].contains(&times[j]);
        if (1..=q).any(repeated) {
            return false;
        }
        if q == 0 {
            // What the loop below gives for one sample (zero-order hold, explicit order 0).
            *self = Self::hold();
            return true;
        }
        let w = &mut self.w;
        *w = [[0.0; N]; N];
        for j in 0..=q {
            // Lagrange basis ℓ_j(anchor + s) = Π_{i≠j} (s + anchor − t_i)/(t_j − t_i) as a
            // polynomial in s; its s^k coefficient times k! is ℓ_j^(k)(anchor).
            let mut c = [0.0; N];
            c[0] = 1.0;
            let mut deg = 0;
            for (i, &ti) in times.iter().enumerate() {
                if i == j {
                    continue;
                }
                let d = times[j] - ti;
                let a = anchor - ti;
                deg += 1;
                for k in (0..=deg).rev() {
                    let shifted = if k > 0 { c[k - 1] } else { 0.0 };
                    c[k] = (shifted + a * c[k]) / d;
                }
            }
            let mut fact = 1.0;
            for (k, ck) in c.iter().enumerate().take(q + 1) {
                if k > 0 {
                    fact *= k as f64;
                }
                w[k][j] = ck * fact;
            }
        }
        self.degree = q;
        self.divisor = None;
        true
    }

    /// Degree `q` of the polynomial (number of samples − 1).
    pub fn degree(&self) -> usize {
        self.degree
    }

    /// Weight of sample `j` in the `k`-th derivative (0 for `k > q` or `j > q`).
    pub fn weight(&self, k: usize, j: usize) -> f64 {
        if k < N && j < N {
            self.w[k][j]
        } else {
            0.0
        }
    }

    /// `k`-th derivative at the anchor, with `sample(j)` the value at `times[j]`.
    pub fn derivative(&self, k: usize, sample: impl Fn(usize) -> f64) -> f64 {
        if k > self.degree {
            return 0.0;
        }
        let sum: f64 = (0..=self.degree).map(|j| self.w[k][j] * sample(j)).sum();
        match &self.divisor {
            Some(d) => sum / d[k],
            None => sum,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// docs/methods.md §4.2, rows k = 1..=p for p = 1..=4 (exact fractions).
    fn table(p: usize) -> [[f64; N]; N] {
        let mut t = [[0.0; N]; N];
        t[0][0] = 1.0;
        let rows: &[&[f64]] = match p {
            1 => &[&[1.0, -1.0]],
            2 => &[&[1.5, -2.0, 0.5], &[1.0, -2.0, 1.0]],
            3 => &[
                &[11.0 / 6.0, -3.0, 1.5, -1.0 / 3.0],
                &[2.0, -5.0, 4.0, -1.0],
                &[1.0, -3.0, 3.0, -1.0],
            ],
            4 => &[
                &[25.0 / 12.0, -4.0, 3.0, -4.0 / 3.0, 0.25],
                &[
                    35.0 / 12.0,
                    -26.0 / 3.0,
                    19.0 / 2.0,
                    -14.0 / 3.0,
                    11.0 / 12.0,
                ],
                &[2.5, -9.0, 12.0, -7.0, 1.5],
                &[1.0, -4.0, 6.0, -4.0, 1.0],
            ],
            _ => &[],
        };
        for (k, row) in rows.iter().enumerate() {
            t[k + 1][..row.len()].copy_from_slice(row);
        }
        t
    }

    #[test]
    fn uniform_weights_are_the_documented_table_rows() {
        for p in 0..=4 {
            let rows = Extrapolation::new(p as u32).unwrap().uniform_rows();
            let expected = table(p);
            for k in 0..N {
                for j in 0..N {
                    assert!(
                        (rows[k][j] - expected[k][j]).abs() < 1e-13,
                        "p={p} k={k} j={j}: {} vs {}",
                        rows[k][j],
                        expected[k][j]
                    );
                }
            }
        }
    }

    #[test]
    #[allow(clippy::needless_range_loop)]
    fn scaled_uniform_grid_gives_table_over_h_pow_k() {
        let h = 1e-5;
        let t0 = 3.0;
        let times: [f64; 5] = core::array::from_fn(|j| t0 - j as f64 * h);
        let w = Extrapolation::weights(&times, t0).unwrap();
        let rows = table(4);
        for k in 0..=4 {
            for j in 0..=4 {
                let scaled = w.weight(k, j) * libm::pow(h, k as f64);
                // Times like 3 − 4e-5 carry rounding of ~1e-16/1e-5 relative to h.
                assert!(
                    (scaled - rows[k][j]).abs() < 1e-8 * (1.0 + rows[k][j].abs()),
                    "k={k} j={j}"
                );
            }
        }
    }

    #[test]
    fn polynomials_up_to_degree_q_are_reproduced_on_non_uniform_grids() {
        let all_times = [0.3, 0.1, -0.25, -0.4, -1.05];
        let anchor = 0.17;
        // p(t) = Σ a_m t^m; derivatives at the anchor computed directly.
        let coeffs = [0.7, -1.3, 2.1, 0.45, -0.8];
        for q in 0..=4 {
            let times = &all_times[..=q];
            let w = Extrapolation::weights(times, anchor).unwrap();
            assert_eq!(w.degree(), q);
            for deg in 0..=q {
                let a = &coeffs[..=deg];
                let value = |t: f64| a.iter().rev().fold(0.0, |acc, c| acc * t + c);
                for k in 0..=4 {
                    let exact: f64 = (k..=deg)
                        .map(|m| {
                            let falling: f64 = (0..k).map(|i| (m - i) as f64).product();
                            a[m] * falling * libm::pow(anchor, (m - k) as f64)
                        })
                        .sum();
                    let got = w.derivative(k, |j| value(times[j]));
                    assert!(
                        (got - exact).abs() < 1e-11 * (1.0 + exact.abs()),
                        "q={q} deg={deg} k={k}: {got} vs {exact}"
                    );
                }
            }
        }
    }

    /// What `InputPredictor::hold_input` and the order-0 `ExplicitWork::begin` rely on:
    /// one sample gives the hold at any finite times, and the hold's value is the sample's
    /// bits (signed zeros and subnormals included).
    #[test]
    fn one_sample_is_the_hold_and_keeps_the_bits() {
        for (t, anchor) in [(0.0, 0.0), (0.3, 0.3001), (-2.0, 7.5), (1e300, -1e300)] {
            assert_eq!(
                Extrapolation::weights(&[t], anchor),
                Some(TaylorWeights::hold())
            );
        }
        let hold = TaylorWeights::hold();
        for y in [
            -0.0,
            0.0,
            1.5,
            -3e-310,
            5e-324,
            f64::MAX,
            -f64::MIN_POSITIVE,
        ] {
            assert_eq!(
                hold.derivative(0, |_| y).to_bits(),
                y.to_bits(),
                "y = {y:e}"
            );
        }
    }

    #[test]
    fn invalid_sample_sets_are_refused() {
        assert!(Extrapolation::weights(&[], 0.0).is_none());
        assert!(Extrapolation::weights(&[0.0, 0.0], 0.0).is_none());
        assert!(Extrapolation::weights(&[0.0, f64::NAN], 0.0).is_none());
        assert!(Extrapolation::weights(&[0.0; 6], 0.0).is_none());
        assert!(Extrapolation::new(5).is_none());
        assert_eq!(Extrapolation::new(3).unwrap().effective_order(2), 1);
        assert_eq!(Extrapolation::new(3).unwrap().effective_order(9), 3);
    }
}
