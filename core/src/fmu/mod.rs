//! Binary modules: FMI 3.0 co-simulation FMUs compiled to wasm32 and packaged as `.fmu`
//! archives (`modelDescription.xml` + `binaries/wasm32/<modelIdentifier>.wasm`), run in
//! a [`Sandbox`]: the pure-Rust `wasmi` interpreter natively (feature `wasmi`), the
//! browser's own WebAssembly engine in the page. Both run the same WASI host code
//! ([`wasi`]), so one `.fmu` gives identical numbers in the CLI and in the page.
//!
//! - [`sandbox`]: the host trait an engine implements ([`Sandbox`], [`GuestInstance`]).
//! - [`archive`]: zip reading (stored and deflated entries, CRC-checked, size-limited).
//! - [`model_description`]: `modelDescription.xml` into a [`crate::module::ModuleDescription`].
//! - [`BinaryModule`]: [`crate::module::Module`] and the declared capability traits over
//!   the module's `fmi3*` exports; ABI reference in `docs/modules.md`.
//! - `clocks`: input and output Clock ports in Event Mode, periodic input clocks the
//!   master ticks (`clock_schedule`: the time-based ones); `text_outputs`: String and
//!   Binary outputs read for the record.

mod abi;
pub mod archive;
mod binary_module;
mod budget;
mod capabilities;
mod clock_schedule;
mod clocks;
mod error;
pub mod model_description;
pub mod parameter_list;
mod parameters;
mod runtime;
pub mod sandbox;
mod step_io;
mod text_outputs;
mod typed_access;
pub mod typed_ports;
mod typed_values;
pub mod variable_types;
pub mod wasi;
mod wasi_fs;
mod wasi_host;
mod wasm_hooks;
mod wasm_instructions;
pub mod wasm_limits;
pub mod wasm_sections;
#[cfg(feature = "wasmi")]
mod wasmi_engine;

pub use binary_module::BinaryModule;
pub use budget::{MemoryAccount, MemoryBudget, DEFAULT_BUDGET_BYTES, TABLE_ELEMENT_BYTES};
pub use error::FmuError;
pub use model_description::ModelDescription;
pub use runtime::RuntimeLimits;
pub use sandbox::{set_sandbox, GuestInstance, GuestMemory, Sandbox};
pub use typed_values::TypedValues;
pub use variable_types::VariableType;
pub use wasi::{MAX_BYTES_PER_CALL, WASI_PROVIDED};
pub use wasi_fs::ResourceTree;
#[cfg(feature = "wasmi")]
pub use wasmi_engine::WasmiSandbox;

#[cfg(test)]
mod clock_kind_tests;
#[cfg(test)]
mod clock_tests;
#[cfg(test)]
mod clock_timing_tests;
#[cfg(test)]
mod sandbox_tests;
#[cfg(test)]
mod step_io_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod typed_tests;
#[cfg(all(test, feature = "wasmi"))]
mod wasm_limits_tests;
