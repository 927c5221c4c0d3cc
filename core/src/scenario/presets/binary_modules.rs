//! Presets with binary modules: the example `.fmu`s built from `examples/fmus/` by
//! `cargo xtask wasm` (into `www/fmus/`, where the page fetches them after asking), each
//! coupled with a built-in half of seed 000's two-mass oscillator (digest §5.1), so a run
//! can be set beside the `two-mass-oscillator` presets.

use super::super::binary::BINARY_MODEL;
use super::super::schema::{
    Algorithm, ConnectionSpec, MasterSpec, ModuleSpec, RunSpec, Scenario, SolverSpec, StartUp,
    SCHEMA_VERSION,
};
use super::Preset;
use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

/// Topic of presets with binary modules.
pub const TOPIC_BINARY: &str = "Binary modules (FMI 3.0 .fmu, wasm32)";
/// Where the page finds the Rust example (relative to the page; the CLI resolves it
/// relative to the scenario file, then the working directory).
pub const RUST_OSCILLATOR_FMU: &str = "fmus/rust_oscillator.fmu";
/// Where the page finds the C example.
pub const C_SPRING_DAMPER_FMU: &str = "fmus/c_spring_damper.fmu";

fn module(name: &str, model: &str, source: Option<&str>) -> ModuleSpec {
    ModuleSpec {
        name: name.into(),
        model: model.into(),
        parameters: BTreeMap::new(),
        solver: SolverSpec::Default,
        source: source.map(String::from),
    }
}

fn two_mass(
    title: &str,
    description: &str,
    mass1: ModuleSpec,
    mass2: ModuleSpec,
    algorithm: Algorithm,
) -> Scenario {
    let connect = |from: &str, to: &str| ConnectionSpec {
        from: from.into(),
        to: to.into(),
    };
    Scenario {
        schema_version: SCHEMA_VERSION,
        title: title.into(),
        description: description.into(),
        modules: vec![mass1, mass2],
        connections: vec![
            connect("mass2.Fk", "mass1.Fk"),
            connect("mass1.s1", "mass2.s1"),
            connect("mass1.v1", "mass2.v1"),
        ],
        master: MasterSpec {
            algorithm,
            macro_step: 1e-4,
            // FMI 3.0 has no input derivatives, so binary modules take held inputs (ZOH).
            extrapolation_order: 0,
            sequence: Vec::new(),
            start_up: StartUp::RampUp,
            correction: None,
        },
        run: RunSpec {
            start: 0.0,
            stop: 0.1,
        },
        // A binary module is a black box: no exact monolithic reference exists.
        reference: false,
        plot: vec!["mass1.s1".into(), "mass2.Fk".into()],
        analysis: None,
    }
}

/// The binary-module presets, in picker order.
pub fn binary_presets() -> Vec<Preset> {
    vec![
        Preset {
            id: "binary-rust-oscillator",
            topic: TOPIC_BINARY,
            try_next: "Run the two-mass-oscillator preset with extrapolation order 0 and compare: \
                       the binary mass 1 integrates with RK4 micro-steps, so the curves agree to \
                       about 1e-12 m."
                .into(),
            scenario: two_mass(
                "Binary module in Rust: mass 1 as a wasm32 .fmu, built-in mass 2",
                "Mass 1 of the two-mass oscillator is a binary module: Rust code compiled to \
                 WebAssembly and packaged as an FMI 3.0 .fmu (examples/fmus/rust_oscillator). \
                 The page and the CLI run the same file in the same interpreter, so both give \
                 identical numbers. The module declares FMU state, directional derivatives and \
                 first output derivatives in its modelDescription.xml; mass 2 is the built-in \
                 module, solved exactly. Inputs are held over each macro-step because FMI 3.0 \
                 modules take no input derivatives.",
                module("mass1", BINARY_MODEL, Some(RUST_OSCILLATOR_FMU)),
                module("mass2", "TwoMassOscillator.Mass2", None),
                Algorithm::Jacobi,
            ),
        },
        Preset {
            id: "binary-c-spring-damper",
            topic: TOPIC_BINARY,
            try_next: "Replace mass 1 by the Rust binary module too: both halves then run as \
                       .fmu files, and the Gauss-Seidel order still decides which sees new values."
                .into(),
            scenario: two_mass(
                "Binary module in C: built-in mass 1, mass 2 with the coupling as a wasm32 .fmu",
                "Mass 2 with the coupling spring-damper is a binary module written in plain C \
                 (examples/fmus/c_spring_damper) and compiled with clang for wasm32-wasi: the \
                 same FMI 3.0 source would build a native FMU. Its coupling force depends \
                 directly on the inputs s1 and v1, as its ModelStructure declares, so \
                 Gauss-Seidel steps mass 1 first. It is a deliberately weak module: no FMU \
                 state and no derivatives, so algorithms that need rollback or Jacobians refuse it.",
                module("mass1", "TwoMassOscillator.Mass1", None),
                module("mass2", BINARY_MODEL, Some(C_SPRING_DAMPER_FMU)),
                Algorithm::GaussSeidel,
            ),
        },
    ]
}
