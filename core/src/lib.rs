//! # cosim-core
//!
//! All numerics of Cosim Playground: the FMU-like module interface, built-in test models,
//! ODE solvers, coupling graphs, master algorithms, analysis and the scenario format.
//! The crate is `no_std` + `alloc`, so the same code runs natively (CLI, tests, benches)
//! and in WebAssembly (the page's workers).
//!
//! Reading order, from what a user writes to what the numbers mean:
//! 1. [`scenario`]: the JSON a person writes or shares, validated once into a
//!    [`scenario::ValidatedScenario`].
//! 2. [`module`]: the FMI 3.0 co-simulation interface every subsystem implements
//!    ([`module::Module`]), and the [`module::Subsystem`] wrapper that enforces FMI call order.
//! 3. [`models`]: built-in modules (linear state space solved exactly, general ODE modules,
//!    the two-mass oscillator of seed 000).
//! 4. [`solvers`]: integrators and the augmented matrix exponential.
//! 5. [`coupling`]: connections `u = L y`, validated into a [`coupling::CouplingGraph`].
//! 6. [`master`]: master algorithms (explicit Jacobi / Gauss-Seidel with polynomial
//!    extrapolation) and the [`master::Run`] driver that owns time.
//! 7. [`analysis`]: monolithic reference solutions and error metrics.
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
pub mod master;
pub mod models;
pub mod module;
pub mod scenario;
pub mod simulation;
pub mod solvers;
pub mod time;

pub use error::CosimError;
