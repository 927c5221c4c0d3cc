//! Eigenvalues of a real square matrix without eigenvectors: Householder reduction to
//! upper Hessenberg form, then the Francis double-shift QR iteration restricted to the
//! active window (Golub & Van Loan, "Matrix Computations", 4th ed., Algorithms 7.4.2 and
//! 7.5.1–7.5.2; deflation test and exceptional shifts as in EISPACK `hqr`).
//!
//! nalgebra's `Schur` always accumulates the Schur vectors and updates the whole matrix,
//! and its eigenvalue-only entry point iterates without a limit; a stability map needs
//! only the eigenvalues, tens of thousands of times, with a bounded iteration count.

use alloc::vec;
use alloc::vec::Vec;
use nalgebra::{Complex, DMatrix};

/// QR sweeps allowed per eigenvalue before giving up (EISPACK's limit).
const SWEEPS_PER_EIGENVALUE: usize = 30;

/// √x: std's `f64::sqrt` (one instruction, `f64.sqrt` in wasm) where std is linked, else
/// libm's. On wasm32 libm computes it in software (its instruction path needs nightly), 12 %
/// of a stability-map point in the page. Both round correctly, so the bits are the same.
#[inline]
fn sqrt(x: f64) -> f64 {
    #[cfg(feature = "std")]
    return x.sqrt();
    #[cfg(not(feature = "std"))]
    return libm::sqrt(x);
}

/// All eigenvalues of `m` (complex pairs both listed), unordered. `None` if `m` is not
/// square, holds a non-finite entry or the iteration does not converge.
pub fn eigenvalues(m: &DMatrix<f64>) -> Option<Vec<Complex<f64>>> {
    let n = m.nrows();
    if m.ncols() != n || m.iter().any(|v| !v.is_finite()) {
        return None;
    }
    let mut h = Hessenberg::reduce(m);
    h.eigenvalues()
}

/// A square matrix stored row by row (the QR sweeps work along rows and short columns).
struct Hessenberg {
    n: usize,
    a: Vec<f64>,
}

impl Hessenberg {
    fn at(&self, i: usize, j: usize) -> f64 {
        self.a[i * self.n + j]
    }

    fn at_mut(&mut self, i: usize, j: usize) -> &mut f64 {
        &mut self.a[i * self.n + j]
    }

    /// `Q^T m Q` upper Hessenberg, by one Householder reflection per column.
    fn reduce(m: &DMatrix<f64>) -> Self {
        let n = m.nrows();
        let mut h = Hessenberg {
            n,
            a: (0..n * n).map(|k| m[(k / n, k % n)]).collect(),
        };
        let mut buf = vec![0.0; n];
        for k in 0..n.saturating_sub(2) {
            // Reflect x = h[k+1.., k] onto alpha e_1.
            let v = &mut buf[..n - k - 1];
            let scale: f64 = (k + 1..n).map(|i| libm::fabs(h.at(i, k))).sum();
            if scale == 0.0 {
                continue;
            }
            for (i, vi) in v.iter_mut().enumerate() {
                *vi = h.at(k + 1 + i, k) / scale;
            }
            let norm2: f64 = v.iter().map(|x| x * x).sum();
            let alpha = -libm::copysign(sqrt(norm2), v[0]);
            v[0] -= alpha;
            let vtv = norm2 - 2.0 * alpha * (v[0] + alpha) + alpha * alpha;
            if vtv == 0.0 {
                continue;
            }
            let beta = 2.0 / vtv;
            // Left: rows k+1.., columns k...
            for j in k..n {
                let s = beta
                    * v.iter()
                        .enumerate()
                        .map(|(i, vi)| vi * h.at(k + 1 + i, j))
                        .sum::<f64>();
                for (i, vi) in v.iter().enumerate() {
                    *h.at_mut(k + 1 + i, j) -= s * vi;
                }
            }
            // Right: all rows, columns k+1...
            for row in h.a.chunks_exact_mut(n) {
                let seg = &mut row[k + 1..];
                let s = beta * seg.iter().zip(v.iter()).map(|(a, vi)| a * vi).sum::<f64>();
                for (a, vi) in seg.iter_mut().zip(v.iter()) {
                    *a -= s * vi;
                }
            }
            *h.at_mut(k + 1, k) = alpha * scale;
            for i in k + 2..n {
                *h.at_mut(i, k) = 0.0;
            }
        }
        h
    }

