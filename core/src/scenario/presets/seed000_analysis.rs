//! Presets that open one of the analysis views of seed 000 (digest §7, Figs. 4–8) on the
//! linear two-mass oscillator: stability map, ρ against the macro-step, accuracy map and
//! convergence study. Each sets `analysis` so the page opens the view and its axes.

use super::super::schema::{
    AnalysisSpec, AnalysisView, AxisSpec, CorrectionSpec, JacobianSource, RunSpec, Scenario,
};
use super::{two_mass, Preset};
use crate::scenario::schema::{Algorithm, SolverSpec};
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

/// Topic of the analysis presets.
pub const TOPIC_ANALYSIS: &str = "Stability and accuracy analysis (seed 000)";

fn axis(parameter: &str, from: f64, to: f64, points: u32) -> AxisSpec {
    AxisSpec {
        parameter: String::from(parameter),
        from,
        to,
        points,
        log: true,
    }
}

/// Two-mass oscillator with hold order `order`, optional correction (α = 1), ΔT, c_k, d_k.
fn base(order: u32, corrected: bool, h: f64, ck: f64, dk: f64) -> Scenario {
    let mut s = two_mass(Algorithm::Jacobi, order, h, SolverSpec::Default);
    s.master.correction = corrected.then_some(CorrectionSpec {
        alpha: 1.0,
        jacobians: JacobianSource::Auto,
    });
    s.modules[1].parameters.insert("ck".into(), ck);
    s.modules[1].parameters.insert("dk".into(), dk);
    s
}

fn preset(
    id: &'static str,
    title: &str,
    description: &str,
    try_next: &str,
    mut scenario: Scenario,
    analysis: AnalysisSpec,
) -> Preset {
    scenario.title = title.into();
    scenario.description = description.into();
    scenario.analysis = Some(analysis);
    Preset {
        id,
        topic: TOPIC_ANALYSIS,
        try_next: try_next.into(),
        scenario,
    }
}

