//! Test-only [`PolynomialProbe`]: modules with polynomial behaviour, so the defects of
//! docs/methods.md §15 are known in closed form. Each provides what the defect master asks
//! for (output derivatives up to 2 at its current time, input derivatives up to 2, the
//! midpoint sample of its last step), and each can leave any of it out. It declares
//! `canGetAndSetFMUState` but refuses every state call and counts it, so a test can prove
//! that a master never saved or restored a state.
//!
//! - [`PolynomialProbe::source`]: no input, `y(t) = Σ c_j t^j`;
//! - [`PolynomialProbe::integrator`]: `x' = u`, `y = x + g u` (`g = 0` unless
//!   [`PolynomialProbe::feedthrough`] sets it), integrating the input polynomial exactly;
//!   `y' = u + g u'`, `y'' = u' + g u''` at the current time.

use crate::module::{
    Capabilities, Causality, Derivatives, InputDerivatives, MidpointOutputs, Module,
    ModuleDescription, ModuleError, ModuleState, OutputDependency, OutputDerivatives,
    StateSnapshot, StepReport, ValueRef, Variability, Variable,
};
use alloc::sync::Arc;
use alloc::vec;
use alloc::vec::Vec;
use core::sync::atomic::{AtomicU32, Ordering};

/// Value reference of the output `y` (the input `u`, if any, is 0).
const Y: u32 = 1;

/// What the probe computes.
#[derive(Clone, Debug)]
enum Behaviour {
    /// `y(t) = Σ c_j t^j`.
    Source(Vec<f64>),
    /// `x' = u`, `y = x + g u`.
    Integrator {
        /// Direct feedthrough gain `g`.
        gain: f64,
    },
}

/// A module with polynomial behaviour (see the module docs).
pub struct PolynomialProbe {
    desc: ModuleDescription,
    behaviour: Behaviour,
    t: f64,
    x0: f64,
    x: f64,
    /// The input polynomial for the next step: value and derivatives at its start.
    u: [f64; 3],
    /// Value and derivatives of the input at the current time (what `y'`, `y''` report).
    u_now: [f64; 3],
    /// Output at the midpoint of the last step.
    y_mid: f64,
    state_calls: Arc<AtomicU32>,
}

impl PolynomialProbe {
    fn new(behaviour: Behaviour, with_input: bool) -> Self {
        let mut variables = Vec::new();
        if with_input {
            variables.push(Variable::new(
                "u",
                0,
                Causality::Input,
                Variability::Continuous,
                Some(0.0),
                "",
            ));
        }
        variables.push(Variable::new(
            "y",
            Y,
            Causality::Output,
            Variability::Continuous,
            None,
            "",
        ));
        let capabilities = Capabilities {
            can_handle_variable_communication_step_size: true,
            max_output_derivative_order: 2,
            x_max_input_derivative_order: if with_input { 2 } else { 0 },
            x_provides_midpoint_outputs: true,
            can_get_and_set_fmu_state: true,
            ..Capabilities::default()
        };
        PolynomialProbe {
            desc: ModuleDescription {
                model_name: "PolynomialProbe".into(),
                variables,
                capabilities,
                output_dependencies: vec![OutputDependency {
                    output: ValueRef(Y),
                    inputs: Vec::new(),
                }],
            },
            behaviour,
            t: 0.0,
            x0: 0.0,
            x: 0.0,
            u: [0.0; 3],
            u_now: [0.0; 3],
            y_mid: 0.0,
            state_calls: Arc::new(AtomicU32::new(0)),
        }
    }

    /// `y(t) = Σ_j coefficients[j] t^j`, no input.
    pub fn source(coefficients: &[f64]) -> Self {
        Self::new(Behaviour::Source(coefficients.to_vec()), false)
    }

    /// `x' = u`, `y = x`, `x(t0) = x0`.
    pub fn integrator(x0: f64) -> Self {
        let mut p = Self::new(Behaviour::Integrator { gain: 0.0 }, true);
        p.x0 = x0;
        p.x = x0;
        p
    }