    /// Francis double-shift QR on the Hessenberg matrix, deflating 1×1 and 2×2 blocks
    /// from the bottom. The matrix is overwritten.
    fn eigenvalues(&mut self) -> Option<Vec<Complex<f64>>> {
        let n = self.n;
        let mut out = Vec::with_capacity(n);
        // Deflation falls back to the whole matrix's size when both diagonal entries are 0.
        let norm: f64 = self.a.iter().map(|v| libm::fabs(*v)).sum();
        let mut budget = SWEEPS_PER_EIGENVALUE * n.max(1);
        // Active window rows/columns lo..=hi; `shift` accumulates exceptional shifts.
        let mut hi = n;
        let mut shift = 0.0;
        let mut sweeps_here = 0;
        while hi > 0 {
            let last = hi - 1;
            let lo = self.split_point(last, norm);
            if lo == last {
                out.push(Complex::new(self.at(last, last) + shift, 0.0));
                hi -= 1;
                sweeps_here = 0;
                continue;
            }
            if lo + 1 == last {
                let (l1, l2) = self.block_eigenvalues(last);
                out.push(l1 + shift);
                out.push(l2 + shift);
                hi -= 2;
                sweeps_here = 0;
                continue;
            }
            if budget == 0 {
                return None;
            }
            budget -= 1;
            sweeps_here += 1;
            let (trace, det) = if sweeps_here == 10 || sweeps_here == 20 {
                // Exceptional shift: breaks cycles such as permutation matrices.
                let x = self.at(last, last);
                shift += x;
                for i in 0..=last {
                    *self.at_mut(i, i) -= x;
                }
                let s =
                    libm::fabs(self.at(last, last - 1)) + libm::fabs(self.at(last - 1, last - 2));
                // EISPACK's pair: diagonal 0.75 s, off-diagonal product −0.4375 s².
                (1.5 * s, s * s)
            } else {
                // Eigenvalues of the trailing 2×2 block as the shift pair.
                let (a, b) = (self.at(last - 1, last - 1), self.at(last - 1, last));
                let (c, d) = (self.at(last, last - 1), self.at(last, last));
                (a + d, a * d - b * c)
            };
            self.double_shift_sweep(lo, last, trace, det);
        }
        Some(out)
    }

    /// Lowest row `l ≤ last` such that the subdiagonal entry `(l, l−1)` is negligible
    /// (set to zero); `0` if none is.
    fn split_point(&mut self, last: usize, norm: f64) -> usize {
        let mut l = last;
        while l > 0 {
            let mut s = libm::fabs(self.at(l - 1, l - 1)) + libm::fabs(self.at(l, l));
            if s == 0.0 {
                s = norm;
            }
            if libm::fabs(self.at(l, l - 1)) + s == s {
                *self.at_mut(l, l - 1) = 0.0;
                return l;
            }
            l -= 1;
        }
        0
    }

    /// Eigenvalues of the 2×2 block ending at row `last`, without cancellation.
    fn block_eigenvalues(&self, last: usize) -> (Complex<f64>, Complex<f64>) {
        let (a, b) = (self.at(last - 1, last - 1), self.at(last - 1, last));
        let (c, d) = (self.at(last, last - 1), self.at(last, last));
        let p = 0.5 * (a - d);
        let q = p * p + b * c;
        let mean = d + p;
        if q >= 0.0 {
            let z = p + libm::copysign(sqrt(q), p);
            let l1 = d + z;
            // The other root from the product (det = l1·l2), avoiding cancellation.
            let l2 = if z != 0.0 { d - b * c / z } else { l1 };
            (Complex::new(l1, 0.0), Complex::new(l2, 0.0))
        } else {
            let im = sqrt(-q);
            (Complex::new(mean, im), Complex::new(mean, -im))
        }
    }

