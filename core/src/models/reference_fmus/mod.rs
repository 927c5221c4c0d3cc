//! Equivalents of the FMI Reference FMUs (`modelica/Reference-FMUs`, BSD-2-Clause) as
//! built-in modules, one file per model, sharing the Reference FMUs' co-simulation wrapper
//! (`engine`: forward Euler at `fixedInternalStepSize`, event checks after every
//! internal step). Equations, value references, start values, default experiments and
//! capability flags follow docs/methods.md §11.3 and the models' `model.c` / `config.h`;
//! `tests` reproduce the published `*_out.csv` files to the printed digits.
//!
//! Differences from the Reference FMUs (the module interface is Float64-only and has no
//! intermediate-update callback):
//! - `providesIntermediateUpdate`, `canReturnEarlyAfterIntermediateUpdate` and
//!   `providesAdjointDerivatives` are false, so Dahlquist and VanDerPol do not return early
//!   (they only would after an intermediate-update request);
//! - non-Float64 variables are omitted (Feedthrough) or carried as Float64 with discrete
//!   variability (Stair's `counter`); StateSpace's arrays are flattened (see its docs);
//! - BouncingBall's `h_ft` alias (height in feet) is omitted.
//!
//! Each model declares `canHandleVariableCommunicationStepSize`, `fixedInternalStepSize`,
//! `canGetAndSetFMUState` and `canSerializeFMUState` as the Reference FMUs do.

mod bouncing_ball;
mod dahlquist;
mod engine;
mod feedthrough;
mod stair;
mod state_space;
mod van_der_pol;

#[cfg(test)]
mod tests;

use super::entry::{ModelArgs, ModelEntry, ParameterList};
use super::parameters::{check, Range};
use super::solver_choice::default_only;
use crate::module::{
    Capabilities, Causality, DependencyKind, Module, ModuleDescription, ModuleError,
    OutputDependency, ValueRef, Variability, Variable,
};
use crate::solvers::SolverSpec;
use alloc::boxed::Box;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use engine::{RefFmu, RefModel};

/// Model id of the `bouncing_ball` model.
pub const BOUNCING_BALL_ID: &str = "ReferenceFMU.BouncingBall";
/// Model id of the `dahlquist` model.
pub const DAHLQUIST_ID: &str = "ReferenceFMU.Dahlquist";
/// Model id of the `feedthrough` model.
pub const FEEDTHROUGH_ID: &str = "ReferenceFMU.Feedthrough";
/// Model id of the `stair` model.
pub const STAIR_ID: &str = "ReferenceFMU.Stair";
/// Model id of the `state_space` model.
pub const STATE_SPACE_ID: &str = "ReferenceFMU.StateSpace";
/// Model id of the `van_der_pol` model.
pub const VAN_DER_POL_ID: &str = "ReferenceFMU.VanDerPol";

/// One row of a model's variable table: name, value reference, causality, variability,
/// start value, unit, description.
type VarRow = (
    &'static str,
    u32,
    Causality,
    Variability,
    Option<f64>,
    &'static str,
    &'static str,
);

/// A variable with a description.
fn var(
    name: &str,
    vr: u32,
    causality: Causality,
    variability: Variability,
    start: Option<f64>,
    unit: &str,
    description: &str,
) -> Variable {
    Variable::new(name, vr, causality, variability, start, unit).described(description)
}

/// `time` (value reference 0), which every Reference FMU declares first.
const TIME: VarRow = (
    "time",
    0,
    Causality::Independent,
    Variability::Continuous,
    None,
    "s",
    "simulation time",
);

/// `time`, then `rows`.
fn variables_of(rows: &[VarRow]) -> Vec<Variable> {
    core::iter::once(&TIME)
        .chain(rows)
        .map(|&(name, vr, c, v, start, unit, text)| var(name, vr, c, v, start, unit, text))
        .collect()
}

/// A model's description: every output depends on the inputs `feedthrough` pairs it with
/// (`(output, input)` value references, kind `constant`), in the order listed.
fn describe(
    model_name: &str,
    variables: Vec<Variable>,
    capabilities: Capabilities,
    feedthrough: &[(u32, u32)],
) -> ModuleDescription {
    let output_dependencies = variables
        .iter()
        .filter(|v| v.causality == Causality::Output)
        .map(|v| OutputDependency {
            output: v.value_ref,
            inputs: feedthrough
                .iter()
                .filter(|(output, _)| *output == v.value_ref.0)
                .map(|&(_, input)| (ValueRef(input), DependencyKind::Constant))
                .collect(),
        })
        .collect();
    ModuleDescription {
        model_name: model_name.into(),
        variables,
        capabilities,
        output_dependencies,
    }
}

