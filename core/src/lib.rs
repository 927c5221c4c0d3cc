//! # cosim-core
//!
//! All numerics of Cosim Playground: the FMU-like module interface, built-in test models,
//! ODE solvers, coupling graphs, master algorithms, analysis, the scenario format and the
//! composition root that runs a scenario.
//! The crate is `no_std` + `alloc`, so the same code runs natively (CLI, tests, benches)
//! and in WebAssembly (the page's workers).
//!
//! Reading order, from what a user writes to what the numbers mean:
//! 1. [`scenario`]: the JSON a person writes or shares, validated once into a
//!    [`scenario::ValidatedScenario`].
//! 2. [`simulation`]: the composition root that turns a validated scenario into running
//!    modules ([`simulation::Simulation`]) or a linear analysis.
//! 3. [`module`]: the FMI 3.0 co-simulation interface every subsystem implements
//!    ([`module::Module`]), and the [`module::Subsystem`] wrapper that enforces FMI call order.
//! 4. [`models`]: built-in modules (linear state space solved exactly, general ODE modules,
//!    equation modules, the two-mass oscillator of seed 000, Reference FMU equivalents) and
//!    the model registry; `fmu` (feature `binary-modules`): modules loaded from `.fmu` files.
//! 5. [`solvers`]: integrators and the augmented matrix exponential.
//! 6. [`coupling`]: connections `u = L y`, validated into a [`coupling::CouplingGraph`].
//! 7. [`master`]: master algorithms (explicit Jacobi / Gauss-Seidel with polynomial
//!    extrapolation, model-based correction) and the [`master::Run`] driver that owns time.
//! 8. [`analysis`]: monolithic reference solutions, error metrics, propagation matrices
//!    and parameter sweeps.
//!
//! Layers, bottom first (each folder imports only folders before it; `docs/architecture.md`
//! and a tidy test in `xtask` hold the rule): [`time`] / [`limits`] → [`module`] → [`error`] →
//! [`solvers`] → [`models`] / `fmu` → [`coupling`] → [`master`] → [`analysis`] →
//! [`scenario`] → [`simulation`].
#![no_std]
#![warn(missing_docs)]

extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

pub mod analysis;
pub mod coupling;
pub mod error;
#[cfg(feature = "binary-modules")]
pub mod fmu;
pub mod limits;
pub mod master;
pub mod models;
pub mod module;
pub mod scenario;
pub mod simulation;
pub mod solvers;
#[cfg(feature = "binary-modules")]
pub mod ssp;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
pub mod time;

pub use error::CosimError;
