//! The correction coefficient μ of seed 001 (docs/methods.md §13.4): the fraction of the
//! residual energy δE that is real energy error, from the step ratio and the hold order.

/// Two step sizes are in an integer ratio when the ratio is within this relative distance
/// of a whole number (0.3e-3 / 0.1e-3 is 2.9999999999999996, not 3).
pub const RATIO_TOLERANCE: f64 = 1e-12;

/// μ of a single-rate run with one feedthrough side (seed eq. 11, [30]).
pub const MU_SINGLE_RATE: f64 = 0.5;

/// How the fast side holds its input between the slow side's samples.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hold {
    /// Zero-order hold (extrapolation order 0).
    Zoh,
    /// First-order hold (order 1).
    Foh,
    /// Second-order hold (order 2); μ as for FOH (seed Sect. 3.3).
    Soh,
}

impl Hold {
    /// The hold of an extrapolation order (orders above 2 count as SOH).
    pub fn of_order(order: u32) -> Hold {
        match order {
            0 => Hold::Zoh,
            1 => Hold::Foh,
            _ => Hold::Soh,
        }
    }
}

/// `a / b` as a whole number `n ≥ 1` when it is one within [`RATIO_TOLERANCE`].
pub fn whole_ratio(a: f64, b: f64) -> Option<u32> {
    let r = a / b;
    if !(r.is_finite() && r >= 1.0 - RATIO_TOLERANCE) || r > f64::from(u32::MAX) {
        return None;
    }
    let n = libm::round(r);
    (libm::fabs(r - n) <= RATIO_TOLERANCE * n).then_some(n as u32)
}

/// The step ratio `R = h_df / h_ndf` (seed eq. 19) when one step is a whole multiple of
/// the other: `Some(R)` with `R` or `1/R` a whole number, exactly.
pub fn step_ratio(h_df: f64, h_ndf: f64) -> Option<f64> {
    if let Some(n) = whole_ratio(h_df, h_ndf) {
        return Some(f64::from(n));
    }
    whole_ratio(h_ndf, h_df).map(|n| 1.0 / f64::from(n))
}

/// μ by the rules of seed 001 (eqs. 20, 21): `None` when the rules say nothing (multi-rate
/// without feedthrough: the caller must ask for an explicit μ, never assume 0).
///
/// - single-rate (`R = 1`): 0.5 with a feedthrough side, 0 without;
/// - feedthrough side slower (`R ≥ 1`): ZOH `0.5·(1.5 − 0.5/R)`, FOH and SOH `0.5`;
/// - feedthrough side faster (`R ≤ 1`): ZOH `0.5`, FOH and SOH `0.5·R`.
pub fn mu_rule(feedthrough: bool, ratio: f64, hold: Hold) -> Option<f64> {
    let single_rate = ratio == 1.0;
    match (feedthrough, single_rate) {
        (false, true) => Some(0.0),
        (false, false) => None,
        (true, true) => Some(MU_SINGLE_RATE),
        (true, false) if ratio > 1.0 => Some(match hold {
            Hold::Zoh => MU_SINGLE_RATE * (1.5 - 0.5 / ratio),
            Hold::Foh | Hold::Soh => MU_SINGLE_RATE,
        }),
        (true, false) => Some(match hold {
            Hold::Zoh => MU_SINGLE_RATE,
            Hold::Foh | Hold::Soh => MU_SINGLE_RATE * ratio,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        libm::fabs(a - b) < 1e-15
    }

    #[test]
    fn the_seeds_worked_values() {
        let r = step_ratio(1e-3, 1e-4).expect("R = 10");
        assert_eq!(r, 10.0);
        assert!(close(mu_rule(true, r, Hold::Zoh).unwrap(), 0.725));
        let r = step_ratio(0.25e-3, 10e-3).expect("R = 1/40");
        assert_eq!(r, 1.0 / 40.0);
        assert!(close(mu_rule(true, r, Hold::Foh).unwrap(), 0.0125));
        assert_eq!(mu_rule(true, 1.0, Hold::Zoh), Some(0.5));
        assert_eq!(mu_rule(false, 1.0, Hold::Foh), Some(0.0));
        // Both rules meet at R = 1; SOH is FOH.
        for r in [0.1, 0.5, 2.0, 10.0] {
            assert_eq!(mu_rule(true, r, Hold::Soh), mu_rule(true, r, Hold::Foh));
        }
        assert_eq!(mu_rule(true, 2.0, Hold::Zoh), Some(0.625));
        assert_eq!(mu_rule(true, 0.1, Hold::Zoh), Some(0.5));
        // Multi-rate without feedthrough: the seed has no rule.
        assert_eq!(mu_rule(false, 10.0, Hold::Zoh), None);
    }

    #[test]
    fn ratios_are_whole_within_1e_12_only() {
        // 0.3e-3 / 0.1e-3 = 2.9999999999999996 in floating point: still 3.
        assert_eq!(whole_ratio(0.3e-3, 0.1e-3), Some(3));
        assert_eq!(step_ratio(0.1e-3, 0.3e-3), Some(1.0 / 3.0));
        assert_eq!(step_ratio(2.5e-3, 1e-3), None);
        assert_eq!(step_ratio(1e-3, 1e-3 * (1.0 + 1e-9)), None);
        assert_eq!(whole_ratio(1e-3, 2e-3), None);
        assert_eq!(step_ratio(f64::NAN, 1.0), None);
    }
}
