//! Turning module specs into module instances: the one place that knows every kind of
//! module a scenario can hold (built-in models; equation and binary modules later).

use super::schema::ModuleSpec;
use crate::models;
use crate::module::{Module, ModuleError};
use alloc::boxed::Box;

/// Instantiates the module a spec describes (not yet `fmi3InstantiateCoSimulation`d:
/// [`crate::module::Subsystem::instantiate`] does that).
pub fn build_module(spec: &ModuleSpec) -> Result<Box<dyn Module>, ModuleError> {
    #[cfg(feature = "binary-modules")]
    if spec.model == super::binary::BINARY_MODEL {
        return super::binary::build(spec);
    }
    models::build(&spec.model, &spec.model_args())
}
