//! The optional-capability calls of [`Subsystem`]: FMU state (rollback), directional,
//! output and input derivatives. Each checks the FMI state and its arguments, then calls
//! through the module's capability accessor; a missing capability is `Unsupported`.

use super::{FmiState, Subsystem};
use crate::module::{
    Capabilities, Derivatives, JacobianProduct, ModuleError, ModuleState, ValueRef,
};
use alloc::vec::Vec;

impl Subsystem {
    /// `fmi3GetFMUState` into a new state.
    pub fn get_state(&mut self) -> Result<ModuleState, ModuleError> {
        self.require("fmi3GetFMUState", &Self::ALIVE)?;
        self.through("canGetAndSetFMUState", |m| {
            m.state_snapshot().map(|s| s.get_state())
        })
    }

    /// `fmi3GetFMUState` into `slot`, reusing its storage when it holds a state this
    /// module saved ([`crate::module::StateSnapshot::save_state_into`]): a checkpoint per step
    /// without an allocation per step.
    pub fn save_state_into(&mut self, slot: &mut ModuleState) -> Result<(), ModuleError> {
        self.require("fmi3GetFMUState", &Self::ALIVE)?;
        self.through("canGetAndSetFMUState", |m| {
            m.state_snapshot().map(|s| s.save_state_into(slot))
        })
    }

    /// `fmi3SetFMUState`: rollback. The saved state includes inputs (FMI 3.0), so outputs
    /// may be read again right after. After an `Error` status the instance is back in the
    /// state the error left (FMI 3.0 allows this restore after `fmi3Error`).
    pub fn set_state(&mut self, state: &ModuleState) -> Result<(), ModuleError> {
        self.require("fmi3SetFMUState", &Self::ALIVE)?;
        self.counts.set_state += 1;
        self.through("canGetAndSetFMUState", |m| {
            m.state_snapshot().map(|s| s.set_state(state))
        })?;
        if let (FmiState::Terminated, Some(before)) = (self.state, self.before_error.take()) {
            self.state = before;
        }
        self.set_since_step = false;
        // An event reported by a step that the rollback undid is gone with it.
        self.event_pending = false;
        Ok(())
    }

    /// `call` is legal now and the module declares `canSerializeFMUState`.
    fn require_serialize(&mut self, call: &'static str) -> Result<(), ModuleError> {
        self.require(call, &Self::ALIVE)?;
        if self.caps.can_serialize_fmu_state {
            Ok(())
        } else {
            self.unsupported("canSerializeFMUState")
        }
    }

    /// `fmi3SerializeFMUState`.
    pub fn serialize_state(&mut self, state: &ModuleState) -> Result<Vec<u8>, ModuleError> {
        self.require_serialize("fmi3SerializeFMUState")?;
        self.through("canGetAndSetFMUState", |m| {
            m.state_snapshot().map(|s| s.serialize_state(state))
        })
    }

    /// `fmi3DeserializeFMUState`.
    pub fn deserialize_state(&mut self, bytes: &[u8]) -> Result<ModuleState, ModuleError> {
        self.require_serialize("fmi3DeserializeFMUState")?;
        self.through("canGetAndSetFMUState", |m| {
            m.state_snapshot().map(|s| s.deserialize_state(bytes))
        })
    }

    /// `fmi3GetDirectionalDerivative`.
    pub fn directional_derivative(
        &mut self,
        unknowns: &[ValueRef],
        knowns: &[ValueRef],
        seed: &[f64],
        sensitivity: &mut [f64],
    ) -> Result<(), ModuleError> {
        use FmiState::*;
        self.require(
            "fmi3GetDirectionalDerivative",
            &[InitializationMode, StepMode, EventMode, Terminated],
        )?;
        let p = JacobianProduct::new(unknowns, knowns, seed, sensitivity);
        let p = self.checked(p)?;
        self.counts.directional_derivative += 1;
        self.through("providesDirectionalDerivatives", |m| {
            m.directional_derivatives()
                .map(|d| d.directional_derivative(p))
        })
    }

