//! The model-based corrector's coefficients as data (docs/methods.md §8), in one place for
//! the time-domain corrector ([`super::ModelBasedCorrection`]) and the propagation
//! matrices of the analysis, which must agree to the last bit.

use super::predictor::MAX_ORDER;

const N: usize = MAX_ORDER + 1;

/// `c_p = ∫₀¹ σ(σ+1)…(σ+p) dσ / (p+1)!`, the weight of `L ∇^{p+1} ȳ_{n+1}` in the offset
/// update (docs/methods.md §8.4; the Adams–Bashforth error constants). `c_0 = 1/2` and
/// `c_1 = 5/12` are the paper's eqns (24) and (25).
pub const STATE_CORRECTION_WEIGHTS: [f64; N] = [
    1.0 / 2.0,
    5.0 / 12.0,
    3.0 / 8.0,
    251.0 / 720.0,
    95.0 / 288.0,
];

/// Binomial coefficient for the small orders used here (exact in f64).
pub fn binomial(n: usize, k: usize) -> f64 {
    if k > n {
        return 0.0;
    }
    (0..k).fold(1.0, |acc, i| acc * (n - i) as f64 / (i + 1) as f64)
}

fn sign(j: usize) -> f64 {
    if j & 1 == 0 {
        1.0
    } else {
        -1.0
    }
}

/// Weights of `ȳ_{n−j}`, `j = 0..=p`, in the extrapolation polynomial's value at `T_{n+1}`:
/// `P_ext = Σ_j (−1)^j C(p+1, j+1) ȳ_{n−j}` (docs/methods.md §8.3).
pub fn extrapolated_end_weights(p: usize) -> [f64; N] {
    core::array::from_fn(|j| {
        if j <= p {
            sign(j) * binomial(p + 1, j + 1)
        } else {
            0.0
        }
    })
}

/// Weights of `ȳ_{n+1−j}`, `j = 0..=p+1`, in `∇^{p+1}ȳ_{n+1}` (docs/methods.md §8.4).
pub fn backward_difference_weights(p: usize) -> [f64; N + 1] {
    core::array::from_fn(|j| {
        if j <= p + 1 {
            sign(j) * binomial(p + 1, j)
        } else {
            0.0
        }
    })
}

/// Coefficients of `τ(τ+1)…(τ+q−1) = Σ_k a_k τ^k`, built one factor at a time.
fn rising_factorial_coefficients(q: usize) -> [f64; N] {
    let mut a = [0.0; N];
    a[0] = 1.0;
    for i in 0..q {
        for k in (0..=i + 1).rev() {
            let shifted = if k > 0 { a[k - 1] } else { 0.0 };
            a[k] = shifted + i as f64 * a[k];
        }
    }
    a
}

/// Coefficients `b_k` of `q(τ) = τ(τ+1)…(τ+p−1)/p! = Σ_k b_k τ^k`, the shape of the
/// difference between the true input and the extrapolation polynomial over a step
/// (docs/methods.md §8.2): `G_p = C Σ_k b_k k! B_dk / ΔT^k + D`.
pub fn true_input_shape(p: usize) -> [f64; N] {
    let mut b = rising_factorial_coefficients(p);
    let fact: f64 = (1..=p).map(|i| i as f64).product();
    b.iter_mut().for_each(|v| *v /= fact);
    b
}

