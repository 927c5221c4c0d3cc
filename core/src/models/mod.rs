//! Built-in modules.
//!
//! - [`LinearStateSpace`]: `x' = A x + B u, y = C x + D u`, solved exactly per step.
//! - [`OdeModule`]: any [`OdeModel`] integrated by RK4 or Dopri45.
//! - [`two_mass_oscillator`]: the test model of seed 000 in both forms;
//!   [`nonlinear_two_mass`]: its subsystem II with the nonlinear damper of seed 000, Sect. 5.
//! - [`contact_oscillator`]: Example 1 of seed 002 (two masses, penalty contact, cubic
//!   coupling element) as three modules.
//! - [`mass_chain`]: the nonlinear mass chain of seed 002 (Example 2) as segments and
//!   cut elements.
//! - [`reference_fmus`]: the FMI Reference FMUs (BouncingBall, Dahlquist, ...) with their
//!   own fixed-step forward-Euler co-simulation wrapper.
//! - [`rotational_oscillator`]: the two slaves of the defect-control example of seed 003,
//!   stepped exactly or by one Euler step per communication step, with midpoint samples.
//! - [`double_oscillator`]: the double linear oscillator of the energy benchmarks (seed
//!   001), reporting its energy, stepped by symplectic Euler.
//! - The other energy benchmarks of seed 001 (docs/energy-benchmarks.md), stepped by
//!   [`stepped`] (one symplectic Euler step per communication step): [`multiple_oscillator`],
//!   [`nonlinear_oscillator`], [`coupled_pendula`], [`hydraulic_crane`].
//! - [`registry`]: every model a scenario's `modules[].model` may name, one [`ModelEntry`]
//!   each (id, summary, parameters, solvers, constructor); [`catalog`] lists them as data.

mod builtin;
mod contact;
pub mod contact_oscillator;
pub mod coupled_pendula;
pub mod double_oscillator;
mod entry;
pub mod equations;
pub mod hydraulic_crane;
mod instance;
mod layout;
mod linear_state_space;
pub mod mass_chain;
pub mod multiple_oscillator;
pub mod nonlinear_oscillator;
pub mod nonlinear_two_mass;
mod ode_module;
mod parameters;
pub mod reference_fmus;
mod registry;
pub mod rotational_oscillator;
mod solver_choice;
pub mod stepped;
pub mod two_mass_oscillator;

#[cfg(test)]
mod exposed_equations_tests;
#[cfg(test)]
mod tests;

pub use contact::{contact_force, EXPONENT_LIMIT as CONTACT_EXPONENT_LIMIT};
pub use entry::{ModelArgs, ModelEntry, ModelInfo, ParameterList};
pub use layout::PortSpec;
pub use linear_state_space::{LinearSpec, LinearStateSpace, MAX_OUTPUT_DERIVATIVE_ORDER};
pub use ode_module::{OdeModel, OdeModule};
pub use parameters::{check as check_parameter, ParameterSet, Range, Slot};
pub use registry::{build, catalog, find, instantiate, registry};
pub use solver_choice::{
    integrator_for, DEFAULT_ATOL, DEFAULT_BDF_ATOL, DEFAULT_BDF_RTOL, DEFAULT_RK4_STEP,
    DEFAULT_RTOL,
};
