//! The interface Jacobian `dg_c/du* = I − dφ/du*` of the implicit corrector at the
//! predictor point (docs/methods.md §14.12).
//!
//! - **Finite differences** (`finite_differences`): coupling variable `j` acts on one
//!   dynamic module `m` (it is one of `m`'s inputs). Moving `u*_j` by `δ_j` moves the
//!   interpolation polynomial by `δ_j·ℓ_{N+1}(t)`; only `m` is re-integrated from `T_N`
//!   (its state from the save at `T_N`, every other dynamic module left at its predictor end
//!   state), then the full update step gives `φ(u* + δ_j e_j)`, and
//!   `dφ/du*_j ≈ (φ(u* + δ_j e_j) − φ(u*))/δ_j`: one extra integration of one module per
//!   coupling variable (the seed's core count `3r − 2 + 1` on the chain). One-sided, with
//!   `δ_j = √ε_mach·max(|u^pre_j|, |u_{N,j}|, 1)` (independent of the tolerances, so
//!   a replay with other tolerances takes the same steps): exact up to rounding for linear modules.
//!   The perturbed runs go in rounds (each through the executor, if any): round `ρ` perturbs the `ρ`-th
//!   coupling variable of every dynamic module at once (each module reads only its own, so
//!   each sees the polynomial the one-at-a-time loop gives it) and steps those modules at
//!   the same time; then each column's update step takes the nominal outputs with only its
//!   owner's replaced. Same numbers as the loop, in `max_m(variables of m)` sweeps instead
//!   of `n_c` integrations one after the other (two sweeps on a chain), and one state
//!   restore per perturbation instead of one per dynamic module. Only when no
//!   dynamic module has an output with direct feedthrough: the update step then reads no
//!   dynamic module's state, so the others need not sit at their predictor end.
//! - **Low-order sensitivities** (`low_order`): [`super::los`] (no extra integration).
//! - **Directional derivatives** (`directional_derivatives`): [`super::directional`].

use crate::error::MasterError;
use crate::master::error_control::Samples;
use crate::master::error_controlled::step_selected;
use crate::master::error_controlled::{step_module, Interrupted};
use crate::master::{CoupledSystem, CouplingVariables, Executor};
use crate::module::ModuleState;
use alloc::vec;
use alloc::vec::Vec;

/// How the corrector's interface Jacobian is computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InterfaceJacobian {
    /// One-sided finite differences with rollback, one extra integration of one module per
    /// coupling variable (the reference).
    FiniteDifferences,
    /// Low-order sensitivities from the modules' exposed equations at `T_N`, no extra
    /// integration (our design; the seed's Appendix A.2 is missing).
    LowOrder,
    /// Exact linearisation of each module over the step from its directional derivatives
    /// (`providesDirectionalDerivatives` with exposed states), no extra integration.
    DirectionalDerivatives,
    /// `dg_c/du* = I` (ignores the subsystems; a fixed-point iteration): a deliberately poor
    /// Jacobian for tests of the non-convergence path.
    Identity,
}

impl InterfaceJacobian {
    /// The scenario's name (`finite_differences`, `low_order`, `identity`).
    pub fn name(self) -> &'static str {
        match self {
            InterfaceJacobian::FiniteDifferences => "finite_differences",
            InterfaceJacobian::LowOrder => "low_order",
            InterfaceJacobian::DirectionalDerivatives => "directional_derivatives",
            InterfaceJacobian::Identity => "identity",
        }
    }

    /// The Jacobian of this name, if any.
    pub fn from_name(name: &str) -> Option<Self> {
        [
            InterfaceJacobian::FiniteDifferences,
            InterfaceJacobian::LowOrder,
            InterfaceJacobian::DirectionalDerivatives,
            InterfaceJacobian::Identity,
        ]
        .into_iter()
        .find(|j| j.name() == name)
    }
}

/// Buffers of the Jacobian computation (allocated once per run).
pub(super) struct JacobianWork {
    kind: InterfaceJacobian,
    /// The dynamic module each coupling variable is an input of.
    owner: Vec<usize>,
    /// The coupling variables perturbed together in each round (one per module at most),
    /// when the rounds give the loop's numbers (module docs); empty otherwise.
    rounds: Vec<Vec<usize>>,
    /// Modules stepped in a round, and the outputs of a round and of one column.
    in_round: Vec<bool>,
    round_outputs: Vec<f64>,
    column_outputs: Vec<f64>,
    /// Outputs right after the predictor run, before the update step.
    raw_outputs: Vec<f64>,
    /// `φ(u^pre)` and a perturbed `u*`.
    nominal: Vec<f64>,
    perturbed: Vec<f64>,
    pub(super) los: super::los::LowOrder,
    /// Readers of the directional derivatives (that Jacobian only).
    pub(super) directional: Option<super::directional::Directional>,
}