/// The four analysis presets, in figure order.
pub fn analysis_presets() -> Vec<Preset> {
    let h_acc = libm::pow(10.0, -3.5);
    vec![
        preset(
            "analysis-stability-map",
            "Stability map: ZOH with model-based correction over c_k × d_k",
            "The spectral radius ρ of the propagation matrix Φ over the coupling stiffness c_k and \
             damping d_k (log axes), for Jacobi with zero-order hold and the model-based corrector at \
             ΔT = 1e-4 s. Where ρ ≤ 1 the co-simulation is stable; the black line is the ρ = 1 \
             contour, computed on the grid by marching squares. The overlay draws the ρ = 1 contour \
             for several macro-steps, dark for the largest ΔT and light for the smallest (Fig. 4 of \
             the paper): the stable region grows as ΔT shrinks. Hatched cells are ill-conditioned or \
             failed and are listed in the read-out.",
            "Remove the correction in the JSON view and compute the map again: the stable region of \
             plain ZOH is much smaller at high stiffness. Then raise the extrapolation order.",
            base(0, true, 1e-4, 2e5, 5e2),
            AnalysisSpec {
                view: AnalysisView::StabilityMap,
                x: Some(axis("mass2.ck", 1.0, 1e10, 64)),
                y: Some(axis("mass2.dk", 1.0, 1e7, 48)),
                macro_steps: vec![1e-3, libm::pow(10.0, -3.5), 1e-4, libm::pow(10.0, -4.5), 1e-5],
                orders: Vec::new(),
            },
        ),
        preset(
            "analysis-rho-versus-step",
            "ρ against the macro-step: FOH at c_k = 1e9, d_k = 3.6e5",
            "The spectral radius against ΔT (log axis) for Jacobi with first-order hold and no \
             correction, on a very stiff, strongly damped coupling. ρ is not monotone in ΔT: the \
             method is stable below about 1.31e-5 s, unstable after that, and stable again in a \
             window from about 1.37e-4 s to 3.06e-4 s (Fig. 5 of the paper). A bisection for the \
             largest stable step would miss this window; the sweep scans the grid and refines each \
             crossing. The time run uses ΔT = 2e-4 s, inside the window.",
            "Set the macro-step to 1e-4 s (outside the window) and run: the response blows up. Then \
             switch on the correction and sweep again.",
            {
                let mut s = base(1, false, 2e-4, 1e9, 3.6e5);
                s.run = RunSpec { start: 0.0, stop: 0.1 };
                s
            },
            AnalysisSpec {
                view: AnalysisView::RhoVersusStep,
                x: Some(axis("master.macro_step", 1e-6, libm::pow(10.0, -2.5), 90)),
                y: None,
                macro_steps: Vec::new(),
                orders: Vec::new(),
            },
        ),
        preset(
            "analysis-accuracy-map",
            "Accuracy map: ZOH with and without correction at ΔT = 10^-3.5 s",
            "The global error e_g (NRMSE against the monolithic reference over 0.3 s) over c_k × d_k \
             for Jacobi with zero-order hold and the model-based corrector at ΔT = 10^-3.5 s. The \
             line is the e_g = 0.01 contour: inside it the co-simulation is accurate to 1 %. The \
             overlay adds the same contour without correction (Fig. 6 of the paper): plain ZOH has \
             no accurate point at this macro-step, the corrected method has a sizeable region.",
            "Halve the macro-step and compute again to see how fast the accurate region grows; then \
             try first-order hold with correction.",
            {
                let mut s = base(0, true, h_acc, 2e5, 5e2);
                s.run = RunSpec { start: 0.0, stop: 0.3 };
                s
            },
            AnalysisSpec {
                view: AnalysisView::AccuracyMap,
                x: Some(axis("mass2.ck", 1.0, 1e10, 42)),
                y: Some(axis("mass2.dk", 1.0, 1e7, 30)),
                macro_steps: Vec::new(),
                orders: Vec::new(),
            },
        ),
        preset(
            "analysis-convergence",
            "Convergence: local error against ΔT, orders 0–4 with and without correction",
            "The local error e_l against the macro-step on log-log axes for extrapolation orders 0 \
             to 4, plain (solid) and with the model-based corrector (dashed), at c_k = 2e5 N/m and \
             d_k = 500 N·s/m (Fig. 8 of the paper). The legend gives each curve's fitted slope: \
             about p + 1 without correction and p + 2 with it, so the corrector buys one order. \
             Points where the method is unstable are left out of the fit.",
            "Raise c_k to 2e7 and compute again: the curves bend where the high orders lose \
             stability, and the fitted range shrinks.",
            base(0, false, 1e-4, 2e5, 5e2),
            AnalysisSpec {
                view: AnalysisView::Convergence,
                x: None,
                y: None,
                macro_steps: (10..=24).map(|i| libm::pow(10.0, -f64::from(i) / 4.0)).collect(),
                orders: vec![0, 1, 2, 3, 4],
            },
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::sweep::{stability_crossings, LinearAnalysis};

    #[test]
    fn analysis_presets_validate_describe_and_open_their_view() {
        for p in analysis_presets() {
            let sentences = p.scenario.description.matches(". ").count() + 1;
            assert!(
                (3..=6).contains(&sentences),
                "{}: {sentences} sentences",
                p.id
            );
            assert!(!p.try_next.is_empty());
            let v = p.scenario.validate().expect(p.id);
            LinearAnalysis::new(&v).expect(p.id);
            assert!(p.scenario.analysis.is_some(), "{}", p.id);
        }
    }

    /// The ρ-vs-ΔT preset's own axis finds the FOH window of digest §6 Q5.
    #[test]
    fn rho_versus_step_preset_finds_the_foh_window() {
        let p = analysis_presets()
            .into_iter()
            .find(|p| p.id == "analysis-rho-versus-step")
            .expect("preset");
        let spec = p
            .scenario
            .analysis
            .clone()
            .and_then(|a| a.x)
            .expect("x axis");
        let a = LinearAnalysis::new(&p.scenario.validate().expect("valid")).expect("linear");
        let c = stability_crossings(&a, &spec).expect("scan");
        assert_eq!(c.len(), 3, "{c:?}");
        assert!(
            libm::fabs(c[1].value / 1.3701e-4 - 1.0) < 0.01
                && libm::fabs(c[2].value / 3.0611e-4 - 1.0) < 0.01,
            "{c:?}"
        );
    }
}
