//! Each preset shows what its description says: the equation module matches its
//! reference, the Reference FMU presets run to their end (Stair terminates at 9 s),
//! Dahlquist lags on its fixed internal step, Feedthrough is one macro-step late under
//! Jacobi only, the analysis presets open their view (the ρ-against-ΔT axis finds the
//! FOH stability window), the defect presets are the defect study's E1 and E2, and the
//! chain presets fit the page.

use super::*;
use crate::analysis::sweep::{stability_crossings, LinearAnalysis};
use crate::models::reference_fmus::FEEDTHROUGH_ID;
use crate::scenario::{Algorithm, ConnectionSpec};
use crate::simulation::Simulation;
use alloc::format;
use alloc::vec;

fn get(id: &str) -> Scenario {
    preset(id).unwrap_or_else(|| panic!("preset {id}"))
}

fn run(s: &Scenario) -> Simulation {
    let v = s.validate().unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Simulation::new(&v).unwrap_or_else(|e| panic!("{e}"));
    sim.run_to_end().unwrap_or_else(|e| panic!("{e}"));
    sim
}

#[test]
fn equation_preset_runs_and_matches_its_reference() {
    let s = get("equation-module-mass1");
    assert!(s.validate().expect("valid").reference_available);
    let e = run(&s).global_nrmse().expect("reference");
    assert!(e < 0.01, "global NRMSE {e}");
}

#[test]
fn every_reference_preset_runs_to_its_end() {
    for p in presets()
        .into_iter()
        .filter(|p| p.id.starts_with("reference-"))
    {
        let sim = run(&p.scenario);
        let time = &sim.result().time;
        assert!(time.len() > 10, "{}", p.id);
        assert!(
            sim.result()
                .signals
                .iter()
                .all(|s| s.cosim.iter().all(|y| y.is_finite())),
            "{}",
            p.id
        );
        let last = *time.last().unwrap_or(&0.0);
        if p.id == "reference-stair" {
            assert_eq!(sim.terminated_early(), Some((9.0, "stair")));
            assert_eq!(last, 9.0);
        } else {
            assert_eq!(sim.terminated_early(), None, "{}", p.id);
            assert!(
                (last - p.scenario.run.stop).abs() < 1e-9,
                "{}: ends at {last}",
                p.id
            );
        }
    }
}

#[test]
fn dahlquist_preset_shows_the_fixed_step_lag() {
    let sim = run(&get("reference-dahlquist-macro-step"));
    let r = sim.result();
    // t = 0.25: two internal steps taken (x = 0.9²); t = 0.5: five (0.9⁵).
    assert_eq!((r.time[1], r.signals[0].cosim[1]), (0.25, 0.81));
    assert!((r.signals[0].cosim[2] - libm::pow(0.9, 5.0)).abs() < 1e-15);
}

#[test]
fn feedthrough_preset_delays_by_one_macro_step_and_gauss_seidel_removes_it() {
    let mut scenario = get("reference-feedthrough");
    for gauss_seidel in [false, true] {
        if gauss_seidel {
            scenario.master.algorithm = Algorithm::GaussSeidel;
            scenario.master.sequence = vec!["vdp".into(), "pass".into()];
        }
        let sim = run(&scenario);
        let r = sim.result();
        // Signals: vdp.x0, vdp.x1, pass.Float64_continuous_output, ..._discrete_output.
        let (x0, copy) = (&r.signals[0].cosim, &r.signals[2].cosim);
        for k in 1..x0.len() {
            let expected = if gauss_seidel { x0[k] } else { x0[k - 1] };
            assert_eq!(
                copy[k], expected,
                "t = {}, Gauss-Seidel: {gauss_seidel}",
                r.time[k]
            );
        }
    }
}

/// Not a preset, because presets must run: two Feedthroughs in a ring. Each output equals
/// its input at the same instant, so the ring is an algebraic loop with loop gain 1:
/// `I − D·L` is singular and any value solves it, and validation refuses it at
/// `connections`, listing the loop.
#[test]
fn feedthrough_ring_is_refused_listing_the_loop() {
    let mut s = get("reference-feedthrough");
    for (m, name) in s.modules.iter_mut().zip(["a", "b"]) {
        m.name = name.into();
        m.model = FEEDTHROUGH_ID.into();
    }
    s.connections = [("a", "b"), ("b", "a")]
        .iter()
        .flat_map(|(from, to)| {
            ["continuous", "discrete"].map(|kind| ConnectionSpec {
                from: format!("{from}.Float64_{kind}_output"),
                to: format!("{to}.Float64_{kind}_input"),
            })
        })
        .collect();
    s.plot.clear();
    let e = s.validate().expect_err("algebraic loop");
    assert_eq!(e.path, "connections");
    let text = format!("{e}");
    assert!(text.contains("algebraic loop"), "{text}");
    // One of the two rings (continuous or discrete pair), port by port.
    let ring = |kind: &str| {
        ["a", "b"].iter().all(|m| {
            text.contains(&format!("{m}.Float64_{kind}_output"))
                && text.contains(&format!("{m}.Float64_{kind}_input"))
        })
    };
    assert!(ring("continuous") || ring("discrete"), "{text}");
}

