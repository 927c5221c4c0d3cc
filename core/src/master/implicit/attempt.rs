//! One attempted macro-step of [`super::ImplicitCoupling`]: the predictor, the Newton
//! corrector on `g_c(u*) = u* − φ(T_{N+1}, z*(u*))` and the implicit estimators
//! (docs/methods.md §14.12).

use super::jacobian::{save_dynamic, JacobianWork};
use super::CorrectorSettings;
use super::InterfaceJacobian;
use crate::error::{MasterError, RejectReason};
use crate::master::error_control::lagrange::evaluate;
use crate::master::error_control::{
    Attempt, ControlVerdict, ErrorNorms, EstimatorKind, MacroStepControl, StepConstants,
};
use crate::master::error_controlled::{step_module, Interrupted};
use crate::master::{
    Checkpoint, ControlLink, CoupledSystem, CouplingVariables, MacroStepOutcome, StateGroups,
    StepDiagnostics,
};
use crate::module::ModuleState;
use alloc::vec::Vec;
use nalgebra::{DMatrix, DVector};

/// Everything one run of the algorithm keeps between attempts.
pub(super) struct Work {
    pub(super) control: MacroStepControl,
    pub(super) corrector: CorrectorSettings,
    pub(super) jacobian_work: JacobianWork,
    pub(super) cv: CouplingVariables,
    /// Positions and velocities (ImMilne only).
    pub(super) states: Option<StateGroups>,
    /// The whole system at `T_N`: every corrector run restarts from it.
    pub(super) checkpoint: Checkpoint,
    /// Dynamic modules at `T_N` and at the predictor's end (finite differences).
    pub(super) at_start: Vec<ModuleState>,
    pub(super) at_end: Vec<ModuleState>,
    /// `q^pre, v^pre`.
    pub(super) predicted_positions: Vec<f64>,
    pub(super) predicted_velocities: Vec<f64>,
    /// The last estimate per group.
    pub(super) eps_positions: Vec<f64>,
    pub(super) eps_velocities: Vec<f64>,
    pub(super) eps_coupling: Vec<f64>,
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
    pub(super) verdict: Option<ControlVerdict>,
    pub(super) link: ControlLink,
}

