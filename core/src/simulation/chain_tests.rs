//! Chain scenarios end to end: the monolithic reference conserves the energy of an
//! undamped force-free chain, and a chain in two subsystems tends to the chain in one as
//! the macro-step shrinks (docs/methods.md §16.5).

use super::chain_reference::ChainReference;
use super::{coupling_body_error, Simulation};
use crate::analysis::CustomReference;
use crate::scenario::{parse, ChainSpec};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

fn chain(masses: u64, subsystems: u64, parameters: &str, h: f64, stop: f64) -> String {
    format!(
        r#"{{"schema_version": 1,
           "chain": {{"masses": {masses}, "subsystems": {subsystems}, "watch": [10],
                     "parameters": {{{parameters}}}}},
           "master": {{"algorithm": "jacobi", "macro_step": {h}}},
           "run": {{"stop": {stop}}}}}"#
    )
}

#[test]
fn the_reference_conserves_the_energy_of_an_undamped_force_free_chain() {
    let json = chain(
        60,
        1,
        r#""d": 0, "D": 0, "impulse_share": 0, "contact_share": 0"#,
        1e-4,
        1e-3,
    );
    let s = parse(&json).expect("parses");
    let spec: ChainSpec = s.chain.expect("chain");
    let mut r = ChainReference::new(&spec, &[], 0.0).expect("builds");
    let e0 = r.energy(r.states());
    assert!(e0 > 1.0, "the random start holds energy: {e0}");
    let mut worst = 0.0f64;
    for i in 1..=20 {
        r.advance_to(2.5e-4 * i as f64).expect("integrates");
        let e = r.energy(r.states());
        worst = worst.max(((e - e0) / e0).abs());
    }
    // Over 5 ms (some 8 periods of the fastest mode), the drift stays at the tolerance
    // level (rtol 1e-8 per step).
    assert!(worst < 1e-5, "relative energy drift {worst:e}");
    assert!(worst > 0.0, "the integration is not exact");
}

/// No impulses, start values of 1e-5 m and 0.1 m/s, d = 1e3 N·s/m: the zero-order hold of
/// the cut force stays stable at these macro-steps. Seed 002's ±1e-3 m and ±10 m/s make the
/// cubic spring's slope 3·C·Δx² ≈ 3e8 N/m (ω·H ≈ 0.5 at H = 1e-5 s) and the cubic damper's
/// 3·D·Δv² ≈ 1e5 N·s/m, beyond what an explicit cut holds there.
const GENTLE: &str = r#""impulse_share": 0, "x0_max": 1e-5, "v0_max": 0.1, "d": 1e3"#;

/// The watched mass 10 (the last of the first segment of two) at the end.
fn watched_at_end(subsystems: u64, h: f64) -> f64 {
    let json = chain(20, subsystems, GENTLE, h, 2e-4);
    let v = parse(&json).expect("parses").validate().expect("valid");
    let mut sim = Simulation::new(&v).expect("builds");
    sim.run_to_end().expect("runs");
    let r = sim.result();
    let x = r
        .signals
        .iter()
        .find(|s| s.name.ends_with("x_watch"))
        .expect("watched");
    *x.cosim.last().expect("points")
}

#[test]
fn two_subsystems_tend_to_one_as_the_macro_step_shrinks() {
    let whole = watched_at_end(1, 1e-5);
    let errors: Vec<f64> = [1e-5, 5e-6, 2.5e-6]
        .iter()
        .map(|&h| (watched_at_end(2, h) - whole).abs())
        .collect();
    assert!(errors[0] > 0.0, "the cut changes the numbers");
    // Zero-order hold: first order in H.
    for w in errors.windows(2) {
        assert!(w[1] < 0.7 * w[0], "errors {errors:?}");
    }
}