    /// Direct feedthrough `y = x + gain·u` (an integrator only), declared in the output
    /// dependencies.
    pub fn feedthrough(mut self, gain: f64) -> Self {
        if let Behaviour::Integrator { gain: g } = &mut self.behaviour {
            *g = gain;
            let dependency = (ValueRef(0), crate::module::DependencyKind::Constant);
            self.desc.output_dependencies[0].inputs.push(dependency);
        }
        self
    }

    /// Declares output derivatives only up to `order` (0: none).
    pub fn output_derivative_order(mut self, order: u32) -> Self {
        self.desc.capabilities.max_output_derivative_order = order;
        self
    }

    /// Declares input derivatives only up to `order` (0: none).
    pub fn input_derivative_order(mut self, order: u32) -> Self {
        self.desc.capabilities.x_max_input_derivative_order = order;
        self
    }

    /// Declares no midpoint samples.
    pub fn without_midpoint(mut self) -> Self {
        self.desc.capabilities.x_provides_midpoint_outputs = false;
        self
    }

    /// Declares `canHandleVariableCommunicationStepSize = false`.
    pub fn fixed_step_only(mut self) -> Self {
        self.desc
            .capabilities
            .can_handle_variable_communication_step_size = false;
        self
    }

    /// The counter of state calls (`fmi3GetFMUState`, `fmi3SetFMUState`, ...), shared.
    pub fn state_calls(&self) -> Arc<AtomicU32> {
        self.state_calls.clone()
    }

    /// The input polynomial's value and derivatives `s` after its start.
    fn input_at(&self, s: f64) -> [f64; 3] {
        let u = &self.u;
        [u[0] + u[1] * s + u[2] * s * s / 2.0, u[1] + u[2] * s, u[2]]
    }

    /// `∫_0^s u`, exactly.
    fn input_integral(&self, s: f64) -> f64 {
        let u = &self.u;
        u[0] * s + u[1] * s * s / 2.0 + u[2] * s * s * s / 6.0
    }

    /// Output value and derivatives 1, 2 at the current time.
    fn output_now(&self) -> [f64; 3] {
        match &self.behaviour {
            Behaviour::Source(c) => source_derivatives(c, self.t),
            Behaviour::Integrator { gain: g } => {
                let u = &self.u_now;
                [self.x + g * u[0], u[0] + g * u[1], u[1] + g * u[2]]
            }
        }
    }

    fn refuse_state_call(&self) -> ModuleError {
        self.state_calls.fetch_add(1, Ordering::SeqCst);
        ModuleError::invalid("PolynomialProbe refuses to save or restore its state")
    }
}

/// `p(t), p'(t), p''(t)` for `p = Σ c_j t^j`.
fn source_derivatives(c: &[f64], t: f64) -> [f64; 3] {
    let mut out = [0.0; 3];
    for (j, &cj) in c.iter().enumerate() {
        let j = j as i32;
        out[0] += cj * libm::pow(t, f64::from(j));
        if j >= 1 {
            out[1] += cj * f64::from(j) * libm::pow(t, f64::from(j - 1));
        }
        if j >= 2 {
            out[2] += cj * f64::from(j * (j - 1)) * libm::pow(t, f64::from(j - 2));
        }
    }
    out
}

impl Module for PolynomialProbe {
    fn description(&self) -> &ModuleDescription {
        &self.desc
    }

    fn enter_initialization_mode(
        &mut self,
        _tolerance: Option<f64>,
        start_time: f64,
        _stop_time: Option<f64>,
    ) -> Result<(), ModuleError> {
        self.t = start_time;
        Ok(())
    }

    fn exit_initialization_mode(&mut self) -> Result<(), ModuleError> {
        Ok(())
    }

