//! [`BandMatrix`]: a square matrix with `kl` sub- and `ku` super-diagonals, and its LU
//! factorisation with partial pivoting ([`BandMatrix::factorise`], [`BandLu::solve`]), in
//! the storage and elimination order of LINPACK's `dgbfa`/`dgbsl` (Dongarra et al.,
//! LINPACK Users' Guide, 1979, ch. 2): row interchanges widen the upper band to `kl + ku`,
//! so each row keeps `2·kl + ku + 1` entries. Work `O(n·kl·(kl + ku))`, memory
//! `O(n·(2kl + ku))`, against `O(n³)` and `O(n²)` dense: what lets a stiff chain segment of
//! hundreds of masses factorise its Newton matrix in microseconds.

use alloc::vec;
use alloc::vec::Vec;

/// A banded `n × n` matrix; entry `(i, j)` exists for `−kl ≤ j − i ≤ ku` (plus `kl` more
/// super-diagonals of room for the fill-in of pivoting).
#[derive(Clone, Debug, PartialEq)]
pub struct BandMatrix {
    n: usize,
    kl: usize,
    ku: usize,
    /// Row `i` holds columns `i − kl ..= i + kl + ku` at offsets `0 ..= 2kl + ku`.
    data: Vec<f64>,
}

/// The LU factors of a [`BandMatrix`]: multipliers below the diagonal, `U` on and above,
/// and the row chosen as pivot at each elimination step.
#[derive(Clone, Debug, PartialEq)]
pub struct BandLu {
    a: BandMatrix,
    pivots: Vec<usize>,
}

impl BandMatrix {
    /// The zero matrix of size `n` with `kl` sub- and `ku` super-diagonals.
    pub fn zeros(n: usize, kl: usize, ku: usize) -> Self {
        BandMatrix {
            n,
            kl,
            ku,
            data: vec![0.0; n * (2 * kl + ku + 1)],
        }
    }

    /// Size `n`.
    pub fn size(&self) -> usize {
        self.n
    }

    /// `(kl, ku)`.
    pub fn bandwidths(&self) -> (usize, usize) {
        (self.kl, self.ku)
    }

    fn width(&self) -> usize {
        2 * self.kl + self.ku + 1
    }

    /// Whether `(i, j)` lies in the stored band.
    pub fn in_band(&self, i: usize, j: usize) -> bool {
        i < self.n && j < self.n && j + self.kl >= i && j <= i + self.kl + self.ku
    }

    fn at(&self, i: usize, j: usize) -> usize {
        i * self.width() + (j + self.kl - i)
    }

    /// Entry `(i, j)`; 0 outside the band.
    pub fn get(&self, i: usize, j: usize) -> f64 {
        if self.in_band(i, j) {
            self.data[self.at(i, j)]
        } else {
            0.0
        }
    }

    /// Sets `(i, j)`, which must lie in the band (`−kl ≤ j − i ≤ ku`).
    pub fn set(&mut self, i: usize, j: usize, v: f64) {
        debug_assert!(
            j + self.kl >= i && j <= i + self.ku,
            "({i}, {j}) outside the band"
        );
        let k = self.at(i, j);
        self.data[k] = v;
    }

    /// Adds `v` to `(i, j)` (in the band).
    pub fn add(&mut self, i: usize, j: usize, v: f64) {
        debug_assert!(
            j + self.kl >= i && j <= i + self.ku,
            "({i}, {j}) outside the band"
        );
        let k = self.at(i, j);
        self.data[k] += v;
    }

    /// Sets every entry to 0.
    pub fn clear(&mut self) {
        self.data.fill(0.0);
    }

    /// `I − c·self` (same band).
    pub fn identity_minus(&self, c: f64) -> BandMatrix {
        let mut m = self.clone();
        for v in &mut m.data {
            *v *= -c;
        }
        for i in 0..m.n {
            let k = m.at(i, i);
            m.data[k] += 1.0;
        }
        m
    }

