//! Preset coupling an equation module (mass 1 written in the scenario's `source`) with
//! the built-in mass 2 of seed 000's two-mass oscillator (digest §5.1).

use super::super::schema::{
    Algorithm, ConnectionSpec, MasterSpec, ModuleSpec, RunSpec, Scenario, SolverSpec, StartUp,
    SCHEMA_VERSION,
};
use super::Preset;
use crate::models::equations::{EQUATIONS_ID, EXAMPLE_SOURCE};
use alloc::collections::BTreeMap;
use alloc::vec;
use alloc::vec::Vec;

/// Topic of presets with equation modules.
pub const TOPIC_EQUATIONS: &str = "Equation modules";

/// Mass 1 as equations (Dopri45, the default), mass 2 built in and solved exactly,
/// Jacobi with linear extrapolation at ΔT = 1e-4 s: the same system as the
/// `two-mass-oscillator` preset, so the two runs can be compared side by side.
pub fn equation_mass1() -> Preset {
    let description = "Mass 1 of the two-mass oscillator is written as equations in the scenario \
        itself (the module's source), while mass 2 is the built-in module solved exactly. The \
        source is compiled once to a register program, integrated with Dopri45 and differentiated \
        by automatic differentiation, so its Jacobians are exact. The checker recognises the \
        equations as linear, which is why the monolithic reference (dashed) is still available. \
        Edit the source in the page: a mistake is reported with its line and column.";
    let scenario = Scenario {
        schema_version: SCHEMA_VERSION,
        title: "Equation module: mass 1 written as equations, built-in mass 2".into(),
        description: description.into(),
        modules: vec![
            ModuleSpec {
                name: "mass1".into(),
                model: EQUATIONS_ID.into(),
                parameters: BTreeMap::new(),
                solver: SolverSpec::Default,
                source: Some(EXAMPLE_SOURCE.into()),
            },
            ModuleSpec {
                name: "mass2".into(),
                model: "TwoMassOscillator.Mass2".into(),
                parameters: BTreeMap::new(),
                solver: SolverSpec::Default,
                source: None,
            },
        ],
        connections: vec![
            ConnectionSpec {
                from: "mass2.Fk".into(),
                to: "mass1.Fk".into(),
            },
            ConnectionSpec {
                from: "mass1.s1".into(),
                to: "mass2.s1".into(),
            },
            ConnectionSpec {
                from: "mass1.v1".into(),
                to: "mass2.v1".into(),
            },
        ],
        master: MasterSpec {
            algorithm: Algorithm::Jacobi,
            macro_step: 1e-4,
            extrapolation_order: 1,
            sequence: Vec::new(),
            // Ramp-up works for every source, also after an edit makes it nonlinear.
            start_up: StartUp::RampUp,
            correction: None,
        },
        run: RunSpec {
            start: 0.0,
            stop: 0.1,
        },
        reference: true,
        plot: vec!["mass1.s1".into(), "mass2.Fk".into()],
        analysis: None,
    };
    Preset {
        id: "equation-module-mass1",
        topic: TOPIC_EQUATIONS,
        try_next: "Give mass 1 a hardening spring: add `parameter k3 = 1e9 \"N/m3\"` and write \
                   `der(v) = (-c1*x - k3*x^3 - d1*v + Fk)/m1`; the reference disappears because \
                   the module is no longer linear."
            .into(),
        scenario,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Simulation;

    #[test]
    fn equation_preset_runs_and_matches_its_reference() {
        let p = equation_mass1();
        let v = p.scenario.validate().unwrap_or_else(|e| panic!("{e}"));
        assert!(v.reference_available);
        let mut sim = Simulation::new(&v).unwrap_or_else(|e| panic!("{e}"));
        sim.run_to_end().unwrap_or_else(|e| panic!("{e}"));
        let e = sim.global_nrmse().expect("reference");
        assert!(e < 0.01, "global NRMSE {e}");
        let sentences = p.scenario.description.matches(". ").count() + 1;
        assert!((3..=6).contains(&sentences), "{sentences} sentences");
    }
}
