//! [`Bookkeeping`]: what the explicit and the implicit error-controlled algorithms keep per
//! run and do alike around each attempt: the [`MacroStepControl`], the coupling variables
//! with their history, the monitored states, the last estimate per group, and the verdict,
//! published through the [`ControlLink`] after the attempt and applied on commit or
//! discard (docs/methods.md §14.10–§14.12).

use super::coupling_variables::CouplingVariables;
use super::link::ControlLink;
use super::states::StateGroups;
use crate::error::MasterError;
use crate::master::error_control::{
    Attempt, ControlVerdict, ErrorNorms, MacroStepControl, MilneFactors,
};
use crate::master::{MacroStepOutcome, StepDiagnostics};
use alloc::vec::Vec;

/// The per-run state both error-controlled algorithms share.
pub struct Bookkeeping {
    pub(crate) control: MacroStepControl,
    pub(crate) cv: CouplingVariables,
    /// Positions and velocities (state estimators only).
    pub(crate) states: Option<StateGroups>,
    /// The last estimate per group: `ε_pos`, `ε_vel` (state estimators) or `ε_u`.
    pub(crate) eps_positions: Vec<f64>,
    pub(crate) eps_velocities: Vec<f64>,
    pub(crate) eps_coupling: Vec<f64>,
    /// The verdict on the last attempt, applied on commit or discard.
    pub(crate) verdict: Option<ControlVerdict>,
    pub(crate) link: ControlLink,
}

impl Bookkeeping {
    /// The state of a run about to start, its buffers allocated once.
    pub(crate) fn new(
        control: MacroStepControl,
        cv: CouplingVariables,
        states: Option<StateGroups>,
        link: ControlLink,
    ) -> Self {
        let (n_pos, n_vel) = states
            .as_ref()
            .map_or((0, 0), |s| (s.positions.len(), s.velocities.len()));
        let n_c = cv.len();
        Bookkeeping {
            control,
            cv,
            states,
            eps_positions: Vec::with_capacity(n_pos),
            eps_velocities: Vec::with_capacity(n_vel),
            eps_coupling: Vec::with_capacity(n_c),
            verdict: None,
            link,
        }
    }

    /// The degree `k` of the next attempt.
    pub fn degree(&self) -> usize {
        self.control.degree()
    }

    /// The verdict on the last attempt.
    pub fn last_verdict(&self) -> Option<&ControlVerdict> {
        self.verdict.as_ref()
    }

    /// The last attempt's estimate per component: `(ε_pos, ε_vel, ε_u)`, empty for the
    /// groups the estimator does not estimate.
    pub fn last_estimate(&self) -> (&[f64], &[f64], &[f64]) {
        (
            self.eps_positions.as_slice(),
            self.eps_velocities.as_slice(),
            self.eps_coupling.as_slice(),
        )
    }

    /// Positions and velocities read after the last actual run (state estimators).
    pub fn states(&self) -> Option<&StateGroups> {
        self.states.as_ref()
    }

    /// The coupling variables with their history.
    pub fn coupling_variables(&self) -> &CouplingVariables {
        &self.cv
    }

    /// The verdict on `attempt` (its `iterations` corrector runs): assessed, published to
    /// the step controller, kept for commit or discard, and reported to the driver as an
    /// attempt to judge.
    pub(crate) fn judge(
        &mut self,
        attempt: Attempt,
        iterations: u32,
    ) -> Result<MacroStepOutcome, MasterError> {
        let cv = &self.cv;
        let verdict =
            self.control
                .assess_kept(&attempt, &cv.kept_history(), cv.history(), cv.updated())?;
        if attempt.corrector_failed {
            self.link.publish_not_converged(verdict.h_next, iterations);
        } else {
            self.link
                .publish(verdict.accepted, verdict.h_next, verdict.error);
        }
        self.verdict = Some(verdict);
        let diagnostics = StepDiagnostics {
            error: Some(verdict.error),
            iterations,
            order: Some(attempt.k as u32),
            defect: None,
        };
        Ok(MacroStepOutcome::Accepted {
            h_taken: attempt.h,
            diagnostics,
        })
    }

    /// The verdict on an attempt that ended without an estimate (`attempt.corrector_failed`:
    /// a module's integration failed inside it): kept so that `discard` counts the failure
    /// (`N_fail`, the order override); the retry is `H/4` (seed 002 §5.3), and at or below
    /// `H_min` the run ends with [`MasterError::MacroStepTooSmall`].
    pub(crate) fn judge_failed(&mut self, attempt: Attempt) -> Result<(), MasterError> {
        let cv = &self.cv;
        let verdict =
            self.control
                .assess_kept(&attempt, &cv.kept_history(), cv.history(), cv.updated())?;
        self.link.publish(false, verdict.h_next, f64::NAN);
        self.verdict = Some(verdict);
        Ok(())
    }

    /// WRMS norms of `f_pos·(|q − q'| + b_q)` and `f_vel·(|v − v'| + b_v)`, `q, v` the
    /// states read last (the weights' values), `q', v'` the compared ones and `b` an error
    /// bound of the comparison (ExLocal, ExMilne; none for ImMilne).
    pub(crate) fn state_norms(
        &mut self,
        compared_q: &[f64],
        compared_v: &[f64],
        factors: MilneFactors,
        bound: Option<(&[f64], &[f64])>,
    ) -> ErrorNorms {
        let Some(s) = self.states.as_ref() else {
            return ErrorNorms::default();
        };
        let tol = &self.control.settings().tolerances;
        let (q, v) = (&s.positions, &s.velocities);
        difference(&mut self.eps_positions, compared_q, q, factors.pos);
        difference(&mut self.eps_velocities, compared_v, v, factors.vel);
        if let Some((b_q, b_v)) = bound {
            add_scaled(&mut self.eps_positions, b_q, factors.pos);
            add_scaled(&mut self.eps_velocities, b_v, factors.vel);
        }
        ErrorNorms::states(
            tol.positions.wrms(&self.eps_positions, q),
            tol.velocities.wrms(&self.eps_velocities, v),
        )
    }

    /// WRMS norm of `|u' − u_{N+1}|`, `u'` the predicted coupling variables and `u_{N+1}`
    /// the consistent ones (the weights' values).
    pub(crate) fn coupling_norm(&mut self, predicted: &[f64]) -> ErrorNorms {
        let u = self.cv.updated();
        difference(&mut self.eps_coupling, predicted, u, 1.0);
        let tol = &self.control.settings().tolerances.coupling;
        ErrorNorms::coupling(tol.wrms(&self.eps_coupling, u))
    }

    /// The driver accepted the attempt ending at `t_end`.
    pub(crate) fn commit(&mut self, t_end: f64) {
        self.cv.commit(t_end);
        self.discard();
    }

    /// The attempt is over (rejected, or committed): its verdict becomes the control's.
    pub(crate) fn discard(&mut self) {
        if let Some(v) = self.verdict {
            self.control.apply(&v);
        }
    }
}

/// `eps[i] += factor·b_i`.
fn add_scaled(eps: &mut [f64], b: &[f64], factor: f64) {
    debug_assert_eq!(eps.len(), b.len());
    for (e, b) in eps.iter_mut().zip(b) {
        *e += factor * b;
    }
}

/// `eps[i] = factor·|a_i − b_i|`.
fn difference(eps: &mut Vec<f64>, a: &[f64], b: &[f64], factor: f64) {
    eps.clear();
    eps.extend(a.iter().zip(b).map(|(x, y)| factor * (x - y).abs()));
}
