//! [`CoupledEquations`]: the equations of every module joined by the connections into one
//! system `x' = F(t, x)`, `y = G(t, x)` (docs/methods.md §10.7). The stacked inputs are
//! resolved as `u = L g(t, x, u)` by evaluating outputs and inputs in the coupling
//! graph's propagation order (each input after its source, each output after the inputs
//! it depends on directly), so algebraic modules and direct feedthrough need no
//! iteration; a loop through direct feedthrough is refused when the graph is built.

use super::ReferenceError;
use crate::coupling::Port;
use crate::error::{CosimError, CouplingError};
use crate::master::CoupledSystem;
use crate::module::Module;
use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use core::ops::Range;

/// The coupled equations over their own module instances (initialised, never stepped:
/// only their `x-exposesEquations` calls are used).
pub struct CoupledEquations {
    system: CoupledSystem,
    /// Module `m`'s states are `x[state_ranges[m]]`.
    state_ranges: Vec<Range<usize>>,
    /// States at the start time.
    x0: Vec<f64>,
    t0: f64,
    /// Stacked inputs and outputs of the last evaluation.
    u: Vec<f64>,
    y: Vec<f64>,
    /// Whether module `m`'s outputs are up to date with its inputs in this evaluation.
    fresh: Vec<bool>,
}

impl CoupledEquations {
    /// Couples `modules` (named, in stacking order) by `connections` (`("m.out",
    /// "m.in")`), initialises them at `t_start` (stop time `t_stop`) and reads their
    /// start states. Refused before any module is instantiated if one does not expose its
    /// equations, and when the connections close an algebraic loop.
    pub fn build(
        modules: Vec<(String, Box<dyn Module>)>,
        connections: &[(String, String)],
        t_start: f64,
        t_stop: f64,
    ) -> Result<Self, ReferenceError> {
        if let Some((name, _)) = modules
            .iter()
            .find(|(_, m)| !m.description().capabilities.x_exposes_equations)
        {
            return Err(ReferenceError::NotExposed {
                module: name.clone(),
            });
        }
        let mut system = CoupledSystem::new(modules, connections).map_err(|e| match e {
            CosimError::Coupling(CouplingError::AlgebraicLoop(ports)) => {
                ReferenceError::AlgebraicLoop(ports)
            }
            other => ReferenceError::Setup(other),
        })?;
        system
            .initialize(t_start, t_stop)
            .map_err(|e| ReferenceError::Setup(e.into()))?;
        let mut state_ranges = Vec::with_capacity(system.n_modules());
        let mut n = 0;
        for m in 0..system.n_modules() {
            let count = system
                .subsystem_mut(m)
                .equation_state_count()
                .map_err(|error| module_error(&system, m, t_start, error))?;
            state_ranges.push(n..n + count);
            n += count;
        }
        let mut x0 = vec![0.0; n];
        for (m, r) in state_ranges.iter().enumerate() {
            let read = system.subsystem_mut(m).equation_states(&mut x0[r.clone()]);
            read.map_err(|error| module_error(&system, m, t_start, error))?;
        }
        let u = system.inputs().to_vec();
        let y = vec![0.0; system.graph().n_outputs()];
        let fresh = vec![false; system.n_modules()];
        Ok(CoupledEquations {
            system,
            state_ranges,
            x0,
            t0: t_start,
            u,
            y,
            fresh,
        })
    }

    /// Number of stacked states.
    pub fn n_states(&self) -> usize {
        self.x0.len()
    }

    /// Number of stacked outputs.
    pub fn n_outputs(&self) -> usize {
        self.y.len()
    }

    /// Stacked states at the start time.
    pub fn start_states(&self) -> &[f64] {
        &self.x0
    }

    /// The start time.
    pub fn start_time(&self) -> f64 {
        self.t0
    }

    /// Stacked outputs `y = G(t, x)` with the inputs resolved through the connections.
    pub fn outputs(&mut self, t: f64, x: &[f64]) -> Result<&[f64], ReferenceError> {
        self.resolve(t, x)?;
        Ok(&self.y)
    }

    /// Stacked inputs of the last evaluation.
    pub fn inputs(&self) -> &[f64] {
        &self.u
    }

    /// `dx = F(t, x)`: every module's `f(t, x_m, u_m)` with the resolved inputs.
    pub fn rhs(&mut self, t: f64, x: &[f64], dx: &mut [f64]) -> Result<(), ReferenceError> {
        self.resolve(t, x)?;
        for m in 0..self.state_ranges.len() {
            let r = self.state_ranges[m].clone();
            if r.is_empty() {
                continue;
            }
            let inputs = self.system.graph().input_range(m);
            let call = self.system.subsystem_mut(m).equation_rhs(
                t,
                &x[r.clone()],
                &self.u[inputs],
                &mut dx[r],
            );
            call.map_err(|error| module_error(&self.system, m, t, error))?;
        }
        Ok(())
    }

    /// Fills `y` and `u` at `(t, x)` in propagation order. A module's outputs are
    /// evaluated when one is first needed and again after one of its inputs changed; an
    /// output evaluated before an input it does not depend on keeps its value.
    fn resolve(&mut self, t: f64, x: &[f64]) -> Result<(), ReferenceError> {
        self.fresh.fill(false);
        let graph = self.system.graph();
        for k in 0..graph.propagation_order().len() {
            let graph = self.system.graph();
            match graph.propagation_order()[k] {
                Port::Output(o) => {
                    let m = graph.output_module(o);
                    if self.fresh[m] {
                        continue;
                    }
                    let (inputs, outputs) = (graph.input_range(m), graph.output_range(m));
                    let r = self.state_ranges[m].clone();
                    let call = self.system.subsystem_mut(m).equation_outputs(
                        t,
                        &x[r],
                        &self.u[inputs],
                        &mut self.y[outputs],
                    );
                    call.map_err(|error| module_error(&self.system, m, t, error))?;
                    self.fresh[m] = true;
                }
                Port::Input(i) => {
                    self.u[i] = self.y[graph.source_of_input(i)];
                    self.fresh[graph.input_module(i)] = false;
                }
            }
        }
        Ok(())
    }
}

fn module_error(
    system: &CoupledSystem,
    m: usize,
    t: f64,
    error: crate::module::ModuleError,
) -> ReferenceError {
    ReferenceError::Module {
        module: system.name(m).into(),
        t,
        error,
    }
}
