//! Global normalised root-mean-square error over all outputs (docs/methods.md §10.2, paper eqn (33)).

use alloc::vec::Vec;

/// `e_NRMSE = sqrt(1/k Σ_j ε_j²)` with `ε_j = RMS_i(cosim_ji − ref_ji) / std_i(ref_ji)`.
///
/// `reference[j]` and `cosim[j]` are the columns (time series) of output `j` over the same
/// time points. The standard deviation is the population one (1/n) of the **reference**
/// (docs/methods.md §10.2). Components are skipped when their reference is constant (std 0) or
/// not finite, since they cannot be normalised. Returns `None` when the column counts or
/// lengths differ or no component is left. A non-finite co-simulation value gives `+∞`.
pub fn global_nrmse(reference: &[Vec<f64>], cosim: &[Vec<f64>]) -> Option<f64> {
    if reference.len() != cosim.len() {
        return None;
    }
    let mut sum = 0.0;
    let mut k = 0usize;
    for (r, c) in reference.iter().zip(cosim) {
        if r.len() != c.len() {
            return None;
        }
        if r.is_empty() {
            continue;
        }
        let n = r.len() as f64;
        let mean = r.iter().sum::<f64>() / n;
        let var = r.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n;
        if !(var.is_finite() && var > 0.0) {
            continue;
        }
        let mse = r.iter().zip(c).map(|(a, b)| (b - a) * (b - a)).sum::<f64>() / n;
        let eps = libm::sqrt(mse) / libm::sqrt(var);
        sum += if eps.is_finite() {
            eps * eps
        } else {
            f64::INFINITY
        };
        k += 1;
    }
    if k == 0 {
        None
    } else {
        Some(libm::sqrt(sum / k as f64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    #[test]
    fn hand_computed_two_component_value() {
        let reference = vec![
            vec![1.0, 2.0, 3.0, 4.0],
            vec![0.0, 2.0, 0.0, 2.0],
            vec![5.0; 4],
        ];
        let cosim = vec![
            vec![1.0, 2.0, 3.0, 5.0],
            vec![0.1, 2.1, 0.1, 2.1],
            vec![7.0; 4],
        ];
        // ε₁ = sqrt(1/4) / sqrt(1.25); ε₂ = 0.1 / 1; the constant third one is skipped.
        let e1 = 0.5 / libm::sqrt(1.25);
        let e2 = 0.1;
        let want = libm::sqrt((e1 * e1 + e2 * e2) / 2.0);
        let got = global_nrmse(&reference, &cosim).expect("comparable");
        assert!(libm::fabs(got - want) < 1e-15, "{got} vs {want}");
        assert_eq!(global_nrmse(&reference, &reference), Some(0.0));
    }

    #[test]
    fn nothing_comparable_gives_none_and_divergence_gives_infinity() {
        assert_eq!(global_nrmse(&[], &[]), None);
        assert_eq!(global_nrmse(&[vec![1.0, 1.0]], &[vec![2.0, 3.0]]), None);
        assert_eq!(global_nrmse(&[vec![1.0, 2.0]], &[vec![2.0]]), None);
        assert_eq!(global_nrmse(&[vec![1.0, 2.0]], &[]), None);
        assert_eq!(
            global_nrmse(&[vec![1.0, 2.0]], &[vec![1.0, f64::NAN]]),
            Some(f64::INFINITY)
        );
    }
}
