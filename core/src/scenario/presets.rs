//! Built-in scenarios. Each is plain data with a description of what it shows.

use super::schema::{
    Algorithm, ConnectionSpec, MasterSpec, ModuleSpec, RunSpec, Scenario, SolverSpec, StartUp,
    SCHEMA_VERSION,
};
use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

/// A named built-in scenario.
#[derive(Clone, Debug)]
pub struct Preset {
    /// Identifier used by `cosim preset ID` and the page.
    pub id: &'static str,
    /// The scenario.
    pub scenario: Scenario,
}

/// All built-in presets; the first is the page's default.
pub fn presets() -> Vec<Preset> {
    vec![
        Preset { id: "two-mass-oscillator", scenario: two_mass(Algorithm::Jacobi, 1, 1e-4, SolverSpec::Default) },
        Preset {
            id: "two-mass-gauss-seidel",
            scenario: two_mass(Algorithm::GaussSeidel, 0, 1e-5, SolverSpec::Default),
        },
        Preset {
            id: "two-mass-rk4",
            scenario: two_mass(Algorithm::Jacobi, 2, 1e-4, SolverSpec::Rk4 { step: 1e-5 }),
        },
    ]
}

/// The preset with this id.
pub fn preset(id: &str) -> Option<Scenario> {
    presets().into_iter().find(|p| p.id == id).map(|p| p.scenario)
}

/// Seed 000's linear two-mass oscillator with force-displacement coupling (digest §5.1):
/// subsystem I (mass 1) outputs its position and velocity, subsystem II (mass 2 with the
/// coupling spring-damper) outputs the coupling force.
fn two_mass(algorithm: Algorithm, order: u32, h: f64, solver: SolverSpec) -> Scenario {
    let scheme = match algorithm {
        Algorithm::Jacobi => "Jacobi (parallel)",
        Algorithm::GaussSeidel => "Gauss-Seidel (mass 1 first)",
    };
    let hold = ["zero-order hold", "first-order (linear)", "second-order", "third-order", "fourth-order"]
        [order as usize];
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
        " Try next: raise the extrapolation order one step at a time and watch the global error, \
         or double the macro-step until the response blows up.",
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
            ConnectionSpec { from: "mass2.Fk".into(), to: "mass1.Fk".into() },
            ConnectionSpec { from: "mass1.s1".into(), to: "mass2.s1".into() },
            ConnectionSpec { from: "mass1.v1".into(), to: "mass2.v1".into() },
        ],
        master: MasterSpec {
            algorithm,
            macro_step: h,
            extrapolation_order: order,
            sequence: Vec::new(),
            start_up: if exact { StartUp::ExactHistory } else { StartUp::RampUp },
            correction: None,
        },
        run: RunSpec { start: 0.0, stop: 0.1 },
        reference: true,
        plot: vec!["mass1.s1".into(), "mass2.Fk".into()],
        analysis: None,
    }
}