#[test]
fn a_chain_run_records_its_plot_and_its_coupling_body_error_falls_with_h() {
    let error_at = |h: f64| {
        let json = chain(40, 4, GENTLE, h, 1e-4);
        let v = parse(&json).expect("parses").validate().expect("valid");
        let mut sim = Simulation::new(&v).expect("builds");
        sim.run_to_end().expect("runs");
        let names: Vec<&str> = sim
            .result()
            .signals
            .iter()
            .map(|s| s.name.as_str())
            .collect();
        assert_eq!(names.len(), 2 + 5 * 3, "{names:?}");
        assert!(names.contains(&"c2.lambda") && names.contains(&"s3.x_first"));
        assert!(super::summary(&sim).contains("eqn 36"));
        coupling_body_error(&sim).expect("a reference")
    };
    // Against the whole chain integrated as one (the reference): first order in H.
    let (coarse, fine) = (error_at(2e-6), error_at(5e-7));
    assert!(
        fine > 0.0 && fine < 0.4 * coarse,
        "eqn 36 errors {coarse} then {fine}"
    );
}

#[test]
fn the_reference_of_a_chain_longer_than_a_segment_builds_and_steps() {
    let s = parse(&chain(5000, 5, "", 1e-8, 1e-7)).expect("parses");
    let spec: ChainSpec = s.chain.expect("chain");
    let names = [String::from("c2.lambda"), String::from("s3.x_first")];
    let mut r = ChainReference::new(&spec, &names, 0.0).expect("5,000 masses in one band");
    assert_eq!(r.states().len(), 10_000);
    let y = r.advance_to(1e-8).expect("steps").to_vec();
    // s3.x_first is mass 2,001 (state 4,000).
    assert_eq!(y[1], r.states()[4000]);
    assert!(y[0].is_finite());
}

/// Steps the modules of a sweep in reverse index order, as a thread pool may finish them,
/// and counts its sweeps.
struct Reversed(alloc::sync::Arc<core::sync::atomic::AtomicU32>);

impl crate::master::Executor for Reversed {
    fn sweep(&mut self, s: crate::master::Sweep<'_, '_>) -> Result<(), crate::error::MasterError> {
        let selected = s.selected;
        let mut slots: Vec<_> = s.sys.slots().filter(|slot| selected[slot.index]).collect();
        for slot in slots.iter_mut().rev() {
            s.reports[slot.index] = (s.task)(slot)?;
        }
        self.0.fetch_add(1, core::sync::atomic::Ordering::Relaxed);
        Ok(())
    }
}

#[test]
fn error_controlled_chains_give_the_same_numbers_through_an_executor() {
    use core::sync::atomic::{AtomicU32, Ordering};
    for (algorithm, estimator) in [("jacobi", "ex_s_local"), ("implicit", "im_s_local")] {
        let json = format!(
            r#"{{"schema_version": 1,
               "chain": {{"masses": 40, "subsystems": 4, "watch": [10],
                         "parameters": {{"x0_max": 1e-5, "v0_max": 0.1}}}},
               "master": {{"algorithm": "{algorithm}", "macro_step": 1e-8,
                          "step_control": {{"method": "error", "estimator": "{estimator}",
                                           "rtol": 1e-3, "atol": {{"u": 0.1}}}}}},
               "run": {{"stop": 3e-7}}, "reference": false}}"#
        );
        let v = parse(&json).expect("parses").validate().expect("valid");
        let mut alone = Simulation::new(&v).expect("builds");
        alone.run_to_end().expect("runs");
        let sweeps = alloc::sync::Arc::new(AtomicU32::new(0));
        let executor = alloc::boxed::Box::new(Reversed(sweeps.clone()));
        let mut swept = Simulation::with_executor(&v, Some(executor)).expect("builds");
        swept.run_to_end().expect("runs");
        let bits = |sim: &Simulation| -> Vec<u64> {
            let r = sim.result();
            let values = r.signals.iter().flat_map(|s| s.cosim.iter());
            r.time.iter().chain(values).map(|x| x.to_bits()).collect()
        };
        assert_eq!(bits(&swept), bits(&alone), "{estimator}");
        let attempts = swept.stats().accepted + swept.stats().rejected;
        assert!(attempts > 5, "{estimator}: {attempts} attempts");
        // ExSLocal: one sweep per attempt. ImSLocal: the predictor, two rounds of
        // finite differences (each segment owns at most two coupling variables) and at
        // least one corrector run.
        let per_attempt = if algorithm == "implicit" { 4 } else { 1 };
        let n = sweeps.load(Ordering::Relaxed);
        assert!(n >= per_attempt * attempts, "{estimator}: {n} sweeps");
    }
}
