//! Capability flags under their FMI 3.0 names, plus `x-` prefixed playground extensions
//! for what some algorithms need and FMI lacks (docs/methods.md §6.7).

use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

/// What a module declares it can do. A module must never do more or less than it declares;
/// `tests` check that the flags agree with the capability accessors of [`super::Module`].
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Capabilities {
    /// FMI `canHandleVariableCommunicationStepSize`.
    pub can_handle_variable_communication_step_size: bool,
    /// FMI `fixedInternalStepSize` in s, if the module integrates with a fixed step.
    pub fixed_internal_step_size: Option<f64>,
    /// FMI `maxOutputDerivativeOrder`.
    pub max_output_derivative_order: u32,
    /// FMI `recommendedIntermediateInputSmoothness`.
    pub recommended_intermediate_input_smoothness: u32,
    /// FMI `providesIntermediateUpdate`.
    pub provides_intermediate_update: bool,
    /// FMI `mightReturnEarlyFromDoStep`.
    pub might_return_early_from_do_step: bool,
    /// FMI `canReturnEarlyAfterIntermediateUpdate`.
    pub can_return_early_after_intermediate_update: bool,
    /// FMI `hasEventMode`.
    pub has_event_mode: bool,
    /// FMI `providesEvaluateDiscreteStates`.
    pub provides_evaluate_discrete_states: bool,
    /// FMI `canGetAndSetFMUState`.
    pub can_get_and_set_fmu_state: bool,
    /// FMI `canSerializeFMUState` (requires `canGetAndSetFMUState`).
    pub can_serialize_fmu_state: bool,
    /// FMI `providesDirectionalDerivatives`.
    pub provides_directional_derivatives: bool,
    /// FMI `providesAdjointDerivatives`.
    pub provides_adjoint_derivatives: bool,
    /// Extension `x-maxInputDerivativeOrder`: input derivatives accepted by
    /// [`super::InputDerivatives`], anchored at the next `do_step`'s communication point
    /// (FMI 2.0 `canInterpolateInputs` semantics, which FMI 3.0 dropped).
    pub x_max_input_derivative_order: u32,
    /// Extension `x-exposesStates`: continuous states are `Local` variables whose
    /// derivatives are `der(name)` variables, so Jacobians with respect to states exist.
    pub x_exposes_states: bool,
    /// Extension `x-linearTimeInvariant`: the module is `dx = Ax + Bu, y = Cx + Du` with
    /// constant matrices, so directional derivatives are exact and global.
    pub x_linear_time_invariant: bool,
    /// Extension `x-providesMidpointOutputs`: outputs at the midpoint of the last step are
    /// available through [`super::MidpointOutputs`].
    pub x_provides_midpoint_outputs: bool,
    /// Extension `x-exposesEquations`: the right-hand side `f(t, x, u)` and the outputs
    /// `g(t, x, u)` are available through [`super::ExposedEquations`], so the coupled
    /// equations can be integrated as one system.
    pub x_exposes_equations: bool,
    /// Extension `x-reportsEnergy`: the module has a `Float64` output named `E` with unit
    /// `J`, the energy it stores (kinetic plus potential of its own elements), so a run can
    /// show the system's energy next to the residual power of its bonds (docs/methods.md §13).
    pub x_reports_energy: bool,
}

/// One flag as shown in the page and CLI: FMI (or `x-`) name and value.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CapabilityFlag {
    /// FMI attribute name, or `x-` extension name.
    pub name: &'static str,
    /// Value as text (`true`, `false`, a number, or empty for "not declared").
    pub value: alloc::string::String,
}

impl Capabilities {
    /// All flags with their FMI names, in the order of the FMI 3.0 schema.
    pub fn flags(&self) -> Vec<CapabilityFlag> {
        use alloc::string::ToString;
        let b = |name, v: bool| CapabilityFlag {
            name,
            value: v.to_string(),
        };
        let n = |name, v: u32| CapabilityFlag {
            name,
            value: v.to_string(),
        };
        let fixed = CapabilityFlag {
            name: "fixedInternalStepSize",
            value: self
                .fixed_internal_step_size
                .map(|h| h.to_string())
                .unwrap_or_default(),
        };
        alloc::vec![
            b(
                "canHandleVariableCommunicationStepSize",
                self.can_handle_variable_communication_step_size
            ),
            fixed,
            n("maxOutputDerivativeOrder", self.max_output_derivative_order),
            n(
                "recommendedIntermediateInputSmoothness",
                self.recommended_intermediate_input_smoothness
            ),
            b(
                "providesIntermediateUpdate",
                self.provides_intermediate_update
            ),
            b(
                "mightReturnEarlyFromDoStep",
                self.might_return_early_from_do_step
            ),
            b(
                "canReturnEarlyAfterIntermediateUpdate",
                self.can_return_early_after_intermediate_update
            ),
            b("hasEventMode", self.has_event_mode),
            b(
                "providesEvaluateDiscreteStates",
                self.provides_evaluate_discrete_states
            ),
            b("canGetAndSetFMUState", self.can_get_and_set_fmu_state),
            b("canSerializeFMUState", self.can_serialize_fmu_state),
            b(
                "providesDirectionalDerivatives",
                self.provides_directional_derivatives
            ),
            b(
                "providesAdjointDerivatives",
                self.provides_adjoint_derivatives
            ),
            n(
                "x-maxInputDerivativeOrder",
                self.x_max_input_derivative_order
            ),
            b("x-exposesStates", self.x_exposes_states),
            b("x-linearTimeInvariant", self.x_linear_time_invariant),
            b(
                "x-providesMidpointOutputs",
                self.x_provides_midpoint_outputs
            ),
            b("x-exposesEquations", self.x_exposes_equations),
            b("x-reportsEnergy", self.x_reports_energy),
        ]
    }
}
