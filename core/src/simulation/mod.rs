//! The composition root: where a validated scenario becomes a running system. It is the
//! only layer that knows both the scenario format and the parts it assembles.
//!
//! - [`build_module`]: a module spec into a module (built-in models from the registry,
//!   binary modules from their archive).
//! - [`Simulation`]: the modules coupled, initialised and stepped by the scenario's master,
//!   with recorded outputs and the monolithic reference; what the CLI and the page's
//!   worker drive.
//! - `LinearAnalysis::new`: the scenario's linear blocks, coupling and method for
//!   propagation-matrix analysis, with the module specs as the sweeps' [`ModuleFactory`]
//!   (defined here, on the analysis type, because only this layer can read a scenario).
//!
//! [`ModuleFactory`]: crate::analysis::sweep::ModuleFactory

mod build;
mod chain_reference;
#[cfg(test)]
mod chain_tests;
mod csv;
mod energy;
#[cfg(test)]
mod energy_tests;
#[cfg(test)]
mod error_control_example1_tests;
#[cfg(test)]
mod error_control_tests;
#[cfg(test)]
mod implicit_example1_tests;
#[cfg(test)]
mod implicit_tests;
mod linear_analysis;
mod module_alone;
mod reference;
mod run;
#[cfg(test)]
mod stop_time_tests;
mod summary;
mod texts;

#[cfg(test)]
mod reference_tests;

pub use build::build_module;
pub use chain_reference::{ChainReference, CHAIN_REFERENCE_ATOL, CHAIN_REFERENCE_RTOL};
pub use energy::EnergySummary;
pub use module_alone::ModuleAlone;
pub use run::{Signal, Simulation, SimulationResult, StepColumns};
pub use summary::{coupling_body_error, summary};
pub use texts::TextSignal;
