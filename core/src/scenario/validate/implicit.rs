//! Checks of `master.algorithm: "implicit"` (docs/methods.md §14.12): it runs only with
//! `master.step_control` `error` (a fixed step is refused: the corrector's rejection needs
//! the error controller), the implicit estimators only with it and the explicit ones only
//! without it, and the `corrector` settings at their JSON paths.

use super::super::schema::{ErrorControlSpec, NewtonSpec};
use crate::error::ScenarioError;
use alloc::format;

const PATH: &str = "master.step_control";

/// `implicit`: whether `master.algorithm` is `implicit`.
pub(super) fn check_implicit(spec: &ErrorControlSpec, implicit: bool) -> Result<(), ScenarioError> {
    let estimator = spec.estimator.kind();
    if estimator.implicit() && !implicit {
        return Err(ScenarioError::at(
            format!("{PATH}.estimator"),
            format!(
                "{} needs the implicit (predictor/corrector) scheme (master.algorithm \
                 \"implicit\"); explicit Jacobi offers ex_local, ex_milne and ex_s_local",
                estimator.name()
            ),
        ));
    }
    if !estimator.implicit() && implicit {
        return Err(ScenarioError::at(
            format!("{PATH}.estimator"),
            format!(
                "{} belongs to the explicit scheme; master.algorithm \"implicit\" offers \
                 im_milne and im_s_local",
                estimator.name()
            ),
        ));
    }
    let Some(c) = &spec.corrector else {
        return Ok(());
    };
    if !implicit {
        return Err(ScenarioError::at(
            format!("{PATH}.corrector"),
            "only with master.algorithm \"implicit\"",
        ));
    }
    if !(c.tolerance_fraction.is_finite() && c.tolerance_fraction > 0.0) {
        return Err(ScenarioError::at(
            format!("{PATH}.corrector.tolerance_fraction"),
            format!("must be a finite number > 0, got {}", c.tolerance_fraction),
        ));
    }
    if c.newton == Some(NewtonSpec::Full) && c.max_iterations < 2 {
        return Err(ScenarioError::at(
            format!("{PATH}.corrector.newton"),
            "\"full\" re-evaluates the Jacobian between iterations: it needs \
             max_iterations ≥ 2",
        ));
    }
    if c.max_iterations == 0 {
        return Err(ScenarioError::at(
            format!("{PATH}.corrector.max_iterations"),
            "must be at least 1",
        ));
    }
    Ok(())
}
