//! One communication step of a rotational slave, by either of its two integrators, with
//! what the step leaves behind for the master: the new state, the midpoint output sample
//! and the state-derivative samples at the step end (docs/methods.md §15,
//! rotational two-mass example).
//!
//! The input over the step is the Taylor polynomial `ũ(t + s) = Σ_k u^(k) s^k / k!`
//! anchored at the step start (`coeffs` column `k` = `u^(k)`).

use crate::solvers::{discretize, Discretization, TaylorInput};
use nalgebra::{DMatrix, DVector};

/// Which integrator the slave uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// Exact integration against the input polynomial (augmented matrix exponential),
    /// to `t + h/2` for the midpoint sample and on to `t + h`.
    Exact,
    /// One forward-Euler step of size `h` with the slope `f(x_k, ũ(t_k))`; the midpoint
    /// sample is read off the same line.
    Euler,
}

/// What one step produced.
#[derive(Clone, Debug, PartialEq)]
pub struct StepResult {
    /// State at `t + h`.
    pub x_end: DVector<f64>,
    /// State at `t + h/2` (on the Euler line for `Euler`).
    pub x_mid: DVector<f64>,
    /// `x′(t + h)` and `x″(t + h)` as the slave reports them (Euler: the slope of the step
    /// taken and 0; exact: the model's derivatives under the shifted input).
    pub x_derivatives: [DVector<f64>; 2],
    /// Input coefficients at `t + h/2` (the polynomial shifted; column `k` = `ũ^(k)`).
    pub u_mid: DMatrix<f64>,
    /// Input coefficients at `t + h`.
    pub u_end: DMatrix<f64>,
}

/// `x′ = A x + B u` for one state and input value.
pub fn slope(a: &DMatrix<f64>, b: &DMatrix<f64>, x: &DVector<f64>, u: &[f64]) -> DVector<f64> {
    let mut dx = a * x;
    for (j, uj) in u.iter().enumerate() {
        dx.axpy(*uj, &b.column(j), 1.0);
    }
    dx
}

/// The input polynomial's coefficients shifted from its anchor by `s`:
/// column `j` = `ũ^(j)(t + s)`.
pub fn shifted(u: &TaylorInput, s: f64) -> DMatrix<f64> {
    let (m, cols) = (u.len(), u.order() + 1);
    let mut out = DMatrix::zeros(m, cols);
    let mut col = alloc::vec![0.0; m];
    for j in 0..cols {
        u.eval_derivative_into(j, s, &mut col);
        out.column_mut(j).copy_from_slice(&col);
    }
    out
}

/// `x′` and `x″` from the model: `x^(i) = A x^(i−1) + B u^(i−1)` with input coefficients
/// `u` (column `i` = `u^(i)`).
pub fn model_derivatives(
    a: &DMatrix<f64>,
    b: &DMatrix<f64>,
    x: &DVector<f64>,
    u: &DMatrix<f64>,
) -> [DVector<f64>; 2] {
    let d1 = slope(a, b, x, u.column(0).as_slice());
    let d2 = slope(a, b, &d1, u.column(1).as_slice());
    [d1, d2]
}

/// One Euler step of size `h` (digest of seed 003, eqns (45)–(46)): `k_f = f(x_k, ũ(t_k))`
/// with only the input value at the step start, `x_mid = x_k + h/2 k_f`,
/// `x_{k+1} = x_k + h k_f`; `x′(t_{k+1}) := k_f`, `x″ := 0`.
pub fn euler(
    a: &DMatrix<f64>,
    b: &DMatrix<f64>,
    x: &DVector<f64>,
    u: &TaylorInput,
    h: f64,
) -> StepResult {
    let k_f = slope(a, b, x, u.coeffs().column(0).as_slice());
    let x_mid = x + &k_f * (h / 2.0);
    let x_end = x + &k_f * h;
    let zero = DVector::zeros(x.len());
    StepResult {
        x_end,
        x_mid,
        x_derivatives: [k_f, zero],
        u_mid: shifted(u, h / 2.0),
        u_end: shifted(u, h),
    }
}

/// `x(t + δ) = A_d x + Σ_k Γ_k u^(k)` for the discretisation over `δ`.
fn advance(disc: &Discretization, x: &DVector<f64>, u: &DMatrix<f64>) -> DVector<f64> {
    let mut next = &disc.ad * x;
    for (k, g) in disc.gamma.iter().enumerate().take(u.ncols()) {
        next.gemv(1.0, g, &u.column(k), 1.0);
    }
    next
}

/// The discretisation over `h/2` for input orders up to `order`, or `None` if the
/// exponential fails.
pub fn half_step(
    a: &DMatrix<f64>,
    b: &DMatrix<f64>,
    h: f64,
    order: usize,
) -> Option<Discretization> {
    discretize(a, b, h / 2.0, order)
}

/// One exact step: to `t + h/2` against the input polynomial, then on to `t + h` against
/// the same polynomial shifted to the midpoint (both halves exact, so the step is);
/// `x^(i)(t + h) = A x^(i−1) + B ũ^(i−1)(t + h)`. `half` is [`half_step`] for this `h`.
pub fn exact(
    a: &DMatrix<f64>,
    b: &DMatrix<f64>,
    half: &Discretization,
    x: &DVector<f64>,
    u: &TaylorInput,
    h: f64,
) -> StepResult {
    let x_mid = advance(half, x, u.coeffs());
    let u_mid = shifted(u, h / 2.0);
    let x_end = advance(half, &x_mid, &u_mid);
    let u_end = shifted(u, h);
    StepResult {
        x_derivatives: model_derivatives(a, b, &x_end, &u_end),
        x_end,
        x_mid,
        u_mid,
        u_end,
    }
}