#[test]
fn analysis_presets_validate_and_open_their_view() {
    let analysis: Vec<Preset> = presets()
        .into_iter()
        .filter(|p| p.id.starts_with("analysis-"))
        .collect();
    assert_eq!(analysis.len(), 4);
    for p in analysis {
        let v = p.scenario.validate().expect(p.id);
        LinearAnalysis::new(&v).expect(p.id);
        assert!(p.scenario.analysis.is_some(), "{}", p.id);
    }
}

/// The ρ-vs-ΔT preset's own axis finds the FOH window of the paper's Fig. 5.
#[test]
fn rho_versus_step_preset_finds_the_foh_window() {
    let s = get("analysis-rho-versus-step");
    let spec = s.analysis.clone().and_then(|a| a.x).expect("x axis");
    let a = LinearAnalysis::new(&s.validate().expect("valid")).expect("linear");
    let c = stability_crossings(&a, &spec).expect("scan");
    assert_eq!(c.len(), 3, "{c:?}");
    assert!(
        libm::fabs(c[1].value / 1.3701e-4 - 1.0) < 0.01
            && libm::fabs(c[2].value / 3.0611e-4 - 1.0) < 0.01,
        "{c:?}"
    );
}

/// The defect presets are the study's E1 and E2 (`analysis::defect_study`), run through a
/// scenario: the same steps, the same outputs at every communication point and the same
/// run-wide defects; none is ever rolled back.
#[test]
fn defect_presets_are_the_studys_e1_and_e2() {
    use crate::analysis::defect_study::{run_case, Experiment};
    use crate::master::Initialisation;
    use crate::models::rotational_oscillator::Method;
    for (id, e) in [
        ("defect-fixed-step", Experiment::E1),
        ("defect-controlled", Experiment::E2),
    ] {
        let sim = run(&get(id));
        let x = e.axis()[0];
        let study = run_case(
            &e.case(Method::Euler, Initialisation::ZeroDerivatives, 0, x),
            true,
        )
        .expect("study");
        let r = sim.result();
        assert_eq!(r.time.len(), study.step_sizes.len() + 1, "{id}");
        // The response's last sample in each step is the output at the step end.
        let ends: alloc::vec::Vec<_> = study.response.iter().skip(4).step_by(5).collect();
        for (k, end) in ends.iter().enumerate() {
            assert!((r.time[k + 1] - end.t).abs() < 1e-12, "{id}: step {k}");
            for (j, signal) in r.signals.iter().take(2).enumerate() {
                assert_eq!(signal.cosim[k + 1], end.cosim[j], "{id}: step {k}");
            }
        }
        let defects = sim.run_defects().expect("defects");
        for k in 0..2 {
            assert_eq!(defects.output_rms(k), study.output_defect[k], "{id}");
            assert_eq!(
                defects.connection_rms(k),
                study.connection_defect[k],
                "{id}"
            );
        }
        assert_eq!(sim.stats().rejected, 0, "{id}");
    }
}

/// The chain presets are the page's: the larger is seed 002's 10^4 masses in 191
/// subsystems, at the page's limit, and neither asks the page for more.
#[test]
fn chain_presets_fit_the_page_and_the_larger_is_seed_002s_split() {
    let large = get("chain-10000-masses");
    let chain = large.chain.as_ref().expect("a chain");
    assert_eq!((chain.masses, chain.subsystems), (10_000, 191));
    for id in ["chain-1000-masses", "chain-10000-masses"] {
        let c = get(id).chain.expect("a chain");
        c.check_for_page().unwrap_or_else(|e| panic!("{id}: {e}"));
    }
    let mut larger = chain.clone();
    larger.masses += 1;
    let refused = larger.check_for_page().expect_err("above the page's limit");
    assert!(format!("{refused}").contains("cosim run"), "{refused}");
}
