//! One attempted macro-step of [`super::ErrorControlledCoupling`] with each explicit
//! estimator (docs/methods.md §14.10):
//!
//! - **ExSLocal**: the actual integration on `P^k`, the update step, and
//!   `ε_u = |P^k(T_{N+1}) − u_{N+1}|` (paper eqn 21).
//! - **ExLocal**: save every dynamic module, integrate on `P^{k+1}` (one more history
//!   point) and read `q̂, v̂`, restore, integrate on `P^k` and read `q, v`;
//!   `ε = |q − q̂|`, `|v − v̂|` (eqn 15).
//! - **ExMilne**: the same, the comparative run on the degree-`k` interpolation through
//!   `(T_{N+1}, û)`, `û = P^{k+1}(T_{N+1})`, and `T_N … T_{N−k+1}`; the differences times
//!   `C^{k+1}/C^k` of the actual grid (eqns 19, 20).
//! - **The comparison's own error** (ExLocal, ExMilne; our rule, docs/methods.md §14.11.3):
//!   the seed takes `q̂, v̂` as exact to leading order; their input `û = P^{k+1}(T_{N+1})`
//!   misses the consistent `u_{N+1}` by `d`, and the error `d` implies for `q̂, v̂` is added
//!   to `|q − q̂|`, `|v − v̂|` (the triangle inequality). One order above the estimate on a
//!   smooth solution; dominant when both runs extrapolate past an impact alike.
//! - **Start-up** of ExLocal and ExMilne with one point (no degree-1 extrapolation yet):
//!   the actual run at `k = 0`, the update, then the comparative run on the line through
//!   `(T_N, u_N)` and the consistent `(T_{N+1}, u_{N+1})` (restoring the actual end state
//!   afterwards); its input error is `O(H²)`, one order above `k = 0`'s, as ExLocal's
//!   comparative run, so `|q − q̂|` estimates the error the same way (pinned choice).
//! - **A module's numerical failure** in any of these integrations (a stiff integrator
//!   giving up at an impact) rejects the attempt with `H/4`, as a corrector that did not
//!   converge (seed 002 §5.3); the driver restores every module.

use super::bookkeeping::Bookkeeping;
use super::parallel::{step_selected, Interrupted};
use crate::error::{MasterError, RejectReason};
use crate::master::error_control::lagrange::evaluate;
use crate::master::error_control::{
    Attempt, ErrorNorms, EstimatorKind, MilneFactors, StepConstants,
};
use crate::master::{CoupledSystem, Executor, MacroStepOutcome, Rejection};
use crate::module::{ModuleErrorKind, ModuleState};
use alloc::vec::Vec;

/// Everything one run of the algorithm keeps between attempts.
pub(super) struct Work {
    pub(super) book: Bookkeeping,
    /// Module states at `T_N` and at the end of the actual run (start-up only).
    pub(super) at_start: Vec<ModuleState>,
    pub(super) at_end: Vec<ModuleState>,
    /// `q̂, v̂` of the comparative run.
    pub(super) compared_positions: Vec<f64>,
    pub(super) compared_velocities: Vec<f64>,
    /// `P^k(T_{N+1})` (ExSLocal) or `û = P^{k+1}(T_{N+1})` (ExLocal, ExMilne).
    pub(super) extrapolated: Vec<f64>,
    /// `û − u_{N+1}`, and the comparative solution's own error it implies (ExLocal, ExMilne).
    pub(super) defect: Vec<f64>,
    pub(super) comparison_positions: Vec<f64>,
    pub(super) comparison_velocities: Vec<f64>,
    /// Consistent outputs of the actual run, kept across the start-up comparative run.
    pub(super) outputs: Vec<f64>,
}

