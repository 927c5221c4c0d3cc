//! The two-mass rotational oscillator of the defect-control example (seed 003, Sect. 4;
//! docs/methods.md §15, rotational two-mass example), split into two slaves that exchange
//! torque and speed.
//!
//! **Slave 1, `RotationalOscillator.Tau2Omega`** (inertia J₁ on spring c₁ and damper d₁ to
//! ground): input torque `tau`, output speed `omega`, states `phi1`, `omega1`; no
//! feedthrough.
//!
//! ```text
//! phi1'   = omega1
//! omega1' = (−c₁ phi1 − d₁ omega1 + tau) / J₁
//! omega   = omega1
//! ```
//!
//! **Slave 2, `RotationalOscillator.Omega2Tau`** (inertia J₂ on c₂, d₂ to ground, coupled to
//! inertia 1 by c_k, d_k): input speed `omega_in`, output torque `tau`, states `phi2`,
//! `omega2` and `phi_o`, the slave's own integral of the speed it receives; direct
//! feedthrough `∂tau/∂omega_in = −d_k`.
//!
//! ```text
//! phi2'   = omega2
//! omega2' = (−(c₂ + c_k) phi2 − (d₂ + d_k) omega2 + c_k phi_o + d_k omega_in) / J₂
//! phi_o'  = omega_in
//! tau     = c_k phi2 + d_k omega2 − c_k phi_o − d_k omega_in
//! ```
//!
//! Coupled by `Omega2Tau.tau → Tau2Omega.tau` and `Tau2Omega.omega → Omega2Tau.omega_in`
//! they form the 4-state model [`monolithic_a`] (with `phi_o ≡ phi1` when both start
//! equal, as the defaults do).
//!
//! **Solvers** (the module's `solver` field): `exact` (the default) integrates exactly
//! against the input polynomial; `euler` takes one forward-Euler step per communication
//! step, with the input value at the step start only. Both provide the midpoint output
//! sample (`x-providesMidpointOutputs`), output and input derivatives up to order 2, and
//! expose `(A, B, C, D)` (`x-linearTimeInvariant`). **Output derivatives are samples of the
//! step just taken** (see [`RotationalSlave`]): the Euler slave reports its slope
//! `f(x_k, ũ(t_k))` as `x′(t_{k+1})` and `x″ = 0`, so its output polynomial of order ≥ 1
//! reproduces its own output over the step exactly.

mod params;
mod slave;
mod stepping;

#[cfg(test)]
mod tests;

pub use params::{
    monolithic_a, monolithic_c, monolithic_outputs, monolithic_x0, omega2tau_matrices,
    tau2omega_matrices, Omega2TauParams, Tau2OmegaParams,
};
pub use slave::{RotationalSlave, MAX_DERIVATIVE_ORDER};
pub use stepping::Method;

use super::entry::{ModelArgs, ModelEntry, ParameterList};
use super::instance::Instance;
use super::layout::{describe, PortSpec, Signature};
use super::linear_state_space::{MatricesOf, StagedParameters};
use super::parameters::ParameterSet;
use super::solver_choice::exact_or_euler;
use crate::module::{DependencyKind, Module, ModuleError};
use crate::solvers::SolverSpec;
use alloc::boxed::Box;
use alloc::format;
use alloc::vec;
use alloc::vec::Vec;
use nalgebra::DVector;

/// Model id of slave 1 (input torque, output speed).
pub const TAU2OMEGA_ID: &str = "RotationalOscillator.Tau2Omega";
/// Model id of slave 2 (input speed, output torque).
pub const OMEGA2TAU_ID: &str = "RotationalOscillator.Omega2Tau";

/// The method a solver choice names; other solvers are refused naming the model.
pub fn method_for(model_id: &str, solver: &SolverSpec) -> Result<Method, ModuleError> {
    match solver {
        SolverSpec::Default | SolverSpec::Exact => Ok(Method::Exact),
        SolverSpec::Euler => Ok(Method::Euler),
        _ => Err(ModuleError::invalid(format!(
            "{model_id} steps itself: its solver is `exact` (the default) or `euler`"
        ))),
    }
}

/// Ports and matrices of one slave, what [`build`] needs.
struct SlaveSpec<'a> {
    model_id: &'static str,
    inputs: Vec<PortSpec>,
    outputs: Vec<PortSpec>,
    feedthrough: &'a [(usize, usize, DependencyKind)],
    matrices_of: MatricesOf,
}

