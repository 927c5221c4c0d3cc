//! Exact discretisation of `x' = A x + B u(t)` over one step `h` with a polynomial input,
//! by one matrix exponential of an augmented (Van Loan) block matrix (docs/methods.md §3.1,
//! paper eqn (38), §3.2). No `A⁻¹` appears, so singular or stiff `A` is fine.
//!
//! With the input `u(t0 + s) = Σ_k u^(k) s^k / k!` the step is
//! `x(t0 + h) = A_d x(t0) + Σ_k Γ_k u^(k)` where `A_d = e^{A h}` and
//! `Γ_k = B_dk = ∫_0^h e^{A(h−s)} B s^k / k! ds`.
//!
//! In scaled time τ = s/h the input chain `w_0 = u, w_1 = u', …, w_p = u^(p)` has
//! `dw_k/dτ = h w_{k+1}`; substituting `w̃_k = h^k w_k` gives the block matrix
//! `M = [[A h, B h, 0, …], [0, 0, I, …], …, [0, …, 0]]` (one block row per input order).
//! The top block row of `e^M` is `[A_d, B_d0, B_d1 / h, …, B_dp / h^p]`.

use super::expm::expm;
use alloc::vec::Vec;
use nalgebra::DMatrix;

/// Highest input derivative order the discretisation supports (`x-maxInputDerivativeOrder`).
pub const MAX_INPUT_ORDER: usize = 4;

/// `A_d` and `Γ_k = B_dk` for one step size.
#[derive(Clone, Debug, PartialEq)]
pub struct Discretization {
    /// Step size in s.
    pub h: f64,
    /// `A_d = e^{A h}` (n × n).
    pub ad: DMatrix<f64>,
    /// `Γ_k = ∫_0^h e^{A(h−s)} B s^k / k! ds` for `k = 0..=p` (each n × m).
    pub gamma: Vec<DMatrix<f64>>,
}

/// Discretise `(A, B)` over `h > 0` for input orders `0..=p` (`p ≤ MAX_INPUT_ORDER`).
/// `None` if the shapes do not fit, `h` is not finite and positive, or the exponential fails.
pub fn discretize(a: &DMatrix<f64>, b: &DMatrix<f64>, h: f64, p: usize) -> Option<Discretization> {
    let n = a.nrows();
    let m = b.ncols();
    if a.ncols() != n || b.nrows() != n || p > MAX_INPUT_ORDER || !(h.is_finite() && h > 0.0) {
        return None;
    }
    let dim = n + m * (p + 1);
    let mut big = DMatrix::<f64>::zeros(dim, dim);
    big.view_mut((0, 0), (n, n)).copy_from(&(a * h));
    big.view_mut((0, n), (n, m)).copy_from(&(b * h));
    for k in 0..p {
        // dw̃_k/dτ = w̃_{k+1}
        let r = n + k * m;
        for i in 0..m {
            big[(r + i, r + m + i)] = 1.0;
        }
    }
    let e = expm(&big)?;
    let ad = e.view((0, 0), (n, n)).into_owned();
    let mut gamma = Vec::with_capacity(p + 1);
    let mut hk = 1.0;
    for k in 0..=p {
        gamma.push(e.view((0, n + k * m), (n, m)) * hk);
        hk *= h;
    }
    Some(Discretization { h, ad, gamma })
}

/// `∫_0^h e^{a(h−s)} s^k/k! ds = (e^{ah} − Σ_{j≤k} (ah)^j/j!) / a^{k+1}`, the scalar `Γ_k / b`
/// in closed form (well conditioned for |a h| of order one): what tests compare against.
#[cfg(test)]
pub(crate) fn scalar_gamma(a: f64, h: f64, k: usize) -> f64 {
    let mut sum = 0.0;
    let mut term = 1.0;
    for j in 0..=k {
        if j > 0 {
            term *= a * h / j as f64;
        }
        sum += term;
    }
    (libm::exp(a * h) - sum) / libm::pow(a, (k + 1) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalar_blocks_match_closed_form() {
        let (a, b, h) = (-0.7, 1.3, 1.0);
        let d = discretize(
            &DMatrix::from_element(1, 1, a),
            &DMatrix::from_element(1, 1, b),
            h,
            4,
        )
        .expect("discretisation");
        assert!(libm::fabs(d.ad[(0, 0)] - libm::exp(a * h)) < 1e-15);
        for k in 0..=4 {
            let want = b * scalar_gamma(a, h, k);
            assert!(
                libm::fabs(d.gamma[k][(0, 0)] - want) <= 1e-13 * libm::fabs(want),
                "k = {k}"
            );
        }
    }

    #[test]
    fn singular_a_gives_pure_integrals() {
        // A = 0: Γ_k = B h^{k+1}/(k+1)!, which A⁻¹ forms cannot produce.
        let b = DMatrix::from_row_slice(2, 1, &[2.0, -1.0]);
        let h = 0.3;
        let d = discretize(&DMatrix::zeros(2, 2), &b, h, 4).expect("discretisation");
        let mut fact = 1.0;
        for k in 0..=4 {
            fact *= (k + 1) as f64;
            let want = &b * (libm::pow(h, (k + 1) as f64) / fact);
            assert!(
                (&d.gamma[k] - &want).norm() <= 1e-15 * want.norm(),
                "k = {k}"
            );
        }
        assert_eq!(d.ad, DMatrix::identity(2, 2));
    }

    #[test]
    fn bad_arguments_are_refused() {
        let a = DMatrix::zeros(2, 2);
        let b = DMatrix::zeros(2, 1);
        assert!(discretize(&a, &b, 0.0, 0).is_none());
        assert!(discretize(&a, &b, 0.1, 5).is_none());
        assert!(discretize(&a, &DMatrix::zeros(3, 1), 0.1, 0).is_none());
    }
}
