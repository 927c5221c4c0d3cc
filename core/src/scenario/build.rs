//! Turning module specs into module instances: the one place that knows every kind of
//! module a scenario can hold (built-in models; equation and binary modules later).

use super::schema::ModuleSpec;
use crate::models;
use crate::module::{Module, ModuleError};
use alloc::boxed::Box;

/// Instantiates the module a spec describes (not yet `fmi3InstantiateCoSimulation`d:
/// [`crate::module::Subsystem::instantiate`] does that).
pub fn build_module(spec: &ModuleSpec) -> Result<Box<dyn Module>, ModuleError> {
    if spec.model == models::equations::EQUATIONS_ID {
        let source = spec.source.as_deref().ok_or_else(|| {
            ModuleError::invalid("model `Equations` needs a `source` with its equations")
        })?;
        return models::equations::build(source, &spec.parameters, &spec.solver);
    }
    #[cfg(feature = "binary-modules")]
    if spec.model == super::binary::BINARY_MODEL {
        return super::binary::build(spec);
    }
    models::instantiate(&spec.model, &spec.parameters, &spec.solver)
}
