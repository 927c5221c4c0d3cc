//! [`ImplicitCoupling`]: seed 002's implicit predictor/corrector co-simulation with macro-step
//! size and order control and the ImMilne / ImSLocal estimators (docs/methods.md §14.12).
//!
//! One attempt from `T_N` over `H_N` at degree `k`:
//! 1. **Predictor**: every dynamic module integrates on the degree-`k` extrapolation through
//!    `T_N … T_{N−k}`; `u^pre = p^pre(T_{N+1})`, `q^pre, v^pre` are read. That polynomial is
//!    also the degree-`k` interpolation through `(T_{N+1}, u^pre)` and `T_N … T_{N−k+1}`, so
//!    the predictor run is the corrector's residual evaluation at `u* = u^pre`.
//! 2. **Corrector**: Newton on `g_c(u*) = u* − φ(T_{N+1}, z*(u*))`, where `z*(u*)` comes from
//!    integrating every dynamic module from `T_N` (restored from a [`Checkpoint`] taken at
//!    `T_N`) on the interpolation through `(T_{N+1}, u*)` and the newest `k` accepted
//!    points, and `φ` is the full update step. The interface Jacobian `dg_c/du*` is
//!    computed once per attempt at the predictor point ([`InterfaceJacobian`]) and kept
//!    for the following iterations (a simplified Newton: exact for linear coupling), or,
//!    with [`NewtonIteration::Full`], re-evaluated at every iterate.
//! 3. **Convergence**: after each corrector run, `‖g_c(u*)‖_WRMS ≤ fraction` with the
//!    coupling tolerances; at least one corrector run is always made. Reaching
//!    `max_iterations` unconverged is a rejection with `0.25·H_N` (paper §5.3).
//! 4. **Estimators**: ImMilne `(1 − C^{k+1}/C^k)|q^pre − q|`, `|v^pre − v|` on the actual
//!    grid (eqns 22, 23); ImSLocal `|u^pre − u|` (eqn 24).

mod attempt;
mod directional;
mod jacobian;
mod los;
#[cfg(test)]
mod tests;

pub use jacobian::InterfaceJacobian;

use super::error_control::ErrorControlSettings;
use super::error_controlled::prepare::{capped_degree, refuse_early_return, start_bookkeeping};
use super::{
    Bookkeeping, Checkpoint, ControlLink, CoupledSystem, CouplingVariables, ErrorStepControl,
    Executor, MacroStepOutcome, MasterAlgorithm, RunStart,
};
use crate::error::MasterError;
use crate::module::ModuleState;
use alloc::boxed::Box;
use alloc::format;
use alloc::vec;

/// Whether the corrector re-evaluates the interface Jacobian (the seed leaves it open).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum NewtonIteration {
    /// `dg_c/du*` once per attempt, at the predictor point, kept for every iteration.
    #[default]
    Simplified,
    /// `dg_c/du*` again at every iterate `u*` that did not converge: quadratic convergence
    /// on nonlinear coupling, at the Jacobian's cost per iteration.
    Full,
}

/// How the corrector iterates (docs/methods.md §14.12).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CorrectorSettings {
    /// How `dg_c/du*` is computed.
    pub jacobian: InterfaceJacobian,
    /// Simplified (default) or full Newton.
    pub newton: NewtonIteration,
    /// Converged when the WRMS norm of the residual `g_c(u*)`, weighted with the coupling
    /// tolerances, is at most this (default 0.1: a tenth of what the error test allows).
    pub tolerance_fraction: f64,
    /// Corrector runs before the attempt is rejected (default 5; the seed reports 2–3
    /// iterations as typical).
    pub max_iterations: u32,
}

impl Default for CorrectorSettings {
    fn default() -> Self {
        CorrectorSettings {
            jacobian: InterfaceJacobian::FiniteDifferences,
            newton: NewtonIteration::Simplified,
            tolerance_fraction: 0.1,
            max_iterations: 5,
        }
    }
}

impl CorrectorSettings {
    /// Checks the fields; messages name them as the scenario's `corrector` object does.
    pub fn validate(&self) -> Result<(), MasterError> {
        let f = self.tolerance_fraction;
        if !(f.is_finite() && f > 0.0) {
            return Err(MasterError::InvalidSettings(format!(
                "corrector `tolerance_fraction`: must be a finite number > 0 (got {f})"
            )));
        }
        if self.max_iterations == 0 {
            return Err(MasterError::InvalidSettings(
                "corrector `max_iterations`: must be at least 1".into(),
            ));
        }
        Ok(())
    }
}

/// Implicit (predictor/corrector) error-controlled coupling (seed 002 §3.2).
pub struct ImplicitCoupling {
    settings: ErrorControlSettings,
    corrector: CorrectorSettings,
    link: ControlLink,
    work: Option<attempt::Work>,
    executor: Option<Box<dyn Executor>>,
}

