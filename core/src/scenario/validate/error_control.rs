//! Checks of `master.step_control` with `"method": "error"` (docs/methods.md §14.11): each
//! setting at its JSON path, the combinations the explicit error-controlled master runs,
//! and what it asks of each module (state save for rejected steps, exposed equations for
//! the update step and the state estimators), naming the module.

use super::super::schema::{
    Algorithm, ErrorControlSpec, MonitorSpec, OrderSpec, Scenario, StepControlSpec,
};
use crate::coupling::CouplingGraph;
use crate::error::ScenarioError;
use crate::master::error_control::MAX_DEGREE;
use crate::module::ModuleDescription;
use alloc::format;
use alloc::string::String;

const PATH: &str = "master.step_control";

impl Scenario {
    /// Checks `master.step_control` when it is `error`.
    pub(super) fn check_error_control(
        &self,
        descriptions: &[(String, ModuleDescription)],
        graph: &CouplingGraph,
    ) -> Result<(), ScenarioError> {
        let m = &self.master;
        let Some(StepControlSpec::Error(spec)) = &m.step_control else {
            if m.algorithm == Algorithm::Implicit {
                return Err(ScenarioError::at(
                    "master.algorithm",
                    "\"implicit\" needs master.step_control {\"method\": \"error\"} with \
                     im_milne or im_s_local",
                ));
            }
            return Ok(());
        };
        if m.algorithm == Algorithm::GaussSeidel {
            return Err(ScenarioError::at(
                "master.algorithm",
                "error-controlled steps (seed 002) are defined for Jacobi and implicit coupling",
            ));
        }
        for (present, field) in [
            (m.correction.is_some(), "master.correction"),
            (m.defects.is_some(), "master.defects"),
        ] {
            if present {
                return Err(ScenarioError::at(
                    field,
                    "cannot be combined with master.step_control `error`",
                ));
            }
        }
        super::implicit::check_implicit(spec, m.algorithm == Algorithm::Implicit)?;
        check_settings(spec)?;
        check_modules(spec, descriptions, graph)
    }
}

fn at(field: &str, message: String) -> ScenarioError {
    ScenarioError::at(format!("{PATH}.{field}"), message)
}

fn check_settings(spec: &ErrorControlSpec) -> Result<(), ScenarioError> {
    let positive = |x: f64| x.is_finite() && x > 0.0;
    for (field, value) in [
        ("rtol", Some(spec.rtol)),
        ("rtol_u", spec.rtol_u),
        ("safety_factor", Some(spec.safety_factor)),
        ("h_min", Some(spec.h_min)),
        ("h_max", spec.h_max),
        ("output_interval", spec.output_interval),
    ] {
        if let Some(v) = value.filter(|v| !positive(*v)) {
            return Err(at(field, format!("must be a finite number > 0, got {v}")));
        }
    }
    let atol = spec.atol.groups();
    for (group, a) in [("pos", &atol.pos), ("vel", &atol.vel), ("u", &atol.u)] {
        if a.values().is_empty() || a.values().iter().any(|v| !(v.is_finite() && *v >= 0.0)) {
            return Err(at(
                &format!("atol.{group}"),
                "every value must be a finite number ≥ 0".into(),
            ));
        }
    }
    if !(spec.r_min > 0.0 && spec.r_min <= 0.9) {
        return Err(at(
            "r_min",
            format!("must lie in (0, 0.9], got {}", spec.r_min),
        ));
    }
    if !(spec.r_max.is_finite() && spec.r_max > 1.0) {
        return Err(at(
            "r_max",
            format!("must be a finite number > 1, got {}", spec.r_max),
        ));
    }
    if let Some(h_max) = spec.h_max.filter(|h| spec.h_min > *h) {
        return Err(at(
            "h_min",
            format!("must not exceed h_max ({} s > {h_max} s)", spec.h_min),
        ));
    }
    let states = spec.estimator.kind().on_states();
    if spec.monitor == Some(MonitorSpec::CouplingBodies) && !states {
        return Err(at(
            "monitor",
            format!(
                "{} compares coupling variables, not states; \"coupling_bodies\" applies to \
                 ex_local, ex_milne and im_milne",
                spec.estimator.kind().name()
            ),
        ));
    }
    let (field, k) = match spec.order {
        OrderSpec::Fixed(k) => ("order.fixed", k),
        OrderSpec::Variable { k_max } => ("order.variable.k_max", k_max),
    };
    if k as usize > MAX_DEGREE {
        return Err(at(
            field,
            format!("the highest degree is {MAX_DEGREE}, got {k}"),
        ));
    }
    Ok(())
}

