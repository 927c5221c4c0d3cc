//! The backward-difference array of the BDF and its rescaling when the step changes
//! (Shampine & Reichelt, "The MATLAB ODE Suite", SIAM J. Sci. Comput. 18(1), 1997, §2.3:
//! the quasi-constant-step form, in which a step change interpolates the history onto the
//! new equidistant grid).
//!
//! Row `j` of the array holds `∇^j y_n` scaled to the current step `h`; the predictor is
//! the sum of rows `0..=k`, and a new step `ρ·h` maps rows `0..=k` by `(R(ρ)·U)^T` where
//! `R(ρ)[i][j] = Π_{m=1..i} (m − 1 − ρ j)/m` and `U = R(1)`.

use super::MAX_ORDER;
use alloc::vec;
use alloc::vec::Vec;

/// Rows of the difference array: orders 0..=MAX_ORDER plus the two extra differences the
/// order selection reads.
pub(super) const ROWS: usize = MAX_ORDER + 3;

/// `γ_k = Σ_{j=1..k} 1/j`, the BDF coefficients of the difference form
/// (`Σ_{j=1..k} (1/j) ∇^j y_{n+1} = h f(t_{n+1}, y_{n+1})`).
pub(super) fn gamma(k: usize) -> f64 {
    (1..=k).map(|j| 1.0 / j as f64).sum()
}

/// Leading error constant of BDF order `k` in the difference form: `1/(k + 1)`.
pub(super) fn error_constant(k: usize) -> f64 {
    1.0 / (k as f64 + 1.0)
}

/// The difference array, `ROWS × n` row by row.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Differences {
    n: usize,
    rows: Vec<f64>,
    scratch: Vec<f64>,
}

impl Differences {
    pub fn new(n: usize) -> Self {
        Differences {
            n,
            rows: vec![0.0; ROWS * n],
            scratch: vec![0.0; (MAX_ORDER + 1) * n],
        }
    }

    pub fn row(&self, j: usize) -> &[f64] {
        &self.rows[j * self.n..(j + 1) * self.n]
    }

    pub fn row_mut(&mut self, j: usize) -> &mut [f64] {
        &mut self.rows[j * self.n..(j + 1) * self.n]
    }

    /// Starts order 1 at `y` with derivative `f` and step `h`.
    pub fn start(&mut self, y: &[f64], f: &[f64], h: f64) {
        self.rows.fill(0.0);
        self.row_mut(0).copy_from_slice(y);
        for (d, fi) in self.row_mut(1).iter_mut().zip(f) {
            *d = h * fi;
        }
    }

    /// Predictor `Σ_{j≤k} ∇^j y_n` into `out`.
    pub fn predict(&self, k: usize, out: &mut [f64]) {
        out.fill(0.0);
        for j in 0..=k {
            for (o, d) in out.iter_mut().zip(self.row(j)) {
                *o += d;
            }
        }
    }

    /// `ψ = Σ_{j=1..k} γ_j ∇^j y_n / γ_k`, the known part of the corrector equation.
    pub fn psi(&self, k: usize, out: &mut [f64]) {
        out.fill(0.0);
        let gk = gamma(k);
        for j in 1..=k {
            let w = gamma(j) / gk;
            for (o, d) in out.iter_mut().zip(self.row(j)) {
                *o += w * d;
            }
        }
    }

    /// After an accepted step with correction `d = y_{n+1} − predictor` at order `k`:
    /// `∇^{k+2} = d − ∇^{k+1}`, `∇^{k+1} = d`, then `∇^j += ∇^{j+1}` for `j = k..0`.
    pub fn accept(&mut self, k: usize, d: &[f64]) {
        for i in 0..self.n {
            let old = self.rows[(k + 1) * self.n + i];
            self.rows[(k + 2) * self.n + i] = d[i] - old;
            self.rows[(k + 1) * self.n + i] = d[i];
        }
        for j in (0..=k).rev() {
            for i in 0..self.n {
                let next = self.rows[(j + 1) * self.n + i];
                self.rows[j * self.n + i] += next;
            }
        }
    }

    /// Rescales rows `0..=k` from step `h` to step `factor·h`.
    pub fn rescale(&mut self, k: usize, factor: f64) {
        let r = interpolation_matrix(k, factor);
        let u = interpolation_matrix(k, 1.0);
        // RU = R·U; new row i = Σ_j RU[j][i] · old row j.
        let mut ru = [[0.0; MAX_ORDER + 1]; MAX_ORDER + 1];
        for i in 0..=k {
            for j in 0..=k {
                ru[i][j] = (0..=k).map(|m| r[i][m] * u[m][j]).sum();
            }
        }
        let n = self.n;
        self.scratch[..(k + 1) * n].copy_from_slice(&self.rows[..(k + 1) * n]);
        for i in 0..=k {
            for c in 0..n {
                self.rows[i * n + c] = (0..=k).map(|j| ru[j][i] * self.scratch[j * n + c]).sum();
            }
        }
    }
}

/// `R(ρ)` of order `k`: `R[0][j] = 1`, `R[i][j] = Π_{m=1..i} (m − 1 − ρ j)/m`.
fn interpolation_matrix(k: usize, rho: f64) -> [[f64; MAX_ORDER + 1]; MAX_ORDER + 1] {
    let mut r = [[0.0; MAX_ORDER + 1]; MAX_ORDER + 1];
    for j in 0..=k {
        r[0][j] = 1.0;
        for i in 1..=k {
            let m = i as f64;
            r[i][j] = r[i - 1][j] * (m - 1.0 - rho * j as f64) / m;
        }
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Differences of a cubic sampled on a grid of step h, rescaled to step h/2, equal the
    /// differences sampled on the finer grid (the interpolation is exact for degree ≤ k).
    #[test]
    fn rescaling_is_exact_for_polynomials_of_the_order() {
        let p = |t: f64| 1.0 + 2.0 * t - 3.0 * t * t + 0.5 * t * t * t;
        let k = 3;
        let differences = |h: f64| {
            // ∇^j y_n at t_n = 1 from samples y(1 − i h), i = 0..=k.
            let mut v: Vec<f64> = (0..=k).map(|i| p(1.0 - i as f64 * h)).collect();
            let mut out = vec![v[0]];
            for _ in 1..=k {
                for i in 0..v.len() - 1 {
                    v[i] -= v[i + 1];
                }
                v.pop();
                out.push(v[0]);
            }
            out
        };
        let mut d = Differences::new(1);
        for (j, v) in differences(0.1).iter().enumerate() {
            d.row_mut(j)[0] = *v;
        }
        d.rescale(k, 0.5);
        for (j, v) in differences(0.05).iter().enumerate() {
            assert!(
                (d.row(j)[0] - v).abs() < 1e-13,
                "row {j}: {} vs {v}",
                d.row(j)[0]
            );
        }
    }

    #[test]
    fn coefficients() {
        assert_eq!(gamma(1), 1.0);
        assert!((gamma(3) - 11.0 / 6.0).abs() < 1e-15);
        assert_eq!(error_constant(2), 1.0 / 3.0);
    }
}
