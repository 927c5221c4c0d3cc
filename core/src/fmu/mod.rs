//! Binary modules: FMI 3.0 co-simulation FMUs compiled to wasm32 and packaged as `.fmu`
//! archives (`modelDescription.xml` + `binaries/wasm32/<modelIdentifier>.wasm`), run in
//! the pure-Rust `wasmi` interpreter. Because the interpreter is part of this crate, the
//! same `.fmu` gives identical numbers in the CLI and in the page's worker (wasm in wasm).
//!
//! - [`archive`]: zip reading (stored and deflated entries, CRC-checked, size-limited).
//! - [`model_description`]: `modelDescription.xml` into a [`crate::module::ModuleDescription`].
//! - [`BinaryModule`]: [`crate::module::Module`] and the declared capability traits over
//!   the module's `fmi3*` exports; ABI reference in `docs/modules.md`.

mod abi;
pub mod archive;
mod binary_module;
mod budget;
mod capabilities;
mod error;
pub mod model_description;
mod parameters;
mod runtime;
mod typed_access;
mod typed_values;
pub mod typed_ports;
pub mod variable_types;
mod wasi;
mod wasi_fs;

pub use binary_module::BinaryModule;
pub use budget::{MemoryBudget, DEFAULT_BUDGET_BYTES};
pub use error::FmuError;
pub use model_description::ModelDescription;
pub use runtime::RuntimeLimits;
pub use typed_values::TypedValues;
pub use variable_types::VariableType;
pub use wasi::{MAX_BYTES_PER_CALL, WASI_PROVIDED};

#[cfg(test)]
mod tests;
#[cfg(test)]
mod typed_tests;