    /// One implicit double-shift QR sweep on rows/columns `lo..=last` with shifts whose
    /// sum is `trace` and product `det` (GVL Alg. 7.5.1), chasing the bulge with 3×3
    /// reflections.
    fn double_shift_sweep(&mut self, lo: usize, last: usize, trace: f64, det: f64) {
        // First column of (H − s1)(H − s2), from the top of the window.
        let (h00, h01) = (self.at(lo, lo), self.at(lo, lo + 1));
        let (h10, h11) = (self.at(lo + 1, lo), self.at(lo + 1, lo + 1));
        let h21 = self.at(lo + 2, lo + 1);
        let mut x = h00 * h00 + h01 * h10 - trace * h00 + det;
        let mut y = h10 * (h00 + h11 - trace);
        let mut z = h10 * h21;
        for k in lo..last - 1 {
            if let Some((v, beta)) = reflector3(x, y, z) {
                let first_col = if k > lo { k - 1 } else { lo };
                let n = self.n;
                // Left: rows k..k+2, columns first_col..=last.
                let (r0, rest) = self.a[k * n..(k + 3) * n].split_at_mut(n);
                let (r1, r2) = rest.split_at_mut(n);
                let cols = first_col..last + 1;
                for ((a0, a1), a2) in r0[cols.clone()]
                    .iter_mut()
                    .zip(&mut r1[cols.clone()])
                    .zip(&mut r2[cols])
                {
                    let s = beta * (v[0] * *a0 + v[1] * *a1 + v[2] * *a2);
                    *a0 -= s * v[0];
                    *a1 -= s * v[1];
                    *a2 -= s * v[2];
                }
                // Right: rows lo..=min(k+3, last), columns k..k+2.
                let rows_end = (k + 3).min(last) + 1;
                for row in self.a[lo * n..rows_end * n].chunks_exact_mut(n) {
                    let c = &mut row[k..k + 3];
                    let s = beta * (c[0] * v[0] + c[1] * v[1] + c[2] * v[2]);
                    c[0] -= s * v[0];
                    c[1] -= s * v[1];
                    c[2] -= s * v[2];
                }
            }
            x = self.at(k + 1, k);
            y = self.at(k + 2, k);
            if k + 3 <= last {
                z = self.at(k + 3, k);
            }
        }
        // Final 2×2 reflection on rows last−1, last.
        let k = last - 1;
        if let Some((v, beta)) = reflector2(x, y) {
            let n = self.n;
            let (r0, r1) = self.a[k * n..(k + 2) * n].split_at_mut(n);
            for (a0, a1) in r0[k - 1..=last].iter_mut().zip(&mut r1[k - 1..=last]) {
                let s = beta * (v[0] * *a0 + v[1] * *a1);
                *a0 -= s * v[0];
                *a1 -= s * v[1];
            }
            for row in self.a[lo * n..(last + 1) * n].chunks_exact_mut(n) {
                let c = &mut row[k..k + 2];
                let s = beta * (c[0] * v[0] + c[1] * v[1]);
                c[0] -= s * v[0];
                c[1] -= s * v[1];
            }
        }
        // The chase leaves rounding-level fill below the subdiagonal of the window.
        for i in lo + 2..=last {
            *self.at_mut(i, i - 2) = 0.0;
            if i >= lo + 3 {
                *self.at_mut(i, i - 3) = 0.0;
            }
        }
    }
}

/// Householder vector `v` and `β = 2 / vᵀv` with `(I − β v vᵀ)(x, y, z)ᵀ = (α, 0, 0)ᵀ`;
/// `None` if the vector is zero.
fn reflector3(x: f64, y: f64, z: f64) -> Option<([f64; 3], f64)> {
    let scale = libm::fabs(x) + libm::fabs(y) + libm::fabs(z);
    if scale == 0.0 {
        return None;
    }
    let (x, y, z) = (x / scale, y / scale, z / scale);
    let alpha = -libm::copysign(sqrt(x * x + y * y + z * z), x);
    let v = [x - alpha, y, z];
    let vtv = v[0] * v[0] + y * y + z * z;
    (vtv > 0.0).then(|| (v, 2.0 / vtv))
}