/// `w_k = b_k k! / ΔT^k`, `k = 0..=q` (docs/methods.md §8.3; `q = 0` gives `q(τ) = 1`):
/// the weights of `B_dk` in the gain `G_q`, and also the Taylor coefficients (value and
/// derivatives at the step start) of the input perturbation `q((t − T_n)/ΔT)`.
pub fn hold_weights(q: usize, h: f64) -> [f64; N] {
    let a = rising_factorial_coefficients(q);
    let fact_q: f64 = (1..=q).map(|i| i as f64).product();
    let mut w = [0.0; N];
    let (mut fact_k, mut hk) = (1.0, 1.0);
    for k in 0..=q {
        if k > 0 {
            fact_k *= k as f64;
            hk *= h;
        }
        w[k] = a[k] / fact_q * fact_k / hk;
    }
    w
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hold_weights_give_the_documented_gains() {
        // docs/methods.md §8.3: G_2 = C(B_d1/(2ΔT) + B_d2/ΔT²) + D, G_4 = C(B_d1/(4ΔT) +
        // (11/12)B_d2/ΔT² + (3/2)B_d3/ΔT³ + B_d4/ΔT⁴) + D; D's factor is q(1) = 1.
        let h = 0.5;
        let close = |a: f64, b: f64| (a - b).abs() < 1e-14 * (1.0 + b.abs());
        let w0 = hold_weights(0, h);
        assert_eq!(w0[..2], [1.0, 0.0]);
        let w1 = hold_weights(1, h);
        assert!(close(w1[0], 0.0) && close(w1[1], 1.0 / h));
        let w2 = hold_weights(2, h);
        assert!(close(w2[0], 0.0) && close(w2[1], 0.5 / h) && close(w2[2], 1.0 / (h * h)));
        let w3 = hold_weights(3, h);
        assert!(
            close(w3[1], 1.0 / (3.0 * h))
                && close(w3[2], 1.0 / (h * h))
                && close(w3[3], 1.0 / (h * h * h))
        );
        let w4 = hold_weights(4, h);
        let expected = [
            0.0,
            0.25 / h,
            11.0 / 12.0 / h.powi(2),
            1.5 / h.powi(3),
            1.0 / h.powi(4),
        ];
        for k in 0..=4 {
            assert!(
                close(w4[k], expected[k]),
                "k = {k}: {} vs {}",
                w4[k],
                expected[k]
            );
        }
        // The perturbation q(τ) evaluated at τ = 1 is 1 for every order.
        for q in 0..=4 {
            let w = hold_weights(q, h);
            let mut fact = 1.0;
            let at_end: f64 = (0..=q)
                .map(|k| {
                    if k > 0 {
                        fact *= k as f64;
                    }
                    w[k] * h.powi(k as i32) / fact
                })
                .sum();
            assert!(close(at_end, 1.0), "q = {q}: q(1) = {at_end}");
        }
    }

    #[test]
    fn corrector_tables_match_the_documented_ones() {
        // docs/methods.md §4.3: P_ext rows.
        assert_eq!(extrapolated_end_weights(2)[..3], [3.0, -3.0, 1.0]);
        assert_eq!(extrapolated_end_weights(4), [5.0, -10.0, 10.0, -5.0, 1.0]);
        assert_eq!(backward_difference_weights(2)[..4], [1.0, -3.0, 3.0, -1.0]);
        // G_4 = C(B_d1/(4ΔT) + (11/12)B_d2/ΔT² + (3/2)B_d3/ΔT³ + B_d4/ΔT⁴) + D.
        let b = true_input_shape(4);
        let fact = [1.0, 1.0, 2.0, 6.0, 24.0];
        let g: [f64; 5] = core::array::from_fn(|k| b[k] * fact[k]);
        let want = [0.0, 0.25, 11.0 / 12.0, 1.5, 1.0];
        for k in 0..5 {
            assert!((g[k] - want[k]).abs() < 1e-15, "k = {k}: {}", g[k]);
        }
        assert_eq!(true_input_shape(0)[0], 1.0);
        // c_p by numerical integration of σ(σ+1)…(σ+p)/(p+1)!.
        for (p, want) in STATE_CORRECTION_WEIGHTS.iter().enumerate() {
            let n = 2000;
            let f = |s: f64| (0..=p).map(|i| s + i as f64).product::<f64>();
            let mut sum = f(0.0) + f(1.0);
            for i in 1..n {
                sum += f(i as f64 / n as f64) * if i % 2 == 1 { 4.0 } else { 2.0 };
            }
            let integral = sum / (3.0 * n as f64) / (1..=p + 1).map(|i| i as f64).product::<f64>();
            assert!((integral - want).abs() < 1e-12, "p = {p}");
        }
    }
}