impl JacobianWork {
    pub(super) fn new(
        sys: &CoupledSystem,
        cv: &CouplingVariables,
        kind: InterfaceJacobian,
    ) -> Self {
        let g = sys.graph();
        let owner: Vec<usize> = cv
            .input_indices()
            .iter()
            .map(|&i| {
                (0..sys.n_modules())
                    .find(|&m| g.input_range(m).contains(&i))
                    .unwrap_or(0)
            })
            .collect();
        let rounds = if dynamic_feedthrough(sys, cv) {
            Vec::new()
        } else {
            rounds_of(&owner)
        };
        JacobianWork {
            kind,
            owner,
            rounds,
            in_round: vec![false; sys.n_modules()],
            round_outputs: vec![0.0; sys.outputs().len()],
            column_outputs: vec![0.0; sys.outputs().len()],
            raw_outputs: vec![0.0; sys.outputs().len()],
            nominal: vec![0.0; cv.len()],
            perturbed: vec![0.0; cv.len()],
            los: super::los::LowOrder::new(sys, cv),
            directional: None,
        }
    }

    /// Keeps the outputs of the predictor run before the update step makes them consistent.
    pub(super) fn keep_raw_outputs(&mut self, sys: &CoupledSystem) {
        self.raw_outputs.copy_from_slice(sys.outputs());
    }

