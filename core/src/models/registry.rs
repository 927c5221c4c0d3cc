//! The model registry: every model a scenario's `modules[].model` may name, each as one
//! [`ModelEntry`] (id, summary, settable parameters, solvers, constructor). A model defines
//! its entry next to its equations; registering it is one line in [`MODELS`]. The catalog
//! the page and the CLI list ([`catalog`]), validation and module building all read this
//! list. Binary modules (model `Binary`) are not built-in models: the scenario layer
//! loads them from their archive.

use super::contact_oscillator;
use super::coupled_pendula;
use super::double_oscillator;
use super::entry::{ModelArgs, ModelEntry, ModelInfo, ParameterList};
use super::equations;
use super::hydraulic_crane;
use super::mass_chain;
use super::multiple_oscillator;
use super::nonlinear_oscillator;
use super::nonlinear_two_mass;
use super::reference_fmus;
use super::rotational_oscillator;
use super::two_mass_oscillator;
use crate::module::{Module, ModuleError};
use crate::solvers::SolverSpec;
use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// Every built-in model, in the order the catalog lists them.
static MODELS: [ModelEntry; 28] = [
    two_mass_oscillator::MASS1_ENTRY,
    two_mass_oscillator::MASS2_ENTRY,
    nonlinear_two_mass::ENTRY,
    contact_oscillator::BODY1_ENTRY,
    contact_oscillator::BODY2_ENTRY,
    contact_oscillator::COUPLING_ENTRY,
    mass_chain::SEGMENT_ENTRY,
    mass_chain::CUT_ENTRY,
    equations::ENTRY,
    reference_fmus::BOUNCING_BALL_ENTRY,
    reference_fmus::DAHLQUIST_ENTRY,
    reference_fmus::VAN_DER_POL_ENTRY,
    reference_fmus::STAIR_ENTRY,
    reference_fmus::FEEDTHROUGH_ENTRY,
    reference_fmus::STATE_SPACE_ENTRY,
    rotational_oscillator::TAU2OMEGA_ENTRY,
    rotational_oscillator::OMEGA2TAU_ENTRY,
    double_oscillator::MASS1_ENTRY,
    double_oscillator::MASS2_ENTRY,
    multiple_oscillator::MASS_ENTRY,
    multiple_oscillator::TIP2_ENTRY,
    multiple_oscillator::TIP4_ENTRY,
    nonlinear_oscillator::MASS1_ENTRY,
    nonlinear_oscillator::MASS2_ENTRY,
    coupled_pendula::PENDULUM1_ENTRY,
    coupled_pendula::PENDULUM2_ENTRY,
    hydraulic_crane::MECHANICS_ENTRY,
    hydraulic_crane::HYDRAULICS_ENTRY,
];

/// Every built-in model.
pub fn registry() -> &'static [ModelEntry] {
    &MODELS
}

/// The model with this id.
pub fn find(id: &str) -> Option<&'static ModelEntry> {
    MODELS.iter().find(|m| m.id == id)
}

/// Builds model `id` from a scenario entry; an unknown id is an error listing the known ones.
pub fn build(id: &str, args: &ModelArgs<'_>) -> Result<Box<dyn Module>, ModuleError> {
    match find(id) {
        Some(model) => model.build(args),
        None => {
            let known: Vec<&str> = MODELS.iter().map(|m| m.id).collect();
            Err(ModuleError::invalid(format!(
                "unknown model `{id}` (known: {})",
                known.join(", ")
            )))
        }
    }
}

/// Builds model `id` as the catalog lists it, with parameter/start values from `params`
/// and the chosen solver (a model written in a source gets its example).
pub fn instantiate(
    id: &str,
    params: &BTreeMap<String, f64>,
    solver: &SolverSpec,
) -> Result<Box<dyn Module>, ModuleError> {
    let source = match find(id).map(|m| m.parameters) {
        Some(ParameterList::FromSource { example, .. }) => Some(example),
        _ => None,
    };
    build(
        id,
        &ModelArgs {
            parameters: params,
            solver,
            source,
        },
    )
}

/// All built-in models as data.
pub fn catalog() -> Vec<ModelInfo> {
    MODELS.iter().map(ModelEntry::info).collect()
}
