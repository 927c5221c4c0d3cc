//! [`ErrorControlledCoupling`]: seed 002's explicit (Jacobi) co-simulation with macro-step
//! size and order control (docs/methods.md §14.9–§14.11).
//!
//! One attempt from `T_N` over `H_N` at degree `k`:
//! 1. every dynamic module integrates on the degree-`k` extrapolation `p^ext` of the
//!    coupling variables through `T_N … T_{N−k}` ([`CouplingVariables`]);
//! 2. the update step makes the coupling variables consistent at `T_{N+1}`;
//! 3. the estimator compares (ExLocal, ExMilne: a second, comparative integration of every
//!    dynamic module from the same start, between saving and restoring the module states;
//!    ExSLocal: `|p^ext(T_{N+1}) − u_{N+1}|`, no extra integration);
//! 4. [`MacroStepControl::assess`] gives the verdict (error test, next degree, next step),
//!    published through the [`ControlLink`] to [`ErrorStepControl`], which accepts or
//!    rejects for the driver; `commit` adds `(T_{N+1}, u_{N+1})` to the history and applies
//!    the verdict, `discard` applies it only (a rejected point never enters the history).
//!
//! Cost per accepted attempt: ExSLocal one integration per dynamic module; ExLocal and
//! ExMilne two, plus one state save and one restore per dynamic module (on top of the
//! driver's checkpoint). The implicit estimators are refused here (they need the
//! predictor/corrector).

mod attempt;
mod bookkeeping;
mod coupling_variables;
mod link;
mod parallel;
pub(crate) mod prepare;
mod states;
#[cfg(test)]
pub(crate) mod tests;

pub use bookkeeping::Bookkeeping;
pub use coupling_variables::CouplingVariables;
pub use link::{ControlLink, ErrorStepControl};
pub(crate) use parallel::{step_module, step_selected, Interrupted};
pub use states::StateGroups;

use super::error_control::{ErrorControlSettings, EstimatorKind};
use super::{CoupledSystem, Executor, MacroStepOutcome, MasterAlgorithm, RunStart};
use crate::error::MasterError;
use crate::module::ModuleState;
use alloc::boxed::Box;
use alloc::format;
use alloc::vec;
use prepare::{capped_degree, refuse_early_return, start_bookkeeping};

/// Explicit error-controlled coupling (seed 002) with one of the explicit estimators.
pub struct ErrorControlledCoupling {
    settings: ErrorControlSettings,
    link: ControlLink,
    work: Option<attempt::Work>,
    executor: Option<Box<dyn Executor>>,
}

impl ErrorControlledCoupling {
    /// The algorithm with `settings` (checked in `prepare`).
    pub fn new(settings: ErrorControlSettings) -> Self {
        ErrorControlledCoupling {
            settings,
            link: ControlLink::default(),
            work: None,
            executor: None,
        }
    }

    /// Steps the dynamic modules of every integration (actual and comparative runs) with
    /// `executor` instead of one after the other; the numbers are the same.
    pub fn with_executor(mut self, executor: Box<dyn Executor>) -> Self {
        self.executor = Some(executor);
        self
    }

    /// The step controller the driver must run this algorithm with, from `t_start` to
    /// `t_stop`, first step `h_first` (clamped to `H_max`).
    pub fn step_controller(&self, t_start: f64, t_stop: f64, h_first: f64) -> ErrorStepControl {
        ErrorStepControl::linked(&self.link, &self.settings, t_start, t_stop, h_first)
    }

    /// The settings.
    pub fn settings(&self) -> &ErrorControlSettings {
        &self.settings
    }

    /// The control, coupling variables, states and last estimate and verdict of the run
    /// (after `prepare`).
    pub fn bookkeeping(&self) -> Option<&Bookkeeping> {
        self.work.as_ref().map(|w| &w.book)
    }
}

impl MasterAlgorithm for ErrorControlledCoupling {
    fn name(&self) -> &'static str {
        "error_controlled"
    }

    fn prepare(
        &mut self,
        sys: &mut CoupledSystem,
        start: &RunStart<'_>,
    ) -> Result<(), MasterError> {
        let estimator = self.settings.estimator;
        if estimator.implicit() {
            return Err(MasterError::InvalidSettings(format!(
                "step control `estimator`: {} needs the implicit (predictor/corrector) \
                 algorithm; the explicit algorithm offers ExLocal, ExMilne and ExSLocal",
                estimator.name()
            )));
        }
        let cv = CouplingVariables::new(sys)?;
        for m in (0..sys.n_modules()).filter(|&m| cv.is_dynamic(m)) {
            refuse_early_return(sys, m, "error-controlled coupling")?;
        }
        let extra = usize::from(estimator == EstimatorKind::ExLocal);
        let settings = capped_degree(sys, &cv, &self.settings, extra, |k| {
            format!(
                "{} at fixed degree k = {k} (its input polynomials have degree {})",
                estimator.name(),
                k + extra
            )
        })?;
        let book = start_bookkeeping(sys, start, settings, cv, self.link.clone())?;
        let snapshots = || (0..sys.n_modules()).map(|_| ModuleState::empty()).collect();
        let (n_pos, n_vel) = book
            .states()
            .map_or((0, 0), |s| (s.positions.len(), s.velocities.len()));
        let n_c = book.cv.len();
        self.work = Some(attempt::Work {
            book,
            at_start: snapshots(),
            at_end: snapshots(),
            compared_positions: vec![0.0; n_pos],
            compared_velocities: vec![0.0; n_vel],
            extrapolated: vec![0.0; n_c],
            defect: vec![0.0; n_c],
            comparison_positions: vec![0.0; n_pos],
            comparison_velocities: vec![0.0; n_vel],
            outputs: vec![0.0; sys.outputs().len()],
        });
        Ok(())
    }

    fn may_reject(&self) -> bool {
        true
    }

    fn step(
        &mut self,
        sys: &mut CoupledSystem,
        t: f64,
        h: f64,
    ) -> Result<MacroStepOutcome, MasterError> {
        // Not `ok_or`: that builds (and drops) the error at every step.
        let Some(work) = self.work.as_mut() else {
            return Err(MasterError::NotPrepared("ErrorControlledCoupling"));
        };
        let executor = self.executor.as_deref_mut();
        work.attempt(sys, executor, t, h)
    }

    fn commit(&mut self, _sys: &CoupledSystem, t_end: f64) {
        if let Some(work) = self.work.as_mut() {
            work.book.commit(t_end);
        }
    }

    fn discard(&mut self) {
        if let Some(work) = self.work.as_mut() {
            work.book.discard();
        }
    }
}
