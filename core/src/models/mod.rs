//! Built-in modules.
//!
//! - [`LinearStateSpace`]: `x' = A x + B u, y = C x + D u`, solved exactly per step.

mod instance;
mod layout;
mod linear_state_space;

pub use layout::PortSpec;
pub use linear_state_space::{LinearSpec, LinearStateSpace, MAX_OUTPUT_DERIVATIVE_ORDER};
