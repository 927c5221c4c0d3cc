//! Test doubles every layer's tests, `tests/` and the benches can use (feature `testing`;
//! always on in this crate's own tests):
//! - [`mock::MockModule`]: a module built from closures with exactly predictable outputs;
//! - step controllers that reject chosen attempts, so the driver's rollback path is
//!   exercised against runs that never tried them;
//! - [`polynomial::PolynomialProbe`]: modules with polynomial behaviour and every
//!   capability the defect master needs, which refuse and count state calls;
//! - [`ssp::TwoMasses`]: hand-written SSP archives of the two example FMUs (feature
//!   `binary-modules`), for the SSP tests of the core and the CLI.

mod controllers;
pub mod mock;
pub mod polynomial;
#[cfg(feature = "binary-modules")]
pub mod ssp;

pub use controllers::{
    EveryNth, LargerFirst, RejectEvery, RejectFirstTry, Rejecting, RejectionPolicy,
};
