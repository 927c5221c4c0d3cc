//! One attempted macro-step of [`super::ImplicitCoupling`]: the predictor, the Newton
//! corrector on `g_c(u*) = u* − φ(T_{N+1}, z*(u*))` and the implicit estimators
//! (docs/methods.md §14.12).

use super::jacobian::{save_dynamic, JacobianWork};
use super::CorrectorSettings;
use super::{InterfaceJacobian, NewtonIteration};
use crate::error::{MasterError, RejectReason};
use crate::master::error_control::lagrange::evaluate;
use crate::master::error_control::{Attempt, ErrorNorms, EstimatorKind, StepConstants};
use crate::master::error_controlled::{step_selected, Interrupted};
use crate::master::{
    Bookkeeping, Checkpoint, CoupledSystem, CouplingVariables, Executor, MacroStepOutcome,
};
use crate::module::ModuleState;
use alloc::vec::Vec;
use nalgebra::{DMatrix, DVector};

/// Everything one run of the algorithm keeps between attempts.
pub(super) struct Work {
    pub(super) book: Bookkeeping,
    pub(super) corrector: CorrectorSettings,
    pub(super) jacobian_work: JacobianWork,
    /// The whole system at `T_N`: every corrector run restarts from it.
    pub(super) checkpoint: Checkpoint,
    /// Dynamic modules at `T_N` and at the predictor's end (finite differences).
    pub(super) at_start: Vec<ModuleState>,
    pub(super) at_end: Vec<ModuleState>,
    /// `q^pre, v^pre`.
    pub(super) predicted_positions: Vec<f64>,
    pub(super) predicted_velocities: Vec<f64>,
    /// `u^pre = p^pre(T_{N+1})`.
    pub(super) predicted: Vec<f64>,
    /// The corrector's iterate `u*`.
    pub(super) u_star: Vec<f64>,
    /// `g_c(u*) = u* − φ(T_{N+1}, z*(u*))`.
    pub(super) residual: Vec<f64>,
    /// `dg_c/du*` at the predictor point, row-major.
    pub(super) jacobian: Vec<f64>,
    /// Corrector runs of the last attempt and its final residual norm.
    pub(super) iterations: u32,
    pub(super) residual_norm: f64,
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
        let t_end = t + h;
        self.checkpoint.save(sys, t)?;
        self.iterations = 0;
        match self.corrector.jacobian {
            InterfaceJacobian::FiniteDifferences => {
                save_dynamic(sys, &self.book.cv, &mut self.at_start, t)?
            }
            InterfaceJacobian::LowOrder => {
                self.jacobian_work.los.linearise(sys, &self.book.cv, t)?
            }
            InterfaceJacobian::Identity | InterfaceJacobian::DirectionalDerivatives => {}
        }
        // Predictor: the explicit step's integration on p^pre.
        self.book.cv.apply_extrapolation(sys, k, t)?;
        if let Some(out) = integrate(sys, &self.book.cv, ex.as_deref_mut(), t, h)? {
            return Ok(out);
        }
        if let Some(s) = self.book.states.as_mut() {
            s.read_completed(sys, ex.as_deref_mut(), t_end)?;
            self.predicted_positions.copy_from_slice(&s.positions);
            self.predicted_velocities.copy_from_slice(&s.velocities);
        }
        evaluate(self.book.cv.history(), k, t_end, &mut self.predicted);
        self.jacobian_work.keep_raw_outputs(sys);
        self.book.cv.update(sys, t_end)?;
        self.u_star.copy_from_slice(&self.predicted);
        self.set_residual();
        // The interface Jacobian at the predictor point, kept for every iteration.
        if let Some(out) = self.interface_jacobian(sys, ex.as_deref_mut(), (t, h, k), true)? {
            return Ok(out);
        }
        let n = self.u_star.len();
        let mut lu = DMatrix::from_row_slice(n, n, &self.jacobian).lu();
        let mut converged = false;
        let reason = RejectReason::NotConverged { iterations: 0 };
        while self.iterations < self.corrector.max_iterations {
            let rhs = DVector::from_iterator(n, self.residual.iter().map(|r| -r));
            let Some(delta) = lu.solve(&rhs) else { break };
            if delta.iter().any(|d| !d.is_finite()) {
                break;
            }
            for (u, d) in self.u_star.iter_mut().zip(delta.iter()) {
                *u += d;
            }
            self.checkpoint.restore(sys, &reason)?;
            self.book
                .cv
                .apply_interpolation(sys, t_end, &self.u_star, k, t)?;
            if let Some(out) = integrate(sys, &self.book.cv, ex.as_deref_mut(), t, h)? {
                return Ok(out);
            }
            self.iterations += 1;
            if let Some(s) = self.book.states.as_mut() {
                s.read_completed(sys, ex.as_deref_mut(), t_end)?;
            }
            self.jacobian_work.keep_raw_outputs(sys);
            self.book.cv.update(sys, t_end)?;
            self.set_residual();
            if self.residual_norm <= self.corrector.tolerance_fraction {
                converged = true;
                break;
            }
            let again = self.iterations < self.corrector.max_iterations;
            if again && self.corrector.newton == NewtonIteration::Full {
                // Full Newton: the Jacobian at this iterate, from this run's end.
                if let Some(out) =
                    self.interface_jacobian(sys, ex.as_deref_mut(), (t, h, k), false)?
                {
                    return Ok(out);
                }
                lu = DMatrix::from_row_slice(n, n, &self.jacobian).lu();
            }
        }
        let norms = if converged {
            self.estimate(k, h).ok_or_else(|| bad_grid(t, h))?
        } else {
            ErrorNorms::default()
        };
        let attempt = Attempt {
            t,
            h,
            k,
            norms,
            corrector_failed: !converged,
        };
        self.book.judge(attempt, self.iterations)
    }

    /// `g_c(u*) = u* − φ` from the last update step, and its WRMS norm with the coupling
    /// tolerances.
    /// The interface Jacobian into `self.jacobian`, at the predicted coupling variables or
    /// (full Newton) at the current iterate `u*`.
    fn interface_jacobian(
        &mut self,
        sys: &mut CoupledSystem,
        ex: Option<&mut (dyn Executor + 'static)>,
        grid: (f64, f64, usize),
        at_predictor: bool,
    ) -> Result<Interrupted, MasterError> {
        let at = match at_predictor {
            true => &self.predicted,
            false => &self.u_star,
        };
        self.jacobian_work.compute(
            sys,
            ex,
            &mut self.book.cv,
            (&mut self.at_start, &mut self.at_end),
            grid,
            at,
            &mut self.jacobian,
        )
    }

    fn set_residual(&mut self) {
        for ((r, u), phi) in self
            .residual
            .iter_mut()
            .zip(&self.u_star)
            .zip(self.book.cv.updated())
        {
            *r = u - phi;
        }
        let tol = &self.book.control.settings().tolerances.coupling;
        self.residual_norm = tol.wrms(&self.residual, &self.u_star);
    }

    /// ImMilne (eqns 22, 23) or ImSLocal (eqn 24) of the converged corrector; `None` when the
    /// grid's constants are undefined.
    fn estimate(&mut self, k: usize, h: f64) -> Option<ErrorNorms> {
        if self.book.control.settings().estimator == EstimatorKind::ImSLocal {
            return Some(self.book.coupling_norm(&self.predicted));
        }
        let f = StepConstants::on_grid(self.book.cv.history(), k, h)?.implicit_milne();
        let (q_pre, v_pre) = (&self.predicted_positions, &self.predicted_velocities);
        Some(self.book.state_norms(q_pre, v_pre, f, None))
    }
}

/// Steps every dynamic module over `[t, t + h]` on the inputs set and reads its outputs
/// (at the same time through an executor).
pub(super) fn integrate(
    sys: &mut CoupledSystem,
    cv: &CouplingVariables,
    ex: Option<&mut (dyn Executor + 'static)>,
    t: f64,
    h: f64,
) -> Result<Interrupted, MasterError> {
    step_selected(sys, cv.dynamic(), ex, t, h)
}

fn bad_grid(t: f64, h: f64) -> MasterError {
    MasterError::InvalidSettings(alloc::format!(
        "macro-step at t = {t} s, h = {h} s: the error constants of this grid are undefined"
    ))
}