/// Flags every Reference FMU declares in its `<CoSimulation>` element (as far as this
/// interface can honour them).
fn base_capabilities(fixed_step: f64) -> Capabilities {
    Capabilities {
        can_handle_variable_communication_step_size: true,
        fixed_internal_step_size: Some(fixed_step),
        can_get_and_set_fmu_state: true,
        can_serialize_fmu_state: true,
        ..Capabilities::default()
    }
}

/// Parameters and state start values a scenario may set by name: causality `Parameter`
/// (not constant) and outputs or locals with a start value that are states.
fn settable<M: RefModel>() -> Vec<Variable> {
    let d = M::description();
    let states: Vec<String> = d.states().iter().map(|(x, _)| x.name.clone()).collect();
    d.variables
        .iter()
        .filter(|v| {
            (v.causality == Causality::Parameter && v.variability != Variability::Constant)
                || states.contains(&v.name)
        })
        .cloned()
        .collect()
}

/// The registry entry of one Reference FMU equivalent: its own solver only.
const fn entry<M: RefModel>(summary: &'static str) -> ModelEntry {
    ModelEntry {
        id: M::MODEL_NAME,
        summary,
        parameters: ParameterList::Fixed(settable::<M>),
        solvers: default_only,
        construct: build::<M>,
    }
}

/// Registry entry of BouncingBall.
pub(super) const BOUNCING_BALL_ENTRY: ModelEntry = entry::<bouncing_ball::BouncingBall>(
    "Reference FMU BouncingBall: a ball dropped from 1 m bounces with restitution e; state event \
     at h = 0 located to the 1 ms Euler step, early return and Event Mode; outputs h, v.",
);
/// Registry entry of Dahlquist.
pub(super) const DAHLQUIST_ENTRY: ModelEntry = entry::<dahlquist::Dahlquist>(
    "Reference FMU Dahlquist: der(x) = -k x integrated by forward Euler with a fixed 0.1 s step \
     (x(n 0.1) = 0.9^n); output x.",
);
/// Registry entry of VanDerPol.
pub(super) const VAN_DER_POL_ENTRY: ModelEntry = entry::<van_der_pol::VanDerPol>(
    "Reference FMU VanDerPol: the Van der Pol oscillator (mu = 1) by forward Euler with a fixed \
     10 ms step; exact directional derivatives; outputs x0, x1.",
);
/// Registry entry of Stair.
pub(super) const STAIR_ENTRY: ModelEntry = entry::<stair::Stair>(
    "Reference FMU Stair: a counter incremented by a time event every second; asks to terminate \
     the simulation at 10; output counter.",
);
/// Registry entry of Feedthrough.
pub(super) const FEEDTHROUGH_ENTRY: ModelEntry = entry::<feedthrough::Feedthrough>(
    "Reference FMU Feedthrough (Float64 part): each output equals its input immediately \
     (direct feedthrough); continuous and discrete pairs.",
);
/// Registry entry of StateSpace.
pub(super) const STATE_SPACE_ENTRY: ModelEntry = entry::<state_space::StateSpace>(
    "Reference FMU StateSpace: der(x) = A x + B u, y = C x + D u with A = B = C = D = I3, \
     u = [1, 2, 3], forward Euler with a fixed 1 ms step.",
);

/// Builds one model from a scenario entry. Parameters are checked by name (finite; `e` of
/// BouncingBall within 0.5…1 as the FMU declares); the solver must be `default`.
fn build<M: RefModel>(args: &ModelArgs<'_>) -> Result<Box<dyn Module>, ModuleError> {
    let d = M::description();
    if *args.solver != SolverSpec::Default {
        return Err(ModuleError::invalid(format!(
            "{} integrates with its own fixed-step forward Euler (like the Reference FMU); \
             its solver must be `default`",
            d.model_name
        )));
    }
    let params = args.parameters;
    let allowed = settable::<M>();
    let mut overrides = Vec::with_capacity(params.len());
    for (name, &value) in params {
        if !allowed.iter().any(|v| v.name == *name) {
            let known: Vec<&str> = allowed.iter().map(|v| v.name.as_str()).collect();
            return Err(ModuleError::invalid(format!(
                "parameter `{name}`: {} has no parameter or state of this name (known: {})",
                d.model_name,
                known.join(", ")
            )));
        }
        let value = check(name, value, Range::Finite)?;
        if d.model_name == BOUNCING_BALL_ID && name == "e" && !(0.5..=1.0).contains(&value) {
            return Err(ModuleError::invalid(format!(
                "parameter `e`: expected a number from 0.5 to 1, got {value}"
            )));
        }
        let slot = d
            .variables
            .iter()
            .position(|v| v.name == *name)
            .unwrap_or_default();
        overrides.push((slot, value));
    }
    Ok(Box::new(RefFmu::<M>::new(&overrides)))
}
