//! The penalty contact force `F = A·e^{B·x}` of seed 002 (Examples 1 and 2) with a guard
//! against overflow (docs/methods.md §14, "Stiff subsystem integrator"): f64's `exp`
//! overflows past an exponent of ≈ 709, and a Newton iterate or a careless start value
//! (x = 1e-3 m with B = 5e5 1/m gives e^500) would otherwise turn the run into inf/NaN.
//!
//! Above the exponent [`EXPONENT_LIMIT`] the exponential is continued by its tangent,
//! `A·e^{z*}·(1 + (z − z*))` with `z = B·x`, so the force and its slope are continuous,
//! the force stays strictly monotone in `x`, and it is finite for every finite `x` (the
//! result is clamped to ±f64::MAX for the absurd `x` where even the tangent overflows).
//! At `z* = 100` the force is already |A|·2.7e43 (2.7e41 N for A = −1e-2 N), some 28
//! orders of magnitude beyond what Example 1 reaches (|F_C| ≲ 1e13 N at `B·x ≈ 35`), so
//! the guard never changes a physical run.

/// Exponent `z* = B·x` above which the exponential is continued linearly.
pub const EXPONENT_LIMIT: f64 = 100.0;

/// `A·e^{B·x}`, continued by its tangent above `B·x = EXPONENT_LIMIT`; finite for every
/// finite input (`A = 0` switches the contact off).
pub fn contact_force(a: f64, b: f64, x: f64) -> f64 {
    if a == 0.0 {
        return 0.0;
    }
    let z = b * x;
    let f = if z <= EXPONENT_LIMIT {
        a * libm::exp(z)
    } else {
        a * libm::exp(EXPONENT_LIMIT) * (1.0 + (z - EXPONENT_LIMIT))
    };
    f.clamp(-f64::MAX, f64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;

    #[test]
    fn the_force_is_finite_and_monotone_for_every_position() {
        let (a, b) = (-1e-2, 1e7);
        // Positions from −f64::MAX to f64::MAX, dense around the contact and the limit.
        let mut xs: Vec<f64> = (-308..=308)
            .flat_map(|e| [-libm::pow(10.0, e as f64), libm::pow(10.0, e as f64)])
            .collect();
        xs.extend((0..=2000).map(|i| (i as f64 - 1000.0) * 2e-8));
        xs.extend([f64::MAX, -f64::MAX, 0.0, EXPONENT_LIMIT / b]);
        xs.sort_by(|p, q| p.partial_cmp(q).expect("finite"));
        let forces: Vec<f64> = xs.iter().map(|x| contact_force(a, b, *x)).collect();
        for (x, f) in xs.iter().zip(&forces) {
            assert!(f.is_finite() && *f <= 0.0, "F({x}) = {f}");
        }
        for w in forces.windows(2) {
            assert!(w[1] <= w[0], "not monotone: {} then {}", w[0], w[1]);
        }
        // Strictly monotone through the switch, continuous there in value and slope.
        let x_star = EXPONENT_LIMIT / b;
        let h = 1e-9 * x_star;
        let (below, at, above) = (
            contact_force(a, b, x_star - h),
            contact_force(a, b, x_star),
            contact_force(a, b, x_star + h),
        );
        assert!(above < at && at < below);
        let slope = a * libm::exp(EXPONENT_LIMIT) * b;
        assert!(((above - at) / h / slope - 1.0).abs() < 1e-6);
        assert!(((at - below) / h / slope - 1.0).abs() < 1e-6);
    }

    #[test]
    fn below_the_limit_it_is_the_exponential() {
        assert_eq!(contact_force(-1e-2, 1e7, 0.0), -1e-2);
        let x = 3e-6;
        assert_eq!(contact_force(-1e-2, 1e7, x), -1e-2 * libm::exp(1e7 * x));
        assert_eq!(contact_force(0.0, 1e7, 1.0), 0.0);
        assert!(contact_force(-1e-2, 1e7, -2.0).abs() < 1e-300);
    }
}