    /// LU with partial pivoting; `None` if a pivot is exactly 0 (singular).
    pub fn factorise(mut self) -> Option<BandLu> {
        let (n, kl, ku) = (self.n, self.kl, self.ku);
        let mut pivots = vec![0; n];
        for k in 0..n {
            let last_row = (k + kl).min(n - 1);
            let last_col = (k + kl + ku).min(n - 1);
            let mut p = k;
            for i in k + 1..=last_row {
                if libm::fabs(self.get(i, k)) > libm::fabs(self.get(p, k)) {
                    p = i;
                }
            }
            pivots[k] = p;
            if p != k {
                for j in k..=last_col {
                    let (a, b) = (self.at(k, j), self.at(p, j));
                    self.data.swap(a, b);
                }
            }
            let pivot = self.get(k, k);
            if pivot == 0.0 {
                return None;
            }
            for i in k + 1..=last_row {
                let l = self.get(i, k) / pivot;
                let ik = self.at(i, k);
                self.data[ik] = l;
                if l != 0.0 {
                    for j in k + 1..=last_col {
                        let (ij, kj) = (self.at(i, j), self.at(k, j));
                        self.data[ij] -= l * self.data[kj];
                    }
                }
            }
        }
        Some(BandLu { a: self, pivots })
    }
}

impl BandLu {
    /// Solves `A x = b` in place (`b` becomes `x`).
    pub fn solve(&self, b: &mut [f64]) {
        let a = &self.a;
        let (n, kl, ku) = (a.n, a.kl, a.ku);
        for k in 0..n {
            b.swap(k, self.pivots[k]);
            let bk = b[k];
            for (i, bi) in b
                .iter_mut()
                .enumerate()
                .take((k + kl).min(n - 1) + 1)
                .skip(k + 1)
            {
                *bi -= a.get(i, k) * bk;
            }
        }
        for k in (0..n).rev() {
            let mut s = b[k];
            for (j, bj) in b
                .iter()
                .enumerate()
                .take((k + kl + ku).min(n - 1) + 1)
                .skip(k + 1)
            {
                s -= a.get(k, j) * bj;
            }
            b[k] = s / a.get(k, k);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{DMatrix, DVector};

    /// A banded matrix with entries from a fixed formula: every third diagonal entry small,
    /// so that pivoting happens, the others dominant, so that the matrix stays well
    /// conditioned (a triangular band with only tiny diagonals is singular in f64).
    fn sample(n: usize, kl: usize, ku: usize) -> BandMatrix {
        let mut m = BandMatrix::zeros(n, kl, ku);
        for i in 0..n {
            for j in i.saturating_sub(kl)..=(i + ku).min(n - 1) {
                let v = libm::sin(1.0 + 3.0 * i as f64 + 7.0 * j as f64);
                let diagonal = if i % 3 == 0 { 0.2 * v } else { 2.0 + v };
                m.set(i, j, if i == j { diagonal } else { v });
            }
        }
        m
    }

    #[test]
    fn banded_lu_solves_as_dense_lu_does() {
        for (n, kl, ku) in [
            (1, 0, 0),
            (7, 1, 1),
            (30, 3, 2),
            (41, 2, 5),
            (16, 0, 3),
            (16, 4, 0),
        ] {
            let m = sample(n, kl, ku);
            let dense = DMatrix::from_fn(n, n, |i, j| m.get(i, j));
            let b: Vec<f64> = (0..n).map(|i| libm::cos(i as f64)).collect();
            let mut x = b.clone();
            m.clone().factorise().expect("regular").solve(&mut x);
            let expected = dense
                .clone()
                .lu()
                .solve(&DVector::from_column_slice(&b))
                .expect("regular");
            let scale = expected.amax().max(1.0);
            for i in 0..n {
                assert!(
                    libm::fabs(x[i] - expected[i]) < 1e-10 * scale,
                    "n {n} kl {kl} ku {ku} i {i}: {} vs {}",
                    x[i],
                    expected[i]
                );
            }
            // And the residual of the banded solution is at rounding level.
            let r = &dense * DVector::from_column_slice(&x) - DVector::from_column_slice(&b);
            assert!(r.amax() < 1e-10 * scale, "residual {}", r.amax());
        }
    }

    #[test]
    fn a_singular_band_is_refused() {
        let mut m = BandMatrix::zeros(3, 1, 1);
        m.set(0, 0, 1.0);
        m.set(1, 0, 1.0);
        m.set(0, 1, 1.0);
        m.set(1, 1, 1.0);
        m.set(2, 2, 1.0);
        assert!(m.factorise().is_none());
        assert!(!BandMatrix::zeros(4, 1, 2).in_band(3, 0));
    }

    #[test]
    fn identity_minus_scales_and_shifts() {
        let m = sample(5, 1, 1);
        let s = m.identity_minus(2.0);
        assert_eq!(s.get(2, 2), 1.0 - 2.0 * m.get(2, 2));
        assert_eq!(s.get(2, 1), -2.0 * m.get(2, 1));
        assert_eq!(s.get(4, 0), 0.0);
    }
}
