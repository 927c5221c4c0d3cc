//! The FMU-like module interface (FMI 3.0 co-simulation semantics).
//!
//! Implementors write [`Module`]: the base calls every module has (initialisation,
//! get/set Float64 by value reference, `do_step`, terminate). Optional capabilities are
//! separate small traits reached through accessors on [`Module`] ([`StateSnapshot`],
//! [`DirectionalDerivatives`], [`OutputDerivatives`], [`InputDerivatives`], [`EventMode`],
//! [`ExposedEquations`]);
//! a missing capability is `None`, never a body that panics. Each capability is also
//! declared as a flag in [`Capabilities`] under its FMI 3.0 name (extensions prefixed `x-`).
//! The derivative calls take their arguments checked once ([`JacobianProduct`],
//! [`Derivatives`]) instead of FMI's parallel arrays.
//!
//! Modules and their saved states ([`ModuleState`]) are `Send`, so the modules of one
//! sweep may step on other threads; [`StateSnapshot::save_state_into`] overwrites a saved
//! state in place, so a checkpoint per step costs no allocation.
//!
//! Masters never call a [`Module`] directly: they drive a [`Subsystem`], which enforces the
//! FMI 3.0 state machine and the rule "no get after set without a step", returning
//! [`Status::Error`] for an illegal call instead of panicking.

mod arguments;
mod capabilities;
mod description;
mod interface;
mod status;
pub(crate) mod step_io;
mod subsystem;
mod variable;

pub use arguments::{Derivatives, JacobianProduct};
pub use capabilities::{Capabilities, CapabilityFlag};
pub use description::{DependencyKind, ModuleDescription, OutputDependency};
pub use interface::{
    DirectionalDerivatives, DiscreteStatesUpdate, EventMode, ExposedEquations, InputDerivatives,
    InstantiateOptions, MidpointOutputs, Module, ModuleState, OutputDerivatives, StateSnapshot,
};
pub use status::{ModuleError, ModuleErrorKind, Status, StepReport};
pub use step_io::{StepIo, StepIoError, StepIoResult, StepIoStage};
pub use subsystem::{FmiState, Subsystem};
pub use variable::{Causality, PortType, TextOutput, ValueRef, Variability, Variable};

// Every module and saved state may move to another thread (an executor stepping the
// modules of one sweep at once); `Module: Send` makes each implementation prove it.
const _: () = {
    const fn assert_send<T: Send + ?Sized>() {}
    assert_send::<dyn Module>();
    assert_send::<Subsystem>();
    assert_send::<ModuleState>();
};

#[cfg(test)]
mod tests;