    fn set_float64(&mut self, vrs: &[ValueRef], values: &[f64]) -> Result<(), ModuleError> {
        for (vr, &v) in vrs.iter().zip(values) {
            if vr.0 != 0 || matches!(self.behaviour, Behaviour::Source(_)) {
                return Err(ModuleError::invalid("PolynomialProbe: only `u` can be set"));
            }
            self.u[0] = v;
            self.u_now[0] = v;
        }
        Ok(())
    }

    fn get_float64(&mut self, vrs: &[ValueRef], values: &mut [f64]) -> Result<(), ModuleError> {
        for (vr, v) in vrs.iter().zip(values.iter_mut()) {
            *v = match vr.0 {
                0 => self.u_now[0],
                _ => self.output_now()[0],
            };
        }
        Ok(())
    }

    fn do_step(
        &mut self,
        t: f64,
        h: f64,
        _no_set_state_prior: bool,
    ) -> Result<StepReport, ModuleError> {
        match &self.behaviour {
            Behaviour::Source(c) => self.y_mid = source_derivatives(c, t + 0.5 * h)[0],
            Behaviour::Integrator { gain } => {
                self.y_mid =
                    self.x + self.input_integral(0.5 * h) + gain * self.input_at(0.5 * h)[0];
                self.x += self.input_integral(h);
                self.u_now = self.input_at(h);
                // Input derivatives hold for one step (FMI 2.0 semantics).
                self.u = [self.u_now[0], 0.0, 0.0];
            }
        }
        self.t = t + h;
        Ok(StepReport::completed(t + h))
    }

    fn reset(&mut self) -> Result<(), ModuleError> {
        self.x = self.x0;
        self.u = [0.0; 3];
        self.u_now = [0.0; 3];
        Ok(())
    }

    fn state_snapshot(&mut self) -> Option<&mut dyn StateSnapshot> {
        Some(self)
    }

    fn output_derivatives(&mut self) -> Option<&mut dyn OutputDerivatives> {
        (self.desc.capabilities.max_output_derivative_order > 0).then_some(self)
    }

    fn input_derivatives(&mut self) -> Option<&mut dyn InputDerivatives> {
        (self.desc.capabilities.x_max_input_derivative_order > 0).then_some(self)
    }

    fn midpoint_outputs(&mut self) -> Option<&mut dyn MidpointOutputs> {
        self.desc
            .capabilities
            .x_provides_midpoint_outputs
            .then_some(self)
    }
}

impl StateSnapshot for PolynomialProbe {
    fn get_state(&mut self) -> Result<ModuleState, ModuleError> {
        Err(self.refuse_state_call())
    }
    fn save_state_into(&mut self, _slot: &mut ModuleState) -> Result<(), ModuleError> {
        Err(self.refuse_state_call())
    }
    fn set_state(&mut self, _state: &ModuleState) -> Result<(), ModuleError> {
        Err(self.refuse_state_call())
    }
    fn serialize_state(&mut self, _state: &ModuleState) -> Result<Vec<u8>, ModuleError> {
        Err(self.refuse_state_call())
    }
    fn deserialize_state(&mut self, _bytes: &[u8]) -> Result<ModuleState, ModuleError> {
        Err(self.refuse_state_call())
    }
}

impl OutputDerivatives for PolynomialProbe {
    fn get_output_derivatives(
        &mut self,
        mut d: Derivatives<'_, &mut [f64]>,
    ) -> Result<(), ModuleError> {
        let y = self.output_now();
        for (_, k, v) in d.iter_mut() {
            *v = y[k as usize];
        }
        Ok(())
    }
}

impl InputDerivatives for PolynomialProbe {
    fn set_input_derivatives(&mut self, d: Derivatives<'_, &[f64]>) -> Result<(), ModuleError> {
        for (_, k, v) in d.iter() {
            self.u[k as usize] = v;
            self.u_now[k as usize] = v;
        }
        Ok(())
    }
}

impl MidpointOutputs for PolynomialProbe {
    fn get_midpoint_outputs(
        &mut self,
        _vrs: &[ValueRef],
        values: &mut [f64],
    ) -> Result<(), ModuleError> {
        values.fill(self.y_mid);
        Ok(())
    }
}
