//! What the explicit and the implicit error-controlled algorithms check and set up alike in
//! `prepare`: a dynamic module that may return early is refused, the degree is capped at what
//! the modules' input derivatives carry, and the [`Bookkeeping`] of the run starts (monitored
//! states, the coupling-variable history, the SLocal tangent start).

use super::bookkeeping::Bookkeeping;
use super::coupling_variables::CouplingVariables;
use super::link::ControlLink;
use super::states::StateGroups;
use crate::error::MasterError;
use crate::master::error_control::{ErrorControlSettings, MacroStepControl, OrderMode};
use crate::master::{CoupledSystem, RunStart};
use alloc::format;
use alloc::string::String;

/// Refuses dynamic module `m` if it may return early from a step; `coupling` names the
/// algorithm in the message.
pub(crate) fn refuse_early_return(
    sys: &CoupledSystem,
    m: usize,
    coupling: &str,
) -> Result<(), MasterError> {
    if sys.instantiate_options(m).early_return_allowed {
        return Err(MasterError::InvalidSettings(format!(
            "module `{}` may return early from a step (events); {coupling} does not handle \
             early return",
            sys.name(m)
        )));
    }
    Ok(())
}

/// The highest degree every dynamic module's input polynomial can carry when an attempt
/// needs `extra` degrees above `k` (ExLocal's comparative run: 1), and the module that
/// limits it.
fn degree_cap(sys: &CoupledSystem, cv: &CouplingVariables, extra: usize) -> Option<(usize, usize)> {
    (0..sys.n_modules())
        .filter(|&m| cv.is_dynamic(m) && !sys.graph().input_range(m).is_empty())
        .map(|m| {
            let caps = &sys.subsystem(m).description().capabilities;
            (
                (caps.x_max_input_derivative_order as usize).saturating_sub(extra),
                m,
            )
        })
        .min()
}

/// `settings` with the degree capped at [`degree_cap`]: input polynomials of degree above
/// the modules' input derivative order cannot be handed over, so a fixed degree above it is
/// refused (`needed_by(k)` says what needs degree `k`) and a variable one capped
/// (documented).
pub(crate) fn capped_degree(
    sys: &CoupledSystem,
    cv: &CouplingVariables,
    settings: &ErrorControlSettings,
    extra: usize,
    needed_by: impl Fn(usize) -> String,
) -> Result<ErrorControlSettings, MasterError> {
    let mut settings = settings.clone();
    if let Some((cap, m)) = degree_cap(sys, cv, extra) {
        match settings.order {
            OrderMode::Fixed(k) if k > cap => {
                return Err(MasterError::MissingCapability {
                    module: sys.name(m).into(),
                    capability: "x-maxInputDerivativeOrder",
                    needed_by: needed_by(k),
                })
            }
            OrderMode::Variable { k_max } if k_max > cap => {
                settings.order = OrderMode::Variable { k_max: cap }
            }
            _ => {}
        }
    }
    Ok(settings)
}

/// The bookkeeping of a run about to start with `settings` (checked, degree capped): the
/// monitored states of the dynamic modules (state estimators), the coupling-variable
/// history from `start`, and the control at that history's length, at degree 1 on the
/// tangent for the SLocal estimators (docs/methods.md §14.10).
pub(crate) fn start_bookkeeping(
    sys: &mut CoupledSystem,
    start: &RunStart<'_>,
    settings: ErrorControlSettings,
    mut cv: CouplingVariables,
    link: ControlLink,
) -> Result<Bookkeeping, MasterError> {
    let (estimator, monitored, h_max) = (settings.estimator, settings.monitored, settings.h_max);
    let mut control = MacroStepControl::new(settings)?;
    let states = if estimator.on_states() {
        let needed_by = format!("the {} estimator", estimator.name());
        Some(StateGroups::new(
            sys,
            |m| cv.is_dynamic(m),
            monitored,
            &needed_by,
        )?)
    } else {
        None
    };
    cv.start(sys, start)?;
    let h0 = start.h.min(h_max);
    let tangent = !estimator.on_states() && cv.start_on_tangent(sys, h0)?;
    control.start_at(cv.history().len(), usize::from(tangent));
    Ok(Bookkeeping::new(control, cv, states, link))
}
