//! Checks of `master.defects` and `master.step_control` (docs/methods.md §15): orders,
//! tolerance, the combinations that make sense, and what the defect master will ask of
//! each module, reported at the field that asks for it and naming the module.

use super::super::schema::{Algorithm, Scenario, StartUp, StepControlSpec};
use crate::coupling::CouplingGraph;
use crate::error::ScenarioError;
use crate::module::ModuleDescription;
use alloc::format;
use alloc::string::String;
use alloc::vec;

/// Highest input and output order of the defect master.
const MAX_DEFECT_ORDER: u32 = 2;

impl Scenario {
    /// Checks `master.defects` and `master.step_control` against the modules.
    pub(super) fn check_defects(
        &self,
        descriptions: &[(String, ModuleDescription)],
        graph: &CouplingGraph,
    ) -> Result<(), ScenarioError> {
        let m = &self.master;
        if let Some(StepControlSpec::Defect { tol }) = &m.step_control {
            if !(tol.is_finite() && *tol > 0.0) {
                return Err(ScenarioError::at(
                    "master.step_control.tol",
                    format!("must be > 0, got {tol}"),
                ));
            }
            if m.defects.is_none() {
                return Err(ScenarioError::at(
                    "master.step_control.method",
                    "`defect` steps by the defects that `master.defects` measures; add \
                     `master.defects`",
                ));
            }
        }
        let Some(d) = &m.defects else {
            return Ok(());
        };
        let at = |path: &str, message: String| ScenarioError::at(path, message);
        if m.algorithm != Algorithm::Jacobi {
            return Err(at(
                "master.algorithm",
                "master.defects is defined for Jacobi coupling only (seed 003)".into(),
            ));
        }
        if m.extrapolation_order != 0 {
            return Err(at(
                "master.extrapolation_order",
                format!(
                    "must be 0 with master.defects (the inputs are the sources' Taylor \
                     polynomials of order master.defects.input_order), got {}",
                    m.extrapolation_order
                ),
            ));
        }
        if m.correction.is_some() {
            return Err(at(
                "master.correction",
                "cannot be combined with master.defects".into(),
            ));
        }
        if m.start_up != StartUp::RampUp {
            return Err(at(
                "master.start_up",
                "master.defects starts from the initial outputs and their derivatives; \
                 use ramp_up"
                    .into(),
            ));
        }
        for (field, order) in [
            ("input_order", d.input_order),
            ("output_order", d.output_order),
        ] {
            if order > MAX_DEFECT_ORDER {
                return Err(at(
                    &format!("master.defects.{field}"),
                    format!("must be 0, 1 or 2, got {order}"),
                ));
            }
        }
        self.check_defect_capabilities(descriptions, graph)
    }

