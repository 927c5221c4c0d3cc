//! Lagrange polynomials of the coupling variables on a non-uniform grid, in Newton form
//! (docs/methods.md §14.5): `P^j` through the newest `j + 1` points of a [`Samples`]
//! view, evaluated anywhere (extrapolation when the view is the history, the corrector's
//! and ExMilne's interpolation when [`super::WithNewest`] puts `(T_{N+1}, u*)` in front),
//! divided differences, the leading derivative `P^{j,(j)} = j!·u[T_M, …, T_{M−j}]`, the a
//! priori estimate of paper eqn (31), and Lagrange basis values.
//!
//! Newton form rather than the predictor's `TaylorWeights`: those stop at degree 4 and give
//! derivatives at one anchor, while order control needs divided differences up to degree
//! `k_max + 2 = 7`.

use super::history::Samples;
use super::settings::HISTORY_CAPACITY;

/// Most points a polynomial here passes through: the history plus one new point.
pub const MAX_POINTS: usize = HISTORY_CAPACITY + 1;

/// Divided differences `out[j] = u_i[T_0, …, T_j]`, `j = 0..=m`, of component `i` over the
/// newest `m + 1` points (`m < MAX_POINTS`, `m < samples.len()`).
#[inline]
pub fn divided_differences<S: Samples + ?Sized>(
    samples: &S,
    i: usize,
    m: usize,
    out: &mut [f64; MAX_POINTS],
) {
    debug_assert!(m < MAX_POINTS && m < samples.len());
    for (j, d) in out.iter_mut().enumerate().take(m + 1) {
        *d = samples.value(j)[i];
    }
    // In place, column by column: after level l, out[j] = u[T_{j−l}, …, T_j] for j ≥ l.
    for l in 1..=m {
        for j in (l..=m).rev() {
            out[j] = (out[j] - out[j - 1]) / (samples.time(j) - samples.time(j - l));
        }
    }
}

/// `P^j(t)` in Newton form from the divided differences `d[0..=j]` and the nodes
/// `node(l)` (Horner).
#[inline]
pub(super) fn newton_value(node: impl Fn(usize) -> f64, d: &[f64], j: usize, t: f64) -> f64 {
    let mut p = d[j];
    for l in (0..j).rev() {
        p = p * (t - node(l)) + d[l];
    }
    p
}

/// `out[m] = d^m P^j/dt^m (anchor)`, `m = 0..=j` (zero above), from the Newton form.
pub(super) fn newton_derivatives(
    node: impl Fn(usize) -> f64,
    d: &[f64],
    j: usize,
    anchor: f64,
    out: &mut [f64; MAX_POINTS],
) {
    // Re-expanded in s = t − anchor: c ← c·(s + anchor − T_l) + d[l].
    let mut c = [0.0; MAX_POINTS];
    c[0] = d[j];
    for l in (0..j).rev() {
        let b = anchor - node(l);
        for m in (1..=j - l).rev() {
            c[m] = c[m - 1] + b * c[m];
        }
        c[0] = b * c[0] + d[l];
    }
    let mut factorial = 1.0;
    for (m, o) in out.iter_mut().enumerate() {
        if m > 0 {
            factorial *= m as f64;
        }
        *o = if m <= j { factorial * c[m] } else { 0.0 };
    }
}

/// `out = P^j(t)`: the polynomial of degree `j` through the newest `j + 1` points,
/// evaluated at `t` (every component; `out.len()` = components).
pub fn evaluate<S: Samples + ?Sized>(samples: &S, j: usize, t: f64, out: &mut [f64]) {
    let mut d = [0.0; MAX_POINTS];
    for (i, o) in out.iter_mut().enumerate() {
        divided_differences(samples, i, j, &mut d);
        *o = newton_value(|l| samples.time(l), &d, j, t);
    }
}

/// `out[m] = d^m P^j/dt^m (anchor)`, `m = 0..=j`, of component `i`: the Taylor data of the
/// polynomial at the step start that modules receive as input derivatives (zero above `j`).
pub fn derivatives_at<S: Samples + ?Sized>(
    samples: &S,
    j: usize,
    anchor: f64,
    i: usize,
    out: &mut [f64; MAX_POINTS],
) {
    let mut d = [0.0; MAX_POINTS];
    divided_differences(samples, i, j, &mut d);
    newton_derivatives(|l| samples.time(l), &d, j, anchor, out);
}

/// `out = P^{j,(j)} = j!·u[T_0, …, T_j]`, the constant `j`-th derivative of `P^j`.
pub fn leading_derivative<S: Samples + ?Sized>(samples: &S, j: usize, out: &mut [f64]) {
    let mut d = [0.0; MAX_POINTS];
    let factorial: f64 = (1..=j).map(|m| m as f64).product();
    for (i, o) in out.iter_mut().enumerate() {
        divided_differences(samples, i, j, &mut d);
        *o = factorial * d[j];
    }
}

/// `Π_{l=0}^{k} (t − T_l)`: the factor of the a priori estimate (31), the product
/// `Π_{j=1}^{k+1}(T_{M+1} − T_{M+1−j})` with `t = T_{M+1}`.
#[inline]
pub fn node_product<S: Samples + ?Sized>(samples: &S, k: usize, t: f64) -> f64 {
    (0..=k).map(|l| t - samples.time(l)).product()
}

/// The a priori estimate of paper eqn (31) for degree `k` at `t = T_{M+1}`, in closed form:
/// `out = P^{k+1}(t) − P^k(t) = Π_{j=1}^{k+1}(t − T_{M+1−j})·P^{k+1,(k+1)}/(k+1)!`
/// `= Π_{l=0}^{k}(t − T_l)·u[T_0, …, T_{k+1}]`. Needs `k + 2` points.
pub fn a_priori_estimate<S: Samples + ?Sized>(samples: &S, k: usize, t: f64, out: &mut [f64]) {
    let mut d = [0.0; MAX_POINTS];
    let nodes = node_product(samples, k, t);
    for (i, o) in out.iter_mut().enumerate() {
        divided_differences(samples, i, k + 1, &mut d);
        *o = nodes * d[k + 1];
    }
}

/// Lagrange basis values `out[j] = ℓ_j(t)` of the polynomial through `times` (`ℓ_j` is 1 at
/// `times[j]`, 0 at the others; `out.len() = times.len()`), e.g. the sensitivity
/// `∂p*(t)/∂u*_{N+1} = ℓ_0(t)` of the corrector's interpolation to its new point.
pub fn lagrange_basis(times: &[f64], t: f64, out: &mut [f64]) {
    for (j, o) in out.iter_mut().enumerate() {
        *o = times
            .iter()
            .enumerate()
            .filter(|&(l, _)| l != j)
            .map(|(_, &tl)| (t - tl) / (times[j] - tl))
            .product();
    }
}
