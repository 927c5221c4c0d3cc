//! The numerical core of seed 002's combined macro-step size and order control
//! (docs/methods.md §14): Lagrange polynomials of the coupling variables on a non-uniform
//! grid, the grid-dependent error constants of the Milne estimators, WRMS norms, order
//! selection, step-size selection and the [`MacroStepControl`] that combines them. It knows
//! no module and no driver: the coupling algorithms (explicit with update step, implicit
//! predictor/corrector) compute the estimates and call it.
//!
//! # What an error-controlled algorithm calls
//!
//! Once, in `prepare`: [`MacroStepControl::new`] with [`ErrorControlSettings`] (validated
//! there), [`coupling_history`]`(n_c)` for the accepted `(T_i, u_i)` with `u_0` pushed, and
//! [`MacroStepControl::start`] (the first degree; `None` for ExLocal/ExMilne with one point,
//! whose first step needs another way), [`MacroStepControl::first_step`] for `H_0`.
//!
//! Per attempt from `T_N` over `H_N` at degree `k = `[`MacroStepControl::degree`]:
//! 1. coupling polynomials: a [`NewtonPolynomial`] (allocated once, fitted per attempt;
//!    [`NewtonPolynomial::derivatives`] gives the inputs' Taylor data at `T_N`) or
//!    [`lagrange::evaluate`] on the history for the extrapolation `P^k`, on
//!    [`WithNewest`]`(T_{N+1}, u*, history)` for the corrector's and ExMilne's
//!    interpolation, `P^{k+1}` for ExLocal's comparison and ExMilne's `û`;
//!    [`lagrange::lagrange_basis`] for `∂p/∂u*`;
//! 2. the estimate: for Milne estimators the factors of
//!    [`StepConstants::on_grid`]`(history, k, H_N)` ([`StepConstants::explicit_milne`] or
//!    [`StepConstants::implicit_milne`]) times the state differences; the WRMS norms per
//!    group straight from the compared solutions with [`ErrorNorms::from_states`] or
//!    [`ErrorNorms::from_coupling`] (weights from the new values);
//! 3. the verdict: [`MacroStepControl::assess`]`(&Attempt { t, h, k, norms,
//!    corrector_failed }, &history, &u_{N+1})` → [`ControlVerdict`] (`accepted`, `h_next`,
//!    `k_next`), or [`crate::error::MasterError::MacroStepTooSmall`] to end the run;
//! 4. on commit: push `(T_{N+1}, u_{N+1})` into the history and [`MacroStepControl::apply`]
//!    the verdict; on discard: only `apply` (the rejected point never enters the history).
//!
//! # The driver seam
//!
//! The driver's [`super::StepController::judge`] sees only [`super::StepDiagnostics`]
//! (`error`, iterations, and soon `order`), which cannot carry what the verdict needs:
//! separate position and velocity norms (different exponents), the order signals of the
//! coupling history, and the next step; and a controller cannot hand the next degree back
//! to the algorithm. So the `StepController` adapter is left to the algorithm's author.
//! The recommended split: **the algorithm owns the [`MacroStepControl`]** (it owns the
//! history and the degree) and calls `assess` at the end of `step`; a rejection becomes
//! `MacroStepOutcome::Rejected { reason: ErrorTooLarge, h_retry: Some(h_next) }` (the driver
//! retries with it without asking the controller), an acceptance reports `error` and
//! `order` in the diagnostics; `commit`/`discard` then `apply` the verdict. The one thing the
//! driver's controller still needs is the accepted step's `h_next`, for its next `propose`:
//! a field such as `StepDiagnostics::next_step: Option<f64>` makes that adapter a few lines.
//! (Alternatively a controller can own the [`MacroStepControl`] and call
//! [`MacroStepControl::assess_with`] on an [`Attempt`] and the [`DerivativeNorms`] of the
//! history with the new point, both `Copy`, if the diagnostics carry them; it must then
//! send the degree back to the algorithm.)

mod constants;
mod controller;
mod derivative_norms;
mod history;
pub mod lagrange;
mod newton;
mod norms;
mod order;
mod settings;
mod step_size;

pub use constants::{ErrorConstants, MilneFactors, StepConstants, MAX_CONSTANT_DEGREE};
pub use controller::{Attempt, ControlVerdict, MacroStepControl};
pub use derivative_norms::DerivativeNorms;
pub use history::{coupling_history, Newest, Samples, WithNewest};
pub use newton::NewtonPolynomial;
pub use norms::{AbsTol, ErrorNorms, GroupTolerance, Tolerances};
pub use order::{select_order, OrderChoice, OrderCounters, OrderRule};
pub use settings::{
    ErrorControlSettings, EstimatorKind, MonitoredStates, OrderMode, HISTORY_CAPACITY, MAX_DEGREE,
};
pub use step_size::{coupling_ratio, ratio, state_ratio, step_factor, StepLimits, StepRule};

#[cfg(test)]
mod tests;
