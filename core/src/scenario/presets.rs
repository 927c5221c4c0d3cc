//! Built-in scenarios. Each is plain data with a description of what it shows (3 to 6
//! sentences, plain text), a topic that groups it in the page's picker, and a "try this
//! next" suggestion the page shows under the description.

use super::schema::{
    Algorithm, ConnectionSpec, MasterSpec, ModuleSpec, RunSpec, Scenario, SolverSpec, StartUp,
    SCHEMA_VERSION,
};
use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

mod binary_modules;
mod equation_module;
mod model_based_correction;
mod reference_fmus;
mod seed000_analysis;

/// A named built-in scenario.
#[derive(Clone, Debug)]
pub struct Preset {
    /// Identifier used by `cosim preset ID`, the page's picker and links (`#preset=ID`).
    pub id: &'static str,
    /// Group in the page's picker, e.g. [`TOPIC_TWO_MASS`]; presets of one topic are listed
    /// together, in the order of [`presets`].
    pub topic: &'static str,
    /// What to change next and what to look for, one or two sentences of plain text
    /// (not part of the scenario JSON: a shared link carries the scenario only).
    pub try_next: String,
    /// The scenario.
    pub scenario: Scenario,
}

/// Topic of the linear two-mass oscillator presets (seed 000).
pub const TOPIC_TWO_MASS: &str = "Two-mass oscillator (linear, seed 000)";

/// All built-in presets; the first is the page's default.
pub fn presets() -> Vec<Preset> {
    vec![
        Preset {
            id: "two-mass-oscillator",
            topic: TOPIC_TWO_MASS,
            try_next: "Raise the extrapolation order one step at a time and watch the global \
                       error fall, then double the macro-step until the response blows up."
                .into(),
            scenario: two_mass(Algorithm::Jacobi, 1, 1e-4, SolverSpec::Default),
        },
        Preset {
            id: "two-mass-gauss-seidel",
            topic: TOPIC_TWO_MASS,
            try_next: "Switch the scheme to Jacobi at the same macro-step and compare the global \
                       error; then swap the Gauss-Seidel order to mass2, mass1."
                .into(),
            scenario: two_mass(Algorithm::GaussSeidel, 0, 1e-5, SolverSpec::Default),
        },
        Preset {
            id: "two-mass-rk4",
            topic: TOPIC_TWO_MASS,
            try_next: "Shrink the RK4 micro-step of both modules and see where the error stops \
                       improving: below that, coupling error dominates."
                .into(),
            scenario: two_mass(Algorithm::Jacobi, 2, 1e-4, SolverSpec::Rk4 { step: 1e-5 }),
        },
        equation_module::equation_mass1(),
    ]
    .into_iter()
    .chain(model_based_correction::correction_presets())
    .chain(seed000_analysis::analysis_presets())
    .chain(reference_fmus::reference_presets())
    .chain(binary_modules::binary_presets())
    .collect()
}

/// The preset with this id.
pub fn preset(id: &str) -> Option<Scenario> {
    presets()
        .into_iter()
        .find(|p| p.id == id)
        .map(|p| p.scenario)
}

/// Seed 000's linear two-mass oscillator with force-displacement coupling (digest §5.1):
/// subsystem I (mass 1) outputs its position and velocity, subsystem II (mass 2 with the
/// coupling spring-damper) outputs the coupling force.
fn two_mass(algorithm: Algorithm, order: u32, h: f64, solver: SolverSpec) -> Scenario {
    let scheme = match algorithm {
        Algorithm::Jacobi => "Jacobi (parallel)",
        Algorithm::GaussSeidel => "Gauss-Seidel (mass 1 first)",
    };
    let hold = [
        "zero-order hold",
        "first-order (linear)",
        "second-order",
        "third-order",
        "fourth-order",
    ][order as usize];
    let exact = matches!(solver, SolverSpec::Default | SolverSpec::Exact);
    let integrator = if exact {
        "Both subsystems are solved exactly over each macro-step, so every difference from the \
         reference is coupling error."
    } else {
        "Both subsystems integrate with RK4 micro-steps, so the error mixes coupling and \
         integration error."
    };
    let mut description = String::from(
        "Two masses joined by a stiff spring-damper (c_k = 2e5 N/m, d_k = 500 N·s/m), split into \
         two subsystems at the coupling: mass 1 sends its position and velocity, mass 2 returns \
         the coupling force. ",
    );
    description.push_str(integrator);
    description.push_str(
        " The dashed line is the monolithic reference: the whole system solved exactly, \
         without splitting.",
    );
    Scenario {
        schema_version: SCHEMA_VERSION,
        title: alloc::format!("Two-mass oscillator: {scheme}, {hold}, ΔT = {h:e} s"),
        description,
        modules: vec![
            ModuleSpec {
                name: "mass1".into(),
                model: "TwoMassOscillator.Mass1".into(),
                parameters: BTreeMap::new(),
                solver: solver.clone(),
                source: None,
            },
            ModuleSpec {
                name: "mass2".into(),
                model: "TwoMassOscillator.Mass2".into(),
                parameters: BTreeMap::new(),
                solver,
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
            algorithm,
            macro_step: h,
            extrapolation_order: order,
            sequence: Vec::new(),
            start_up: if exact {
                StartUp::ExactHistory
            } else {
                StartUp::RampUp
            },
            correction: None,
        },
        run: RunSpec {
            start: 0.0,
            stop: 0.1,
        },
        reference: true,
        plot: vec!["mass1.s1".into(), "mass2.Fk".into()],
        analysis: None,
    }
}
