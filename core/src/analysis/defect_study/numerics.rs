//! Small numerics of the defect study: Gauss–Legendre quadrature on one step (for squared
//! errors against the exact solution, which is not a polynomial) and the least-squares
//! slope of a log–log series.

/// Nodes of the 8-point Gauss–Legendre rule on [−1, 1] (positive half; the rule is
/// symmetric). Exact for polynomials up to degree 15; on a step of length `h` it integrates
/// a smooth function with time scale `T` to a relative error of about `(h/T)^16`.
const NODES: [f64; 4] = [
    0.183_434_642_495_649_8,
    0.525_532_409_916_329,
    0.796_666_477_413_626_7,
    0.960_289_856_497_536_3,
];
/// Weights of [`NODES`].
const WEIGHTS: [f64; 4] = [
    0.362_683_783_378_362,
    0.313_706_645_877_887_3,
    0.222_381_034_453_374_5,
    0.101_228_536_290_376_3,
];

/// The 8 nodes on `[0, h]` as offsets from the step start, with their weights (summing
/// to `h`).
pub fn gauss_points(h: f64) -> [(f64, f64); 8] {
    let mut out = [(0.0, 0.0); 8];
    for (i, (x, w)) in NODES.iter().zip(WEIGHTS).enumerate() {
        out[2 * i] = (0.5 * h * (1.0 - x), 0.5 * h * w);
        out[2 * i + 1] = (0.5 * h * (1.0 + x), 0.5 * h * w);
    }
    out
}

/// `Σ_j d_j s^j / j!` for `s` measured from the expansion point.
pub fn taylor(d: &[f64], s: f64) -> f64 {
    let mut acc = 0.0;
    let mut term = 1.0;
    for (j, dj) in d.iter().enumerate() {
        if j > 0 {
            term *= s / j as f64;
        }
        acc += dj * term;
    }
    acc
}

/// Least-squares slope of `log10 y` against `log10 x` over the points with `x` in
/// `[lo, hi]` (a relative slack of 1e-9 at both ends) and `y` above `floor`; `None` with
/// fewer than two such points.
pub fn log_log_slope(points: &[(f64, f64)], (lo, hi): (f64, f64), floor: f64) -> Option<f64> {
    let inside = |x: f64| x >= lo * (1.0 - 1e-9) && x <= hi * (1.0 + 1e-9);
    let logs: alloc::vec::Vec<(f64, f64)> = points
        .iter()
        .filter(|(x, y)| inside(*x) && y.is_finite() && *y > floor)
        .map(|(x, y)| (libm::log10(*x), libm::log10(*y)))
        .collect();
    if logs.len() < 2 {
        return None;
    }
    let n = logs.len() as f64;
    let (mx, my) = logs
        .iter()
        .fold((0.0, 0.0), |(a, b), (x, y)| (a + x / n, b + y / n));
    let (sxy, sxx) = logs.iter().fold((0.0, 0.0), |(a, b), (x, y)| {
        (a + (x - mx) * (y - my), b + (x - mx) * (x - mx))
    });
    (sxx > 0.0).then(|| sxy / sxx)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gauss_rule_integrates_degree_15_exactly_and_smooth_functions_closely() {
        let h = 0.7;
        let q =
            |f: &dyn Fn(f64) -> f64| gauss_points(h).iter().map(|(s, w)| w * f(*s)).sum::<f64>();
        let p15 = q(&|s| libm::pow(s, 15.0));
        assert!(libm::fabs(p15 - libm::pow(h, 16.0) / 16.0) < 1e-15);
        let c = q(&libm::cos);
        assert!(libm::fabs(c - libm::sin(h)) < 1e-15);
    }

    #[test]
    fn slope_of_a_power_law_and_its_guards() {
        let pts: alloc::vec::Vec<(f64, f64)> = (0..6)
            .map(|j| {
                let x = libm::pow(10.0, -2.0 + 0.4 * f64::from(j));
                (x, 3.0 * x * x)
            })
            .collect();
        let s = log_log_slope(&pts, (1e-2, 1.0), 0.0).expect("slope");
        assert!(libm::fabs(s - 2.0) < 1e-12, "{s}");
        assert_eq!(
            log_log_slope(&pts, (1e-2, 1.0), 1.0),
            None,
            "all below the floor"
        );
        assert_eq!(log_log_slope(&pts[..1], (1e-3, 1.0), 0.0), None);
        assert!(libm::fabs(taylor(&[1.0, 2.0, 6.0], 0.5) - (1.0 + 1.0 + 0.75)) < 1e-16);
    }
}
