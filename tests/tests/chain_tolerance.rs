//! Tolerance proportionality on the substitute chain (`chain/mod.rs`, docs/methods.md
//! §14.14): with variable order every estimator lowers the global error with each ten-fold
//! decrease of `rtol` from 1e-2 to 1e-5, the segments' BDF at rtol 1e-11 so that their own
//! error stays below the co-simulation's. The SLocal estimators start at degree 1 on the
//! tangent (§14.10); at degree 0 their first step would need H < 1e-12 s at rtol 1e-5.

mod chain;

use chain::{run_with_segments, Order, TIGHT_SEGMENT_RTOL};

#[test]
fn every_estimator_lowers_the_chain_error_with_each_decade_of_rtol() {
    for (estimator, rtols) in [
        ("ex_local", &[1e-2, 1e-3, 1e-4, 1e-5][..]),
        ("ex_milne", &[1e-2, 1e-3, 1e-4, 1e-5][..]),
        ("ex_s_local", &[1e-2, 1e-3, 1e-4, 1e-5][..]),
        ("im_milne", &[1e-2, 1e-3, 1e-4, 1e-5][..]),
        ("im_s_local", &[1e-2, 1e-3, 1e-4, 1e-5][..]),
    ] {
        let errors: Vec<f64> = rtols
            .iter()
            .map(|&rtol| {
                let o =
                    run_with_segments(estimator, 1e4, rtol, Order::Variable, TIGHT_SEGMENT_RTOL)
                        .unwrap_or_else(|| panic!("{estimator} rtol {rtol:e} ended early"));
                println!("{estimator} rtol {rtol:.0e}: {o:?}");
                o.error
            })
            .collect();
        for j in 1..errors.len() {
            assert!(errors[j] < errors[j - 1], "{estimator}: {errors:.3?}");
        }
    }
}