impl Work {
    /// One attempt from `t` over `h` at the control's degree.
    pub(super) fn attempt(
        &mut self,
        sys: &mut CoupledSystem,
        mut ex: Option<&mut (dyn Executor + 'static)>,
        t: f64,
        h: f64,
    ) -> Result<MacroStepOutcome, MasterError> {
        let k = self.book.control.degree();
        let estimator = self.book.control.settings().estimator;
        let t_end = t + h;
        let norms = match estimator {
            EstimatorKind::ExSLocal => {
                if let Some(out) = self.actual(sys, ex.as_deref_mut(), k, t, h)? {
                    return Ok(out);
                }
                evaluate(self.book.cv.history(), k, t_end, &mut self.extrapolated);
                self.book.coupling_norm(&self.extrapolated)
            }
            _ if self.book.cv.history().len() < k + 2 => {
                if let Some(out) = self.start_up(sys, ex.as_deref_mut(), t, h)? {
                    return Ok(out);
                }
                let (q_hat, v_hat) = (&self.compared_positions, &self.compared_velocities);
                self.book
                    .state_norms(q_hat, v_hat, MilneFactors::UNIT, None)
            }
            _ => {
                self.save(sys, t, true)?;
                let history = self.book.cv.history();
                evaluate(history, k + 1, t_end, &mut self.extrapolated);
                let factors = if estimator == EstimatorKind::ExMilne {
                    let c = StepConstants::on_grid(history, k, h).ok_or_else(|| bad_grid(t, h))?;
                    self.book
                        .cv
                        .apply_interpolation(sys, t_end, &self.extrapolated, k, t)?;
                    c.explicit_milne()
                } else {
                    self.book.cv.apply_extrapolation(sys, k + 1, t)?;
                    MilneFactors::UNIT
                };
                if let Some(out) = self.integrate(sys, ex.as_deref_mut(), t, h)? {
                    return Ok(out);
                }
                self.read_compared(sys, ex.as_deref_mut(), t_end)?;
                self.restore(sys, t, true)?;
                if let Some(out) = self.actual(sys, ex.as_deref_mut(), k, t, h)? {
                    return Ok(out);
                }
                // The comparison bound (docs/methods.md §14.11.3).
                self.comparison_error(sys, ex, t_end, h)?;
                let bound = Some((
                    self.comparison_positions.as_slice(),
                    self.comparison_velocities.as_slice(),
                ));
                let (q_hat, v_hat) = (&self.compared_positions, &self.compared_velocities);
                self.book.state_norms(q_hat, v_hat, factors, bound)
            }
        };
        let attempt = Attempt {
            t,
            h,
            k,
            norms,
            corrector_failed: false,
        };
        self.book.judge(attempt, 0)
    }

    /// The actual run: `P^k` through the history, the integration, the states (if
    /// monitored) and the update step.
    fn actual(
        &mut self,
        sys: &mut CoupledSystem,
        mut ex: Option<&mut (dyn Executor + 'static)>,
        k: usize,
        t: f64,
        h: f64,
    ) -> Result<Interrupted, MasterError> {
        self.book.cv.apply_extrapolation(sys, k, t)?;
        if let Some(out) = self.integrate(sys, ex.as_deref_mut(), t, h)? {
            return Ok(Some(out));
        }
        if let Some(s) = self.book.states.as_mut() {
            s.read_completed(sys, ex, t + h)?;
        }
        self.book.cv.update(sys, t + h)?;
        Ok(None)
    }

    /// Start-up of the state estimators with one history point (module docs).
    fn start_up(
        &mut self,
        sys: &mut CoupledSystem,
        mut ex: Option<&mut (dyn Executor + 'static)>,
        t: f64,
        h: f64,
    ) -> Result<Interrupted, MasterError> {
        self.save(sys, t, true)?;
        if let Some(out) = self.actual(sys, ex.as_deref_mut(), 0, t, h)? {
            return Ok(Some(out));
        }
        self.outputs.copy_from_slice(sys.outputs());
        self.save(sys, t + h, false)?;
        self.restore(sys, t, true)?;
        self.book.cv.apply_through_updated(sys, t + h, 1, t)?;
        if let Some(out) = self.integrate(sys, ex.as_deref_mut(), t, h)? {
            return Ok(Some(out));
        }
        self.read_compared(sys, ex.as_deref_mut(), t + h)?;
        self.restore(sys, t + h, false)?;
        // Reading q̂, v̂ overwrote the actual run's states: read them again.
        if let Some(s) = self.book.states.as_mut() {
            s.read_completed(sys, ex, t + h)?;
        }
        sys.exchange_outputs(&self.outputs);
        Ok(None)
    }

    /// Steps every dynamic module over `[t, t + h]` on the inputs set and reads its outputs
    /// (at the same time through an executor). A module whose own numerics fail (its
    /// integrator gives up) makes the attempt a failed one: rejected, retried with `H/4`
    /// as a corrector that did not converge (seed 002 §5.3), not the end of the run.
    fn integrate(
        &mut self,
        sys: &mut CoupledSystem,
        ex: Option<&mut (dyn Executor + 'static)>,
        t: f64,
        h: f64,
    ) -> Result<Interrupted, MasterError> {
        match step_selected(sys, self.book.cv.dynamic(), ex, t, h) {
            Err(MasterError::Module { module, error, .. })
                if matches!(error.kind, ModuleErrorKind::Numerical(_)) =>
            {
                let k = self.book.control.degree();
                let norms = ErrorNorms::default();
                let failed = Attempt {
                    t,
                    h,
                    k,
                    norms,
                    corrector_failed: true,
                };
                self.book.judge_failed(failed)?;
                let message = alloc::string::ToString::to_string(&error);
                let reason = RejectReason::ModuleFailed { module, message };
                let h_retry = None;
                Ok(Some(MacroStepOutcome::Rejected(Rejection {
                    reason,
                    h_retry,
                })))
            }
            r => r,
        }
    }

    /// Saves every dynamic module's state into `at_start` (or `at_end`).
    fn save(&mut self, sys: &mut CoupledSystem, t: f64, start: bool) -> Result<(), MasterError> {
        let slots = if start {
            &mut self.at_start
        } else {
            &mut self.at_end
        };
        for (m, slot) in slots.iter_mut().enumerate() {
            if self.book.cv.is_dynamic(m) {
                let r = sys.subsystem_mut(m).save_state_into(slot);
                r.map_err(|e| sys.module_error(m, t, e))?;
            }
        }
        Ok(())
    }

    /// Restores every dynamic module from `at_start` (or `at_end`).
    fn restore(&mut self, sys: &mut CoupledSystem, t: f64, start: bool) -> Result<(), MasterError> {
        let slots = if start { &self.at_start } else { &self.at_end };
        for (m, slot) in slots.iter().enumerate() {
            if self.book.cv.is_dynamic(m) {
                let r = sys.subsystem_mut(m).set_state(slot);
                r.map_err(|e| sys.module_error(m, t, e))?;
                sys.mark_changed(m);
            }
        }
        Ok(())
    }

    /// Reads the comparative run's states into `q̂, v̂`.
    fn read_compared(
        &mut self,
        sys: &mut CoupledSystem,
        ex: Option<&mut (dyn Executor + 'static)>,
        t: f64,
    ) -> Result<(), MasterError> {
        if let Some(s) = self.book.states.as_mut() {
            s.read_completed(sys, ex, t)?;
            self.compared_positions.copy_from_slice(&s.positions);
            self.compared_velocities.copy_from_slice(&s.velocities);
        }
        Ok(())
    }

    /// The error of the comparative solution itself (docs/methods.md §14.11.3): its input
    /// `û` at `T_{N+1}` misses the consistent `u_{N+1}` by `d = û − u_{N+1}`; where in the
    /// step the coupling variables left the polynomial is unknown, so the bound takes the
    /// worst case, an input error `|d|` over the whole step: the states' derivatives move by
    /// `|Δf|` under `d`, so `v̂` is off by at most about `H·|Δf|` and `q̂` by `H²/2·|Δf|`.
    /// Into `comparison_positions`, `comparison_velocities`.
    fn comparison_error(
        &mut self,
        sys: &mut CoupledSystem,
        ex: Option<&mut (dyn Executor + 'static)>,
        t_end: f64,
        h: f64,
    ) -> Result<(), MasterError> {
        let Some(states) = self.book.states.as_mut() else {
            return Ok(());
        };
        let u = self.book.cv.updated();
        for ((d, u_hat), u) in self.defect.iter_mut().zip(&self.extrapolated).zip(u) {
            *d = u_hat - u;
        }
        let out = (
            &mut self.comparison_positions,
            &mut self.comparison_velocities,
        );
        states.input_response(sys, t_end, (u, &self.defect), out)?;
        if let Some(ex) = ex {
            let out = (
                self.comparison_positions.as_mut_slice(),
                self.comparison_velocities.as_mut_slice(),
            );
            states.complete_response(ex, out)?;
        }
        let (c_pos, c_vel) = (0.5 * h * h, h);
        self.comparison_positions
            .iter_mut()
            .for_each(|x| *x *= c_pos);
        self.comparison_velocities
            .iter_mut()
            .for_each(|x| *x *= c_vel);
        Ok(())
    }
}

fn bad_grid(t: f64, h: f64) -> MasterError {
    MasterError::InvalidSettings(alloc::format!(
        "macro-step at t = {t} s, h = {h} s: the error constants of this grid are undefined"
    ))
}