/// [`reflector3`] for two entries.
fn reflector2(x: f64, y: f64) -> Option<([f64; 2], f64)> {
    let scale = libm::fabs(x) + libm::fabs(y);
    if scale == 0.0 {
        return None;
    }
    let (x, y) = (x / scale, y / scale);
    let alpha = -libm::copysign(sqrt(x * x + y * y), x);
    let v = [x - alpha, y];
    let vtv = v[0] * v[0] + y * y;
    (vtv > 0.0).then(|| (v, 2.0 / vtv))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dist(a: Complex<f64>, b: Complex<f64>) -> f64 {
        libm::hypot(a.re - b.re, a.im - b.im)
    }

    /// Every eigenvalue in `want` is matched by a distinct one in `got` within `tol`.
    fn same_set(got: &[Complex<f64>], want: &[Complex<f64>], tol: f64) -> bool {
        let mut used = vec![false; got.len()];
        got.len() == want.len()
            && want.iter().all(|w| {
                let best = (0..got.len())
                    .filter(|&i| !used[i])
                    .min_by(|&i, &j| dist(got[i], *w).total_cmp(&dist(got[j], *w)));
                match best {
                    Some(i) if dist(got[i], *w) <= tol => {
                        used[i] = true;
                        true
                    }
                    _ => false,
                }
            })
    }

    fn real(v: &[f64]) -> Vec<Complex<f64>> {
        v.iter().map(|&x| Complex::new(x, 0.0)).collect()
    }

    fn complex(v: &[(f64, f64)]) -> Vec<Complex<f64>> {
        v.iter().map(|&(re, im)| Complex::new(re, im)).collect()
    }

    /// The eigenvalues of `m` are `want` within `tol`, in any order.
    fn assert_eigenvalues(m: &DMatrix<f64>, want: &[Complex<f64>], tol: f64) {
        let got = eigenvalues(m).expect("converges");
        assert!(same_set(&got, want, tol), "{got:?} vs {want:?}");
    }

    #[test]
    fn companion_matrix_gives_the_polynomial_roots() {
        // (λ−1)(λ−2)(λ−3)(λ−4)(λ−5) = λ⁵ − 15λ⁴ + 85λ³ − 225λ² + 274λ − 120.
        let c = [-120.0, 274.0, -225.0, 85.0, -15.0];
        let m = DMatrix::from_fn(5, 5, |i, j| {
            if i == 4 {
                -c[j]
            } else if j == i + 1 {
                1.0
            } else {
                0.0
            }
        });
        assert_eigenvalues(&m, &real(&[1.0, 2.0, 3.0, 4.0, 5.0]), 1e-9);
    }

    #[test]
    fn rotation_blocks_give_complex_pairs() {
        let (c, s) = (libm::cos(0.3), libm::sin(0.3));
        let rows = [
            [0.9 * c, -0.9 * s, 1.0, 2.0],
            [0.9 * s, 0.9 * c, 3.0, 4.0],
            [0.0, 0.0, 0.0, -2.0],
            [0.0, 0.0, 2.0, 0.0],
        ];
        let m = DMatrix::from_fn(4, 4, |i, j| rows[i][j]);
        let want = complex(&[
            (0.9 * c, 0.9 * s),
            (0.9 * c, -0.9 * s),
            (0.0, 2.0),
            (0.0, -2.0),
        ]);
        assert_eigenvalues(&m, &want, 1e-13);
    }

    #[test]
    fn cyclic_permutation_needs_the_exceptional_shift() {
        // Plain Francis shifts stall on this matrix; its eigenvalues are the 4th roots of 1.
        let m = DMatrix::from_fn(4, 4, |i, j| if i == (j + 1) % 4 { 1.0 } else { 0.0 });
        let want = complex(&[(1.0, 0.0), (-1.0, 0.0), (0.0, 1.0), (0.0, -1.0)]);
        assert_eigenvalues(&m, &want, 1e-12);
    }

    #[test]
    fn agrees_with_nalgebra_schur_on_pseudo_random_matrices() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        };
        for n in 1..=13 {
            for _ in 0..20 {
                let m = DMatrix::from_fn(n, n, |_, _| next());
                let want: Vec<Complex<f64>> = nalgebra::Schur::new(m.clone())
                    .complex_eigenvalues()
                    .iter()
                    .copied()
                    .collect();
                assert_eigenvalues(&m, &want, 1e-10 * m.norm());
            }
        }
    }

    #[test]
    fn degenerate_inputs() {
        assert_eq!(eigenvalues(&DMatrix::zeros(0, 0)), Some(Vec::new()));
        assert_eq!(
            eigenvalues(&DMatrix::from_element(1, 1, -1.5)),
            Some(real(&[-1.5]))
        );
        assert_eigenvalues(&DMatrix::zeros(5, 5), &real(&[0.0; 5]), 0.0);
        // Already triangular: the diagonal.
        let t = DMatrix::from_fn(
            6,
            6,
            |i, j| if j >= i { (i + 2 * j + 1) as f64 } else { 0.0 },
        );
        let diag: Vec<f64> = (0..6).map(|i| t[(i, i)]).collect();
        assert_eigenvalues(&t, &real(&diag), 1e-12);
        assert!(eigenvalues(&DMatrix::from_row_slice(2, 2, &[1.0, f64::NAN, 0.0, 1.0])).is_none());
        assert!(eigenvalues(&DMatrix::zeros(2, 3)).is_none());
    }
}
