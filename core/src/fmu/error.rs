//! [`FmuError`]: why a `.fmu` could not be loaded. Each variant names the file, element or
//! export to fix; run-time failures of a loaded module are [`crate::module::ModuleError`]s.

use alloc::string::String;
use core::fmt;

/// A `.fmu` that cannot be used as a binary module.
#[derive(Clone, Debug, PartialEq)]
pub enum FmuError {
    /// The bytes are not a readable zip archive.
    Archive(String),
    /// A file the archive must contain is missing (its name in backticks, then context).
    MissingEntry(String),
    /// `modelDescription.xml` is not well-formed XML.
    Xml(String),
    /// `modelDescription.xml` is well-formed but not a usable FMI 3.0 description.
    ModelDescription(String),
    /// `binaries/wasm32/<modelIdentifier>.wasm` is not a valid WebAssembly module.
    Wasm(String),
    /// The module lacks an export the ABI requires (or its flags promise).
    MissingExport {
        /// Export name.
        name: String,
        /// Why it is needed.
        needed_by: String,
    },
    /// An export exists but has the wrong kind or type.
    WrongSignature {
        /// Export name.
        name: String,
        /// The type the module exports, e.g. `(i32) -> i32`.
        found: String,
        /// The type the ABI requires.
        expected: String,
    },
    /// The module imports something the host does not provide.
    UnsupportedImport(String),
    /// The module needs more memory or a larger table than its limits allow.
    Limit(String),
    /// The module trapped while being set up (`_initialize`, start function).
    Trap(String),
    /// A scenario parameter does not name a settable variable.
    Parameter(String),
}

impl fmt::Display for FmuError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FmuError::Archive(m) => write!(f, "not a readable .fmu (zip) archive: {m}"),
            FmuError::MissingEntry(name) => write!(f, "the .fmu has no {name}"),
            FmuError::Xml(m) => write!(f, "modelDescription.xml is not well-formed XML: {m}"),
            FmuError::ModelDescription(m) => write!(f, "modelDescription.xml: {m}"),
            FmuError::Wasm(m) => write!(f, "the wasm binary is not a valid WebAssembly module: {m}"),
            FmuError::MissingExport { name, needed_by } => {
                write!(f, "the wasm binary does not export `{name}` (needed by {needed_by})")
            }
            FmuError::WrongSignature { name, found, expected } => write!(
                f,
                "the wasm export `{name}` has type {found}; the FMI 3.0 wasm32 ABI requires {expected}"
            ),
            FmuError::UnsupportedImport(m) => write!(f, "the wasm binary imports {m}"),
            FmuError::Trap(m) => write!(f, "the wasm binary trapped while loading: {m}"),
            FmuError::Limit(m) => write!(f, "the wasm binary cannot be loaded: {m}"),
            FmuError::Parameter(m) => f.write_str(m),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for FmuError {}