/// Every module must save its state (a rejected step restores it); outputs with direct
/// feedthrough need exposed equations (the update step re-evaluates them); the state
/// estimators read every dynamic module's states through its exposed equations.
fn check_modules(
    spec: &ErrorControlSpec,
    descriptions: &[(String, ModuleDescription)],
    graph: &CouplingGraph,
) -> Result<(), ScenarioError> {
    for (m, (name, desc)) in descriptions.iter().enumerate() {
        let c = &desc.capabilities;
        if !c.can_get_and_set_fmu_state {
            return Err(ScenarioError::at(
                PATH,
                format!(
                    "module `{name}` cannot save and restore its state (canGetAndSetFMUState), \
                     which every rejected error-controlled step needs"
                ),
            ));
        }
        let feedthrough = graph.output_value_refs(m).iter().any(|&o| {
            graph
                .input_value_refs(m)
                .iter()
                .any(|&i| desc.has_feedthrough(o, i))
        });
        if feedthrough && !c.x_exposes_equations {
            return Err(ScenarioError::at(
                PATH,
                format!(
                    "module `{name}` has outputs with direct feedthrough but does not expose its \
                     equations (x-exposesEquations): the update step cannot make them consistent"
                ),
            ));
        }
        if spec.estimator.kind().on_states() && !c.x_exposes_equations {
            return Err(at(
                "estimator",
                format!(
                    "{} compares positions and velocities, but module `{name}` does not expose \
                     its states (x-exposesEquations); use ex_s_local",
                    spec.estimator.kind().name()
                ),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::preset;

    #[test]
    fn a_module_that_cannot_save_its_state_or_expose_equations_is_named() {
        let s = preset("two-mass-oscillator").unwrap();
        let spec: ErrorControlSpec =
            serde_json::from_str(r#"{"estimator": "ex_milne", "rtol": 1e-4}"#).unwrap();
        let mut descriptions: alloc::vec::Vec<(String, ModuleDescription)> = s
            .modules
            .iter()
            .map(|m| {
                let module = crate::simulation::build_module(m).unwrap();
                (m.name.clone(), module.description().clone())
            })
            .collect();
        let connections: alloc::vec::Vec<(String, String)> = s
            .connections
            .iter()
            .map(|c| (c.from.clone(), c.to.clone()))
            .collect();
        let graph = CouplingGraph::build(&descriptions, &connections).unwrap();
        assert!(check_modules(&spec, &descriptions, &graph).is_ok());

        descriptions[1].1.capabilities.x_exposes_equations = false;
        let e = check_modules(&spec, &descriptions, &graph).unwrap_err();
        assert_eq!(e.path, PATH);
        assert!(
            e.message.contains("`mass2`") && e.message.contains("feedthrough"),
            "{}",
            e.message
        );

        descriptions[1].1.capabilities.can_get_and_set_fmu_state = false;
        let e = check_modules(&spec, &descriptions, &graph).unwrap_err();
        assert_eq!(e.path, PATH);
        assert!(
            e.message.contains("`mass2`") && e.message.contains("canGetAndSetFMUState"),
            "{}",
            e.message
        );
    }
}