    /// `dg_c/du*` at the predictor point `predicted` into `jacobian` (row-major), after the
    /// predictor run and its update step. Leaves the modules in any state: the corrector
    /// restores them from its checkpoint next.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn compute(
        &mut self,
        sys: &mut CoupledSystem,
        ex: Option<&mut (dyn Executor + 'static)>,
        cv: &mut CouplingVariables,
        (at_start, at_end): (&mut [ModuleState], &mut [ModuleState]),
        (t, h, k): (f64, f64, usize),
        predicted: &[f64],
        jacobian: &mut [f64],
    ) -> Result<Interrupted, MasterError> {
        let n = cv.len();
        jacobian.fill(0.0);
        for j in 0..n {
            jacobian[j * n + j] = 1.0;
        }
        match self.kind {
            InterfaceJacobian::Identity => Ok(None),
            InterfaceJacobian::LowOrder => {
                self.los
                    .subtract_sensitivity(sys, cv, (t, h, k), jacobian)?;
                Ok(None)
            }
            InterfaceJacobian::DirectionalDerivatives => {
                if let Some(d) = self.directional.as_mut() {
                    d.subtract_sensitivity(sys, cv, &mut self.los, (t, h, k), jacobian)?;
                }
                Ok(None)
            }
            InterfaceJacobian::FiniteDifferences if !self.rounds.is_empty() => {
                self.in_rounds(sys, ex, cv, at_start, (t, h, k), predicted, jacobian)
            }
            InterfaceJacobian::FiniteDifferences => {
                self.finite_differences(sys, cv, (at_start, at_end), (t, h, k), predicted, jacobian)
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn finite_differences(
        &mut self,
        sys: &mut CoupledSystem,
        cv: &mut CouplingVariables,
        (at_start, at_end): (&mut [ModuleState], &mut [ModuleState]),
        (t, h, k): (f64, f64, usize),
        predicted: &[f64],
        jacobian: &mut [f64],
    ) -> Result<Interrupted, MasterError> {
        let n = cv.len();
        let t_end = t + h;
        self.nominal.copy_from_slice(cv.updated());
        save_dynamic(sys, cv, at_end, t_end)?;
        for j in 0..n {
            let owner = self.owner[j];
            let delta = fd_delta(cv, predicted, j);
            self.perturbed.copy_from_slice(predicted);
            self.perturbed[j] += delta;
            sys.exchange_outputs(&self.raw_outputs);
            // Every dynamic module back to T_N for the input polynomial, only the owner
            // stepped, the others back to their predictor end for the update step.
            restore_dynamic(sys, cv, at_start, t)?;
            cv.apply_interpolation(sys, t_end, &self.perturbed, k, t)?;
            if let Some(out) = step_module(sys, owner, t, h)? {
                return Ok(Some(out));
            }
            for m in (0..sys.n_modules()).filter(|&m| cv.is_dynamic(m) && m != owner) {
                let r = sys.subsystem_mut(m).set_state(&at_end[m]);
                r.map_err(|e| sys.module_error(m, t_end, e))?;
                sys.mark_changed(m);
            }
            cv.update(sys, t_end)?;
            for (c, (phi, phi0)) in cv.updated().iter().zip(&self.nominal).enumerate() {
                jacobian[c * n + j] -= (phi - phi0) / delta;
            }
        }
        Ok(None)
    }

    /// The finite differences in rounds, each through `ex` if given (module docs).
    #[allow(clippy::too_many_arguments)]
    fn in_rounds(
        &mut self,
        sys: &mut CoupledSystem,
        mut ex: Option<&mut (dyn Executor + 'static)>,
        cv: &mut CouplingVariables,
        at_start: &[ModuleState],
        (t, h, k): (f64, f64, usize),
        predicted: &[f64],
        jacobian: &mut [f64],
    ) -> Result<Interrupted, MasterError> {
        let n = cv.len();
        let t_end = t + h;
        self.nominal.copy_from_slice(cv.updated());
        for r in 0..self.rounds.len() {
            self.perturbed.copy_from_slice(predicted);
            self.in_round.fill(false);
            for &j in &self.rounds[r] {
                let m = self.owner[j];
                self.perturbed[j] += fd_delta(cv, predicted, j);
                self.in_round[m] = true;
                let r = sys.subsystem_mut(m).set_state(&at_start[m]);
                r.map_err(|e| sys.module_error(m, t, e))?;
                sys.mark_changed(m);
            }
            sys.exchange_outputs(&self.raw_outputs);
            cv.apply_interpolation(sys, t_end, &self.perturbed, k, t)?;
            if let Some(out) = step_selected(sys, &self.in_round, ex.as_deref_mut(), t, h)? {
                return Ok(Some(out));
            }
            self.round_outputs.copy_from_slice(sys.outputs());
            for &j in &self.rounds[r] {
                let outs = sys.graph().output_range(self.owner[j]);
                self.column_outputs.copy_from_slice(&self.raw_outputs);
                self.column_outputs[outs.clone()].copy_from_slice(&self.round_outputs[outs]);
                sys.exchange_outputs(&self.column_outputs);
                cv.update(sys, t_end)?;
                let delta = fd_delta(cv, predicted, j);
                for (c, (phi, phi0)) in cv.updated().iter().zip(&self.nominal).enumerate() {
                    jacobian[c * n + j] -= (phi - phi0) / delta;
                }
            }
        }
        Ok(None)
    }
}

/// The finite-difference step of coupling variable `j`: `FD_STEP·max(|u^pre_j|, |u_{N,j}|, 1)`.
fn fd_delta(cv: &CouplingVariables, predicted: &[f64], j: usize) -> f64 {
    let newest = Samples::value(cv.history(), 0)[j].abs();
    FD_STEP * predicted[j].abs().max(newest).max(1.0)
}

/// Whether a dynamic module has an output with direct feedthrough (the update step then
/// reads its state).
fn dynamic_feedthrough(sys: &CoupledSystem, cv: &CouplingVariables) -> bool {
    let g = sys.graph();
    (0..g.n_outputs()).any(|o| {
        let m = g.output_module(o);
        let desc = sys.subsystem(m).description();
        let out = g.output_value_ref(o);
        cv.is_dynamic(m)
            && g.input_value_refs(m)
                .iter()
                .any(|&i| desc.has_feedthrough(out, i))
    })
}

/// Round `ρ` holds the `ρ`-th coupling variable of every module that has one, ascending.
fn rounds_of(owner: &[usize]) -> Vec<Vec<usize>> {
    let mut rounds: Vec<Vec<usize>> = Vec::new();
    let mut count: Vec<usize> = Vec::new();
    for (j, &m) in owner.iter().enumerate() {
        if count.len() <= m {
            count.resize(m + 1, 0);
        }
        if rounds.len() <= count[m] {
            rounds.push(Vec::new());
        }
        rounds[count[m]].push(j);
        count[m] += 1;
    }
    rounds
}

/// Relative finite-difference step, `≈ √ε_mach`.
const FD_STEP: f64 = 1.5e-8;

/// Sets every dynamic module to its state in `slots`.
pub(super) fn restore_dynamic(
    sys: &mut CoupledSystem,
    cv: &CouplingVariables,
    slots: &[ModuleState],
    t: f64,
) -> Result<(), MasterError> {
    for m in (0..sys.n_modules()).filter(|&m| cv.is_dynamic(m)) {
        let r = sys.subsystem_mut(m).set_state(&slots[m]);
        r.map_err(|e| sys.module_error(m, t, e))?;
        sys.mark_changed(m);
    }
    Ok(())
}

/// Saves every dynamic module's state into `slots`.
pub(super) fn save_dynamic(
    sys: &mut CoupledSystem,
    cv: &CouplingVariables,
    slots: &mut [ModuleState],
    t: f64,
) -> Result<(), MasterError> {
    for m in (0..sys.n_modules()).filter(|&m| cv.is_dynamic(m)) {
        let r = sys.subsystem_mut(m).save_state_into(&mut slots[m]);
        r.map_err(|e| sys.module_error(m, t, e))?;
    }
    Ok(())
}
