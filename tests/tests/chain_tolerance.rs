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

/// `(accepted steps, global error)` of ExMilne on the substitute chain at rtol 1e-3 with
/// `monitor` set.
fn ex_milne_monitoring(monitor: &str) -> (u32, f64) {
    use cosim_core::{scenario, simulation::Simulation};
    let mut v = chain::scenario_json("ex_milne", 1e4, 1e-3, Order::Variable, 1e-9);
    v["master"]["step_control"]["monitor"] = serde_json::json!(monitor);
    let s = scenario::parse(&v.to_string()).unwrap().validate().unwrap();
    let mut sim = Simulation::new(&s).unwrap();
    sim.run_to_end().unwrap();
    (sim.stats().accepted, sim.global_nrmse().unwrap())
}

/// `"monitor": "coupling_bodies"` tests only the segments' end masses (the cut forces act
/// there; docs/methods.md §14.11.3): on the chain, whose segments have interior masses,
/// the run differs from the one testing every state, and both stay accurate.
#[test]
fn monitoring_only_the_coupling_bodies_changes_the_chain_run() {
    let all = ex_milne_monitoring("all_states");
    let bodies = ex_milne_monitoring("coupling_bodies");
    println!("all states {all:?}, coupling bodies {bodies:?}");
    assert_ne!(all, bodies);
    assert!(all.1 < 1e-2 && bodies.1 < 1e-2, "{all:?} {bodies:?}");
}