impl Work {
    /// One attempt from `t` over `h` at the control's degree.
    pub(super) fn attempt(
        &mut self,
        sys: &mut CoupledSystem,
        t: f64,
        h: f64,
    ) -> Result<MacroStepOutcome, MasterError> {
        let k = self.control.degree();
        let t_end = t + h;
        self.checkpoint.save(sys, t)?;
        self.iterations = 0;
        match self.corrector.jacobian {
            InterfaceJacobian::FiniteDifferences => {
                save_dynamic(sys, &self.cv, &mut self.at_start, t)?
            }
            InterfaceJacobian::LowOrder => self.jacobian_work.los.linearise(sys, &self.cv, t)?,
            InterfaceJacobian::Identity | InterfaceJacobian::DirectionalDerivatives => {}
        }
        // Predictor: the explicit step's integration on p^pre.
        self.cv.apply_extrapolation(sys, k, t)?;
        if let Some(out) = integrate(sys, &self.cv, t, h)? {
            return Ok(out);
        }
        if let Some(s) = self.states.as_mut() {
            s.read(sys, t_end)?;
            self.predicted_positions.copy_from_slice(&s.positions);
            self.predicted_velocities.copy_from_slice(&s.velocities);
        }
        evaluate(self.cv.history(), k, t_end, &mut self.predicted);
        self.jacobian_work.keep_raw_outputs(sys);
        self.cv.update(sys, t_end)?;
        self.u_star.copy_from_slice(&self.predicted);
        self.set_residual();
        // The interface Jacobian at the predictor point, kept for every iteration.
        let interrupted = self.jacobian_work.compute(
            sys,
            &mut self.cv,
            (&mut self.at_start, &mut self.at_end),
            (t, h, k),
            &self.predicted,
            &mut self.jacobian,
        )?;
        if let Some(out) = interrupted {
            return Ok(out);
        }
        let n = self.u_star.len();
        let lu = DMatrix::from_row_slice(n, n, &self.jacobian).lu();
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
            self.cv
                .apply_interpolation(sys, t_end, &self.u_star, k, t)?;
            if let Some(out) = integrate(sys, &self.cv, t, h)? {
                return Ok(out);
            }
            self.iterations += 1;
            if let Some(s) = self.states.as_mut() {
                s.read(sys, t_end)?;
            }
            self.cv.update(sys, t_end)?;
            self.set_residual();
            if self.residual_norm <= self.corrector.tolerance_fraction {
                converged = true;
                break;
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
        let verdict = self.control.assess_kept(
            &attempt,
            &self.cv.kept_history(),
            self.cv.history(),
            self.cv.updated(),
        )?;
        if converged {
            self.link
                .publish(verdict.accepted, verdict.h_next, verdict.error);
        } else {
            self.link
                .publish_not_converged(verdict.h_next, self.iterations);
        }
        self.verdict = Some(verdict);
        let diagnostics = StepDiagnostics {
            error: Some(verdict.error),
            iterations: self.iterations,
            order: Some(k as u32),
            defect: None,
        };
        Ok(MacroStepOutcome::Accepted {
            h_taken: h,
            diagnostics,
        })
    }

    /// `g_c(u*) = u* − φ` from the last update step, and its WRMS norm with the coupling
    /// tolerances.
    fn set_residual(&mut self) {
        for ((r, u), phi) in self
            .residual
            .iter_mut()
            .zip(&self.u_star)
            .zip(self.cv.updated())
        {
            *r = u - phi;
        }
        let tol = &self.control.settings().tolerances.coupling;
        self.residual_norm = tol.wrms(&self.residual, &self.u_star);
    }

    /// ImMilne (eqns 22, 23) or ImSLocal (eqn 24) of the converged corrector; `None` when the
    /// grid's constants are undefined.
    fn estimate(&mut self, k: usize, h: f64) -> Option<ErrorNorms> {
        let tol = &self.control.settings().tolerances;
        if self.control.settings().estimator == EstimatorKind::ImSLocal {
            let u = self.cv.updated();
            difference(&mut self.eps_coupling, &self.predicted, u, 1.0);
            return Some(ErrorNorms::coupling(
                tol.coupling.wrms(&self.eps_coupling, u),
            ));
        }
        let f = StepConstants::on_grid(self.cv.history(), k, h)?.implicit_milne();
        let s = self.states.as_ref()?;
        let (q, v) = (&s.positions, &s.velocities);
        difference(&mut self.eps_positions, &self.predicted_positions, q, f.pos);
        difference(
            &mut self.eps_velocities,
            &self.predicted_velocities,
            v,
            f.vel,
        );
        Some(ErrorNorms::states(
            tol.positions.wrms(&self.eps_positions, q),
            tol.velocities.wrms(&self.eps_velocities, v),
        ))
    }
}

/// Steps every dynamic module over `[t, t + h]` on the inputs set and reads its outputs.
pub(super) fn integrate(
    sys: &mut CoupledSystem,
    cv: &CouplingVariables,
    t: f64,
    h: f64,
) -> Result<Interrupted, MasterError> {
    for m in (0..sys.n_modules()).filter(|&m| cv.is_dynamic(m)) {
        if let Some(out) = step_module(sys, m, t, h)? {
            return Ok(Some(out));
        }
    }
    Ok(None)
}

/// `eps[i] = factor·|a_i − b_i|`.
fn difference(eps: &mut Vec<f64>, a: &[f64], b: &[f64], factor: f64) {
    eps.clear();
    eps.extend(a.iter().zip(b).map(|(x, y)| factor * (x - y).abs()));
}

fn bad_grid(t: f64, h: f64) -> MasterError {
    MasterError::InvalidSettings(alloc::format!(
        "macro-step at t = {t} s, h = {h} s: the error constants of this grid are undefined"
    ))
}