/// Builds a slave from its parameter set and ports.
fn build<P: ParameterSet>(
    p: &P,
    spec: SlaveSpec<'_>,
    method: Method,
) -> Result<RotationalSlave, ModuleError> {
    let (parameters, states) = p.ports();
    let sig = Signature {
        model_name: spec.model_id,
        parameters: &parameters,
        states: &states,
        inputs: &spec.inputs,
        outputs: &spec.outputs,
        feedthrough: spec.feedthrough,
        max_output_derivative_order: MAX_DERIVATIVE_ORDER,
        linear_time_invariant: true,
    };
    let (mut desc, layout) = describe(&sig)?;
    desc.capabilities.x_max_input_derivative_order = MAX_DERIVATIVE_ORDER;
    desc.capabilities.x_provides_midpoint_outputs = true;
    let params: Vec<f64> = parameters.iter().map(|q| q.start).collect();
    let (a, b, c, d) = (spec.matrices_of)(&params)?;
    let x0 = DVector::from_iterator(states.len(), states.iter().map(|s| s.start));
    let nu = spec.inputs.len();
    Ok(RotationalSlave {
        method,
        a,
        b,
        c,
        d,
        start_params: params.clone(),
        params,
        matrices_of: spec.matrices_of,
        staged_params: StagedParameters::default(),
        desc,
        inst: Instance::new(layout, x0, vec![0.0; nu]),
        half: None,
        last: None,
        set_since_step: vec![false; nu],
    })
}

/// Slave 1, `tau2omega`, stepped by `method`.
pub fn tau2omega(p: &Tau2OmegaParams, method: Method) -> Result<RotationalSlave, ModuleError> {
    let spec = SlaveSpec {
        model_id: TAU2OMEGA_ID,
        inputs: vec![PortSpec::new(
            "tau",
            "N*m",
            0.0,
            "coupling torque on inertia 1",
        )],
        outputs: vec![PortSpec::new(
            "omega",
            "rad/s",
            0.0,
            "speed omega1 of inertia 1",
        )],
        feedthrough: &[],
        matrices_of: params::tau2omega_matrices_of,
    };
    build(p, spec, method)
}

/// Slave 2, `omega2tau`, stepped by `method`.
pub fn omega2tau(p: &Omega2TauParams, method: Method) -> Result<RotationalSlave, ModuleError> {
    let spec = SlaveSpec {
        model_id: OMEGA2TAU_ID,
        inputs: vec![PortSpec::new(
            "omega_in",
            "rad/s",
            0.0,
            "speed of inertia 1",
        )],
        outputs: vec![PortSpec::new(
            "tau",
            "N*m",
            0.0,
            "coupling torque, acting on inertia 1",
        )],
        feedthrough: &[(0, 0, DependencyKind::Constant)],
        matrices_of: params::omega2tau_matrices_of,
    };
    build(p, spec, method)
}

fn construct_tau2omega(a: &ModelArgs<'_>) -> Result<Box<dyn Module>, ModuleError> {
    let method = method_for(TAU2OMEGA_ID, a.solver)?;
    Ok(Box::new(tau2omega(
        &Tau2OmegaParams::from_map(a.parameters)?,
        method,
    )?))
}

fn construct_omega2tau(a: &ModelArgs<'_>) -> Result<Box<dyn Module>, ModuleError> {
    let method = method_for(OMEGA2TAU_ID, a.solver)?;
    Ok(Box::new(omega2tau(
        &Omega2TauParams::from_map(a.parameters)?,
        method,
    )?))
}

/// Registry entry of slave 1.
pub(super) const TAU2OMEGA_ENTRY: ModelEntry = ModelEntry {
    id: TAU2OMEGA_ID,
    summary: "Rotational oscillator (defect-control example), slave tau2omega: inertia J1 on \
              spring c1 and damper d1, driven by torque tau; output speed omega. Solver exact or \
              euler (one Euler step per macro-step); output derivatives are samples of the step \
              taken; midpoint output sample.",
    parameters: ParameterList::Fixed(Tau2OmegaParams::catalog),
    solvers: exact_or_euler,
    construct: construct_tau2omega,
};

/// Registry entry of slave 2.
pub(super) const OMEGA2TAU_ENTRY: ModelEntry = ModelEntry {
    id: OMEGA2TAU_ID,
    summary: "Rotational oscillator (defect-control example), slave omega2tau: inertia J2 on \
              spring c2 and damper d2, coupled by ck, dk to inertia 1 whose speed omega_in it \
              receives; output torque tau (direct feedthrough -dk). Solver exact or euler; \
              midpoint output sample.",
    parameters: ParameterList::Fixed(Omega2TauParams::catalog),
    solvers: exact_or_euler,
    construct: construct_omega2tau,
};