    /// The arguments of an output or input derivative call, if it is legal now, they have
    /// one length and every order is within what the module declares.
    fn derivatives<'a, V: AsRef<[f64]>>(
        &mut self,
        call: &DerivativeCall,
        (vrs, orders, values): (&'a [ValueRef], &'a [u32], V),
    ) -> Result<Derivatives<'a, V>, ModuleError> {
        self.require(call.name, call.allowed)?;
        let max = (call.max_order)(&self.caps);
        let d = Derivatives::checked(vrs, orders, values).and_then(|d| {
            match orders.iter().any(|&k| k == 0 || k > max) {
                true => Err(ModuleError::invalid(call.out_of_range)),
                false => Ok(d),
            }
        });
        self.checked(d)
    }

    /// `fmi3GetOutputDerivatives`.
    pub fn get_output_derivatives(
        &mut self,
        vrs: &[ValueRef],
        orders: &[u32],
        values: &mut [f64],
    ) -> Result<(), ModuleError> {
        let call = &OUTPUT_DERIVATIVES;
        let d = self.derivatives(call, (vrs, orders, values))?;
        self.through(call.flag, |m| {
            m.output_derivatives().map(|o| o.get_output_derivatives(d))
        })
    }

    /// Extension: input derivatives for the next step (`x-maxInputDerivativeOrder`).
    pub fn set_input_derivatives(
        &mut self,
        vrs: &[ValueRef],
        orders: &[u32],
        values: &[f64],
    ) -> Result<(), ModuleError> {
        let call = &INPUT_DERIVATIVES;
        let d = self.derivatives(call, (vrs, orders, values))?;
        self.through(call.flag, |m| {
            m.input_derivatives().map(|i| i.set_input_derivatives(d))
        })?;
        if self.state == FmiState::StepMode {
            self.set_since_step = true;
        }
        Ok(())
    }

    /// Extension: outputs at the midpoint of the last completed step
    /// (`x-providesMidpointOutputs`), legal in Step Mode after a step.
    pub fn get_midpoint_outputs(
        &mut self,
        vrs: &[ValueRef],
        values: &mut [f64],
    ) -> Result<(), ModuleError> {
        self.require("x-getMidpointOutputs", &[FmiState::StepMode])?;
        if vrs.len() != values.len() {
            return Err(ModuleError::invalid(
                "x-getMidpointOutputs: one value per value reference",
            ));
        }
        self.through("x-providesMidpointOutputs", |m| {
            m.midpoint_outputs()
                .map(|o| o.get_midpoint_outputs(vrs, values))
        })
    }
}

/// What an output or input derivative call checks besides its arguments' lengths.
struct DerivativeCall {
    /// FMI (or `x-`) function name.
    name: &'static str,
    /// States the call is legal in.
    allowed: &'static [FmiState],
    /// The capability flag that declares the highest order, and its value.
    flag: &'static str,
    max_order: fn(&Capabilities) -> u32,
    /// The error for an order outside `1..=max`.
    out_of_range: &'static str,
}

const OUTPUT_DERIVATIVES: DerivativeCall = DerivativeCall {
    name: "fmi3GetOutputDerivatives",
    allowed: &[FmiState::StepMode, FmiState::Terminated],
    flag: "maxOutputDerivativeOrder",
    max_order: |c| c.max_output_derivative_order,
    out_of_range: "output derivative order outside 1..=maxOutputDerivativeOrder",
};

const INPUT_DERIVATIVES: DerivativeCall = DerivativeCall {
    name: "x-setInputDerivatives",
    allowed: &[FmiState::InitializationMode, FmiState::StepMode],
    flag: "x-maxInputDerivativeOrder",
    max_order: |c| c.x_max_input_derivative_order,
    out_of_range: "input derivative order outside 1..=x-maxInputDerivativeOrder",
};