    /// What the defect master asks of each module, as `DefectJacobi` checks it before the
    /// first step: output derivatives and midpoint samples of modules with connected
    /// outputs, input derivatives of modules with inputs, variable steps of every module.
    fn check_defect_capabilities(
        &self,
        descriptions: &[(String, ModuleDescription)],
        graph: &CouplingGraph,
    ) -> Result<(), ScenarioError> {
        let m = &self.master;
        let Some(d) = &m.defects else {
            return Ok(());
        };
        let mut watched = vec![false; descriptions.len()];
        for i in 0..graph.n_inputs() {
            watched[graph.output_module(graph.source_of_input(i))] = true;
        }
        let monitors_outputs = d.monitored != super::super::schema::MonitoredDefects::Connection;
        for (k, (name, desc)) in descriptions.iter().enumerate() {
            let c = &desc.capabilities;
            let has_inputs = !graph.input_range(k).is_empty();
            if watched[k] && c.max_output_derivative_order < d.output_order {
                return Err(ScenarioError::at(
                    "master.defects.output_order",
                    format!(
                        "output order {} needs output derivatives, but module `{name}` provides \
                         them only up to order {} (maxOutputDerivativeOrder)",
                        d.output_order, c.max_output_derivative_order
                    ),
                ));
            }
            if has_inputs && c.x_max_input_derivative_order < d.input_order {
                return Err(ScenarioError::at(
                    "master.defects.input_order",
                    format!(
                        "input order {} needs input derivatives, but module `{name}` accepts \
                         them only up to order {} (x-maxInputDerivativeOrder)",
                        d.input_order, c.x_max_input_derivative_order
                    ),
                ));
            }
            if watched[k] && monitors_outputs && !c.x_provides_midpoint_outputs {
                return Err(ScenarioError::at(
                    "master.defects.monitored",
                    format!(
                        "the output defect estimate needs midpoint output samples, which module \
                         `{name}` does not provide (x-providesMidpointOutputs); monitor \
                         `connection` only"
                    ),
                ));
            }
            if m.step_control.is_some() && !c.can_handle_variable_communication_step_size {
                return Err(ScenarioError::at(
                    "master.step_control",
                    format!(
                        "module `{name}` cannot handle variable communication step sizes \
                         (canHandleVariableCommunicationStepSize)"
                    ),
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::presets::preset;
    use super::super::super::schema::{
        Algorithm, CorrectionSpec, DefectsSpec, MonitoredDefects, Scenario, StepControlSpec,
    };
    use crate::error::ScenarioError;
    use alloc::string::ToString;

    /// Seed 000's two masses (exact modules with output and input derivatives up to 2, no
    /// midpoint samples) under defect control, monitoring connections.
    fn defect_two_mass() -> Scenario {
        let mut s = preset("two-mass-oscillator").expect("the preset exists");
        s.master.extrapolation_order = 0;
        s.master.start_up = Default::default();
        s.master.defects = Some(DefectsSpec {
            input_order: 2,
            output_order: 2,
            monitored: MonitoredDefects::Connection,
            initialisation: Default::default(),
        });
        s.master.step_control = Some(StepControlSpec::Defect { tol: 1e-3 });
        s
    }

    fn error(s: &Scenario) -> ScenarioError {
        s.validate().expect_err("the scenario is invalid")
    }

    fn defects(s: &mut Scenario) -> &mut DefectsSpec {
        s.master.defects.as_mut().expect("defects are set")
    }

    #[test]
    fn a_defect_controlled_scenario_validates() {
        assert!(defect_two_mass().validate().is_ok());
    }

    #[test]
    fn tolerance_and_orders_out_of_range_name_their_field() {
        for tol in [0.0, -1e-3, f64::NAN] {
            let mut s = defect_two_mass();
            s.master.step_control = Some(StepControlSpec::Defect { tol });
            let e = error(&s);
            assert_eq!(e.path, "master.step_control.tol");
            assert!(e.message.starts_with("must be > 0"), "{}", e.message);
        }
        let mut s = defect_two_mass();
        defects(&mut s).input_order = 3;
        let e = error(&s);
        assert_eq!(
            (e.path.as_str(), e.message.as_str()),
            ("master.defects.input_order", "must be 0, 1 or 2, got 3")
        );
        let mut s = defect_two_mass();
        defects(&mut s).output_order = 7;
        assert_eq!(
            error(&s).to_string(),
            "master.defects.output_order: must be 0, 1 or 2, got 7"
        );
        let mut s = defect_two_mass();
        s.master.macro_step = 0.0;
        assert_eq!(error(&s).path, "master.macro_step");
    }

    #[test]
    fn modules_lacking_what_the_settings_need_are_named() {
        // The Reference FMU Van der Pol oscillator reports no output derivatives.
        let mut s = preset("reference-feedthrough").expect("the preset exists");
        s.master.defects = Some(DefectsSpec {
            input_order: 0,
            output_order: 1,
            monitored: MonitoredDefects::Connection,
            initialisation: Default::default(),
        });
        let e = error(&s);
        assert_eq!(e.path, "master.defects.output_order");
        assert!(e.message.contains("module `vdp`"), "{}", e.message);
        defects(&mut s).output_order = 0;
        assert!(s.validate().is_ok(), "{:?}", s.validate().err());

        // Output defect estimates need midpoint samples, which the exact masses lack.
        let mut s = defect_two_mass();
        defects(&mut s).monitored = MonitoredDefects::Both;
        let e = error(&s);
        assert_eq!(e.path, "master.defects.monitored");
        assert!(e.message.contains("module `mass1`"), "{}", e.message);
    }

    #[test]
    fn combinations_the_defect_master_does_not_take_are_refused() {
        let mut s = defect_two_mass();
        s.master.defects = None;
        assert_eq!(error(&s).path, "master.step_control.method");
        let mut s = defect_two_mass();
        s.master.algorithm = Algorithm::GaussSeidel;
        assert_eq!(error(&s).path, "master.algorithm");
        let mut s = defect_two_mass();
        s.master.extrapolation_order = 1;
        assert_eq!(error(&s).path, "master.extrapolation_order");
        let mut s = defect_two_mass();
        s.master.correction = Some(CorrectionSpec {
            alpha: 1.0,
            jacobians: Default::default(),
        });
        assert_eq!(error(&s).path, "master.correction");
    }

    #[test]
    fn json_names_and_defaults() {
        let json = r#"{"schema_version": 1, "modules": [], "connections": [],
            "master": {"algorithm": "jacobi", "macro_step": 0.1,
                "defects": {"input_order": 1, "output_order": 2},
                "step_control": {"method": "defect", "tol": 0.005}},
            "run": {"stop": 1}}"#;
        let s: Scenario = serde_json::from_str(json).expect("parses");
        let d = s.master.defects.as_ref().expect("defects");
        assert_eq!((d.input_order, d.output_order), (1, 2));
        assert_eq!(d.monitored, MonitoredDefects::Both);
        assert_eq!(d.initialisation, Default::default());
        assert_eq!(
            s.master.step_control,
            Some(StepControlSpec::Defect { tol: 0.005 })
        );
        let bad = json.replace("\"defect\"", "\"wobble\"");
        assert!(serde_json::from_str::<Scenario>(&bad).is_err());
        // Scenarios without the new fields are written as before.
        let plain = preset("two-mass-oscillator").expect("the preset exists");
        let text = serde_json::to_string(&plain).expect("serialises");
        assert!(!text.contains("defects") && !text.contains("step_control"));
    }
}
