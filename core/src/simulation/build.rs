//! Turning module specs into module instances: the one place that knows every kind of
//! module a scenario can hold (built-in models from the registry, binary modules from
//! their archive).

use crate::models;
use crate::module::{Module, ModuleError};
use crate::scenario::ModuleSpec;
use alloc::boxed::Box;

/// Instantiates the module a spec describes (not yet `fmi3InstantiateCoSimulation`d:
/// [`crate::module::Subsystem::instantiate`] does that).
pub fn build_module(spec: &ModuleSpec) -> Result<Box<dyn Module>, ModuleError> {
    #[cfg(feature = "binary-modules")]
    if spec.model == crate::scenario::BINARY_MODEL {
        return match crate::scenario::load_binary(spec) {
            Ok(m) => Ok(Box::new(m)),
            Err((_, msg)) => Err(ModuleError::invalid(msg)),
        };
    }
    models::build(&spec.model, &spec.model_args())
}