impl ImplicitCoupling {
    /// The algorithm with `settings` (an implicit estimator) and `corrector`.
    pub fn new(settings: ErrorControlSettings, corrector: CorrectorSettings) -> Self {
        ImplicitCoupling {
            settings,
            corrector,
            link: ControlLink::default(),
            work: None,
            executor: None,
        }
    }

    /// Steps the dynamic modules of the predictor and corrector runs, and the perturbed
    /// runs of the finite-difference Jacobian, with `executor` instead of one after the
    /// other; the numbers are the same.
    pub fn with_executor(mut self, executor: Box<dyn Executor>) -> Self {
        self.executor = Some(executor);
        self
    }

    /// The step controller the driver must run this algorithm with (as
    /// [`super::ErrorControlledCoupling::step_controller`]).
    pub fn step_controller(&self, t_start: f64, t_stop: f64, h_first: f64) -> ErrorStepControl {
        ErrorStepControl::linked(&self.link, &self.settings, t_start, t_stop, h_first)
    }

    /// The control, coupling variables, states and last estimate and verdict of the run
    /// (after `prepare`).
    pub fn bookkeeping(&self) -> Option<&Bookkeeping> {
        self.work.as_ref().map(|w| &w.book)
    }

    /// The last attempt's predicted coupling variables `u^pre`, corrector runs and final
    /// residual norm `‖g_c‖_WRMS`.
    pub fn last_corrector(&self) -> Option<(&[f64], u32, f64)> {
        self.work
            .as_ref()
            .map(|w| (w.predicted.as_slice(), w.iterations, w.residual_norm))
    }

    /// The last interface Jacobian `dg_c/du*` (row-major, `n_c × n_c`).
    pub fn last_jacobian(&self) -> Option<&[f64]> {
        self.work.as_ref().map(|w| w.jacobian.as_slice())
    }
}

impl MasterAlgorithm for ImplicitCoupling {
    fn name(&self) -> &'static str {
        "implicit"
    }

    fn prepare(
        &mut self,
        sys: &mut CoupledSystem,
        start: &RunStart<'_>,
    ) -> Result<(), MasterError> {
        self.corrector.validate()?;
        let estimator = self.settings.estimator;
        if !estimator.implicit() {
            return Err(MasterError::InvalidSettings(format!(
                "step control `estimator`: {} belongs to the explicit algorithm; the implicit \
                 algorithm offers ImMilne and ImSLocal",
                estimator.name()
            )));
        }
        let cv = CouplingVariables::new(sys)?;
        for m in (0..sys.n_modules()).filter(|&m| cv.is_dynamic(m)) {
            refuse_early_return(sys, m, "implicit coupling")?;
            let caps = &sys.subsystem(m).description().capabilities;
            if !caps.can_get_and_set_fmu_state {
                return Err(MasterError::MissingCapability {
                    module: sys.name(m).into(),
                    capability: "canGetAndSetFMUState",
                    needed_by: "the implicit corrector (every iteration restarts from T_N)".into(),
                });
            }
            let needs_equations = self.corrector.jacobian == InterfaceJacobian::LowOrder;
            if needs_equations && !caps.x_exposes_equations {
                return Err(MasterError::MissingCapability {
                    module: sys.name(m).into(),
                    capability: "x-exposesEquations",
                    needed_by: "the low-order-sensitivity interface Jacobian".into(),
                });
            }
        }
        let settings = capped_degree(sys, &cv, &self.settings, 0, |k| {
            format!("{} at fixed degree k = {k}", estimator.name())
        })?;
        let book = start_bookkeeping(sys, start, settings, cv, self.link.clone())?;
        let n_c = book.cv.len();
        let (n_pos, n_vel) = book
            .states()
            .map_or((0, 0), |s| (s.positions.len(), s.velocities.len()));
        let mut jacobian_work = jacobian::JacobianWork::new(sys, &book.cv, self.corrector.jacobian);
        if self.corrector.jacobian == InterfaceJacobian::DirectionalDerivatives {
            jacobian_work.directional = Some(directional::Directional::new(sys, &book.cv)?);
        }
        let snapshots = || (0..sys.n_modules()).map(|_| ModuleState::empty()).collect();
        self.work = Some(attempt::Work {
            book,
            corrector: self.corrector,
            jacobian_work,
            checkpoint: Checkpoint::new(sys),
            at_start: snapshots(),
            at_end: snapshots(),
            predicted_positions: vec![0.0; n_pos],
            predicted_velocities: vec![0.0; n_vel],
            predicted: vec![0.0; n_c],
            u_star: vec![0.0; n_c],
            residual: vec![0.0; n_c],
            jacobian: vec![0.0; n_c * n_c],
            iterations: 0,
            residual_norm: 0.0,
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
            return Err(MasterError::NotPrepared("ImplicitCoupling"));
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
