//! [`DerivativeNorms`]: everything order control needs from the coupling history at `T_M`,
//! in one pass and without allocating: the WRMS norms `D(j) = ‖u[T_M, …, T_{M−j}]‖` of the
//! divided differences, from which follow the scaled derivative norms
//! `SDN(j) = ‖H_N^j P^{j,(j)}‖ = H_N^j j! D(j)` (seed 002, Sect. 5.2.2) and the norm of the a priori
//! estimate (31), `‖ε̃‖ = |Π_{l=0}^{k}(T_{M+1} − T_{M−l})|·D(k+1)` (docs/methods.md §14.8).
//!
//! Pinned choice (the seed leaves the SDN norm open): the WRMS norm with the coupling
//! variables' weights `W_i = atol_u,i + rtol_u·|u_{M,i}|` at the newest point, the same
//! norm as the a priori estimate's, so (31) and SDN compare like with like.

use super::history::Samples;
use super::lagrange::{divided_differences, MAX_POINTS};
use super::norms::{scaled, GroupTolerance};
use super::settings::HISTORY_CAPACITY;

/// Divided-difference norms of the newest points of a coupling history (a small `Copy`
/// value: an algorithm can hand it to a step controller as it is).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DerivativeNorms {
    /// Points used (`≤ HISTORY_CAPACITY`).
    len: usize,
    /// `T_M, T_{M−1}, …`.
    times: [f64; HISTORY_CAPACITY],
    /// `D(j)`, `j < len`.
    norms: [f64; HISTORY_CAPACITY],
}

impl DerivativeNorms {
    /// The norms over the newest `min(samples.len(), HISTORY_CAPACITY)` points, weighted
    /// with `tol` at the newest point.
    pub fn of<S: Samples + ?Sized>(samples: &S, tol: &GroupTolerance) -> Self {
        let len = samples.len().min(HISTORY_CAPACITY);
        let mut out = DerivativeNorms {
            len,
            times: [0.0; HISTORY_CAPACITY],
            norms: [0.0; HISTORY_CAPACITY],
        };
        if len == 0 {
            return out;
        }
        for (j, t) in out.times.iter_mut().enumerate().take(len) {
            *t = samples.time(j);
        }
        let newest = samples.value(0);
        let n = newest.len();
        let mut d = [0.0; MAX_POINTS];
        for (i, &u_m) in newest.iter().enumerate() {
            divided_differences(samples, i, len - 1, &mut d);
            let w = tol.weight(i, u_m);
            for (sum, dj) in out.norms.iter_mut().zip(&d).take(len) {
                let r = scaled(*dj, w);
                *sum += r * r;
            }
        }
        if n > 0 {
            for s in out.norms.iter_mut().take(len) {
                *s = libm::sqrt(*s / n as f64);
            }
        }
        out
    }

    /// Points the norms were computed on.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True for an empty history.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Time `T_{M−j}` of point `j`.
    pub fn time(&self, j: usize) -> f64 {
        self.times[j]
    }

    /// `D(j) = ‖u[T_M, …, T_{M−j}]‖_WRMS`, if `j + 1` points are there.
    pub fn divided_difference(&self, j: usize) -> Option<f64> {
        (j < self.len).then(|| self.norms[j])
    }

    /// `SDN(j) = ‖h^j P^{j,(j)}‖ = h^j j! D(j)` with `h = H_N`, if `j + 1` points are there.
    pub fn sdn(&self, j: usize, h: f64) -> Option<f64> {
        let factorial: f64 = (1..=j).map(|m| m as f64).product();
        self.divided_difference(j)
            .map(|d| libm::pow(h, j as f64) * factorial * d)
    }

    /// `‖ε̃‖_WRMS` of the a priori estimate (31) for degree `k` at `t_next = T_{M+1}`, if
    /// the `k + 2` points it needs are there.
    pub fn a_priori_norm(&self, k: usize, t_next: f64) -> Option<f64> {
        let d = self.divided_difference(k + 1)?;
        let nodes: f64 = self.times[..=k].iter().map(|t| t_next - t).product();
        Some(nodes.abs() * d)
    }
}
