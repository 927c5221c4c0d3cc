//! [`ExplicitCoupling`]: non-iterative co-simulation with polynomial extrapolation of the
//! coupling signals (docs/methods.md, explicit coupling), as Jacobi or Gauss-Seidel.
//!
//! Each module receives its inputs as the Taylor polynomial of the extrapolated (or, in
//! Gauss-Seidel, interpolated) coupling signal anchored at the step start `t_n`: the value
//! through `set_float64`, derivatives `1..=p` through `set_input_derivatives`
//! (`x-maxInputDerivativeOrder`). Per module and step the calls are set → do_step → get,
//! so FMI's "no get after set" rule is never broken.
//!
//! - [`work`]: the input predictor and history of one run (values, derivatives, weights);
//! - [`sequence`]: who steps in which order (Jacobi: modules that may return early first;
//!   Gauss-Seidel: the given sequence) and what early return needs;
//! - [`early_return`]: one macro-step with early return, Event Mode and termination.
//!
//! Jacobi: every module steps on inputs extrapolated from the outputs at `t_n` and before;
//! no module sees another's new outputs within the macro-step. Gauss-Seidel: inputs whose
//! source already stepped use the polynomial through the new sample and the previous `p`
//! samples (interpolation); with `p = 0` that is the classic "use the newest value".
//!
//! A step a module discards (`fmi3Discard`) is a rejection: the driver retries it if its
//! step controller can, and fails with [`MasterError::StepDiscarded`] otherwise. Time events
//! announced by `nextEventTime` are left to the modules (they return early at them).

mod early_return;
mod sequence;
mod work;

use super::predictor::{extrapolation, InputPredictor};
use super::{CoupledSystem, Executor, MacroStepOutcome, MasterAlgorithm, RunStart};
use crate::error::MasterError;
use alloc::boxed::Box;
use alloc::vec::Vec;
use sequence::StepOrder;
use work::ExplicitWork;

/// Which modules see new outputs within a macro-step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Scheme {
    /// All modules step on extrapolated inputs (could run in parallel).
    Jacobi,
    /// Modules step in this sequence (module indices, each exactly once); inputs from
    /// modules that already stepped use the polynomial through their new sample.
    GaussSeidel(Vec<usize>),
}

/// Explicit Jacobi or Gauss-Seidel coupling with polynomial extrapolation of order
/// `p = 0..=4` (0 = zero-order hold; orders above 2 shrink the stability region).
/// Settings are checked in `prepare`, before the first step.
pub struct ExplicitCoupling {
    scheme: Scheme,
    order: u32,
    /// `None`: the modules of a sweep step one after the other, without the indirection.
    executor: Option<Box<dyn Executor>>,
    work: Option<ExplicitWork>,
}

impl ExplicitCoupling {
    /// `scheme` with extrapolation order `extrapolation_order`.
    pub fn new(scheme: Scheme, extrapolation_order: u32) -> Self {
        ExplicitCoupling {
            scheme,
            order: extrapolation_order,
            executor: None,
            work: None,
        }
    }

    /// Steps the modules of each Jacobi sweep with `executor` instead of one after the other.
    pub fn with_executor(mut self, executor: Box<dyn Executor>) -> Self {
        self.executor = Some(executor);
        self
    }

    /// Jacobi with extrapolation order `order`.
    pub fn jacobi(order: u32) -> Self {
        Self::new(Scheme::Jacobi, order)
    }

    /// Gauss-Seidel stepping modules in `sequence`, extrapolation order `order`.
    pub fn gauss_seidel(sequence: Vec<usize>, order: u32) -> Self {
        Self::new(Scheme::GaussSeidel(sequence), order)
    }

    /// The coupling scheme.
    pub fn scheme(&self) -> &Scheme {
        &self.scheme
    }

    /// The extrapolation order `p`.
    pub fn extrapolation_order(&self) -> u32 {
        self.order
    }
}

impl MasterAlgorithm for ExplicitCoupling {
    fn name(&self) -> &'static str {
        match self.scheme {
            Scheme::Jacobi => "jacobi",
            Scheme::GaussSeidel(_) => "gauss_seidel",
        }
    }

    fn prepare(
        &mut self,
        sys: &mut CoupledSystem,
        start: &RunStart<'_>,
    ) -> Result<(), MasterError> {
        extrapolation(self.order)?;
        let sequence = match &self.scheme {
            Scheme::Jacobi => None,
            Scheme::GaussSeidel(s) => {
                sequence::check_sequence(s, sys.names())?;
                Some(s.as_slice())
            }
        };
        let predictor = InputPredictor::new(sys, self.order)?;
        let order = StepOrder::new(sys, sequence)?;
        let mut work = ExplicitWork::new(sys, predictor, order);
        work.start_history(sys, start)?;
        self.work = Some(work);
        Ok(())
    }

    fn may_reject(&self) -> bool {
        self.work.as_ref().is_some_and(|w| w.order.may_roll_back())
    }

    fn step(
        &mut self,
        sys: &mut CoupledSystem,
        t: f64,
        h: f64,
    ) -> Result<MacroStepOutcome, MasterError> {
        // Not `ok_or`: that builds (and drops) the error at every step.
        let Some(work) = self.work.as_mut() else {
            return Err(MasterError::NotPrepared("ExplicitCoupling"));
        };
        let executor = self
            .executor
            .as_mut()
            .map(|e| e.as_mut() as &mut dyn Executor);
        early_return::macro_step(work, executor, sys, t, h)
    }

    fn commit(&mut self, sys: &CoupledSystem, t_end: f64) {
        if let Some(work) = self.work.as_mut() {
            work.commit(sys, t_end);
        }
    }
}
