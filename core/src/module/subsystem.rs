//! [`Subsystem`]: a module as masters see it, with the FMI 3.0 co-simulation state machine
//! enforced (seed-004 digest §2.1). An illegal call returns an `Error` status and, as in
//! FMI, leaves the instance Terminated; nothing panics.

use super::interface::{check_order_lengths, check_seed_lengths};
use super::{
    DiscreteStatesUpdate, InstantiateOptions, Module, ModuleDescription, ModuleError,
    ModuleErrorKind, ModuleState, Status, StepReport, ValueRef,
};
use alloc::boxed::Box;
use alloc::vec::Vec;

/// FMI 3.0 co-simulation states (configuration modes and clocks are not modelled).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FmiState {
    /// After instantiation: start values and parameters may be set.
    Instantiated,
    /// Between `EnterInitializationMode` and `ExitInitializationMode`.
    InitializationMode,
    /// Normal stepping.
    StepMode,
    /// Event iteration (only with `eventModeUsed`).
    EventMode,
    /// After `Terminate` or an `Error` status.
    Terminated,
    /// After a `Fatal` status: no further calls.
    Fatal,
}

/// Calls counted per subsystem (shown as cost in the page).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CallCounts {
    /// `fmi3DoStep` calls, including discarded ones.
    pub do_step: u64,
    /// `fmi3SetFMUState` calls (rollbacks).
    pub set_state: u64,
    /// `fmi3GetDirectionalDerivative` calls.
    pub directional_derivative: u64,
}

/// A module wrapped with FMI call-order checks.
pub struct Subsystem {
    module: Box<dyn Module>,
    state: FmiState,
    options: InstantiateOptions,
    set_since_step: bool,
    event_pending: bool,
    last_h: Option<f64>,
    counts: CallCounts,
}

impl Subsystem {
    /// `fmi3InstantiateCoSimulation`.
    pub fn instantiate(
        mut module: Box<dyn Module>,
        options: InstantiateOptions,
    ) -> Result<Self, ModuleError> {
        let caps = &module.description().capabilities;
        if options.event_mode_used && !caps.has_event_mode {
            return Err(ModuleError::invalid("eventModeUsed requires hasEventMode"));
        }
        module.instantiate(options)?;
        Ok(Subsystem {
            module,
            state: FmiState::Instantiated,
            options,
            set_since_step: false,
            event_pending: false,
            last_h: None,
            counts: CallCounts::default(),
        })
    }

    /// The module's description.
    pub fn description(&self) -> &ModuleDescription {
        self.module.description()
    }

    /// Current FMI state.
    pub fn state(&self) -> FmiState {
        self.state
    }

    /// Calls made so far.
    pub fn counts(&self) -> CallCounts {
        self.counts
    }

    fn require(&mut self, call: &'static str, allowed: &[FmiState]) -> Result<(), ModuleError> {
        if allowed.contains(&self.state) {
            Ok(())
        } else {
            let err = ModuleError::error(ModuleErrorKind::IllegalCall {
                call,
                state: self.state,
            });
            self.fail(&err);
            Err(err)
        }
    }

    /// FMI: `Error` leaves the instance Terminated, `Fatal` unusable.
    fn fail(&mut self, err: &ModuleError) {
        if self.state == FmiState::Fatal {
            return;
        }
        self.state = if err.status == Status::Fatal {
            FmiState::Fatal
        } else {
            FmiState::Terminated
        };
    }

    fn checked<T>(&mut self, r: Result<T, ModuleError>) -> Result<T, ModuleError> {
        if let Err(e) = &r {
            self.fail(e);
        }
        r
    }

    fn unsupported<T>(&mut self, capability: &'static str) -> Result<T, ModuleError> {
        let err = ModuleError::unsupported(capability);
        self.fail(&err);
        Err(err)
    }

    /// The result of a call through a capability accessor: `None` (the module lacks the
    /// capability `flag` names) is `Unsupported`; errors leave the instance Terminated.
    fn through<T>(
        &mut self,
        r: Option<Result<T, ModuleError>>,
        flag: &'static str,
    ) -> Result<T, ModuleError> {
        match r {
            Some(r) => self.checked(r),
            None => self.unsupported(flag),
        }
    }

    /// `fmi3EnterInitializationMode`.
    pub fn enter_initialization_mode(
        &mut self,
        tolerance: Option<f64>,
        start_time: f64,
        stop_time: Option<f64>,
    ) -> Result<(), ModuleError> {
        self.require("fmi3EnterInitializationMode", &[FmiState::Instantiated])?;
        if !start_time.is_finite() || stop_time.is_some_and(|s| !(s >= start_time)) {
            let e = ModuleError::invalid("start time must be finite and not after the stop time");
            return self.checked(Err(e));
        }
        let r = self
            .module
            .enter_initialization_mode(tolerance, start_time, stop_time);
        self.checked(r)?;
        self.state = FmiState::InitializationMode;
        Ok(())
    }

    /// `fmi3ExitInitializationMode`: to Step Mode, or Event Mode with `eventModeUsed`.
    pub fn exit_initialization_mode(&mut self) -> Result<(), ModuleError> {
        self.require(
            "fmi3ExitInitializationMode",
            &[FmiState::InitializationMode],
        )?;
        let r = self.module.exit_initialization_mode();
        self.checked(r)?;
        self.state = if self.options.event_mode_used {
            FmiState::EventMode
        } else {
            FmiState::StepMode
        };
        self.set_since_step = false;
        Ok(())
    }

    /// `fmi3SetFloat64`. In Step Mode only inputs and tunable parameters may be set.
    pub fn set_float64(&mut self, vrs: &[ValueRef], values: &[f64]) -> Result<(), ModuleError> {
        use FmiState::*;
        self.require(
            "fmi3SetFloat64",
            &[Instantiated, InitializationMode, StepMode, EventMode],
        )?;
        if vrs.len() != values.len() {
            return self.checked(Err(ModuleError::invalid(
                "value references and values differ in length",
            )));
        }
        if matches!(self.state, StepMode | EventMode) {
            for vr in vrs {
                let settable = self
                    .module
                    .description()
                    .variable_by_ref(*vr)
                    .map(|v| v.settable_in_step_mode());
                match settable {
                    Some(true) => {}
                    Some(false) => {
                        return self
                            .checked(Err(ModuleError::error(ModuleErrorKind::NotSettable(*vr))))
                    }
                    None => {
                        return self.checked(Err(ModuleError::error(
                            ModuleErrorKind::UnknownValueRef(*vr),
                        )))
                    }
                }
            }
        }
        let r = self.module.set_float64(vrs, values);
        self.checked(r)?;
        if self.state == StepMode {
            self.set_since_step = true;
        }
        Ok(())
    }

    /// `fmi3GetFloat64`. Forbidden in Step Mode after a set without a step in between.
    pub fn get_float64(&mut self, vrs: &[ValueRef], values: &mut [f64]) -> Result<(), ModuleError> {
        use FmiState::*;
        self.require(
            "fmi3GetFloat64",
            &[
                Instantiated,
                InitializationMode,
                StepMode,
                EventMode,
                Terminated,
            ],
        )?;
        if vrs.len() != values.len() {
            return self.checked(Err(ModuleError::invalid(
                "value references and values differ in length",
            )));
        }
        if self.state == StepMode && self.set_since_step {
            return self.checked(Err(ModuleError::error(ModuleErrorKind::GetAfterSet)));
        }
        let r = self.module.get_float64(vrs, values);
        self.checked(r)
    }

    /// `fmi3DoStep`. Time advances only here.
    pub fn do_step(
        &mut self,
        t: f64,
        h: f64,
        no_set_state_prior_to_current_point: bool,
    ) -> Result<StepReport, ModuleError> {
        self.require("fmi3DoStep", &[FmiState::StepMode])?;
        if self.event_pending {
            let e = ModuleError::error(ModuleErrorKind::IllegalCall {
                call: "fmi3DoStep (eventHandlingNeeded was reported; call fmi3EnterEventMode)",
                state: self.state,
            });
            return self.checked(Err(e));
        }
        if !(h > 0.0) || !h.is_finite() || !t.is_finite() {
            return self.checked(Err(ModuleError::invalid(
                "communicationStepSize must be finite and > 0",
            )));
        }
        let caps = &self.module.description().capabilities;
        if !caps.can_handle_variable_communication_step_size {
            if let Some(prev) = self.last_h {
                if (prev - h).abs() > 1e-12 * prev.abs() {
                    let e = ModuleError::invalid(
                        "module cannot handle a variable communication step size \
                         (canHandleVariableCommunicationStepSize = false)",
                    );
                    return self.checked(Err(e));
                }
            }
        }
        self.counts.do_step += 1;
        let r = self
            .module
            .do_step(t, h, no_set_state_prior_to_current_point);
        let report = self.checked(r)?;
        if report.status != Status::Discard {
            self.set_since_step = false;
            self.last_h = Some(h);
            self.event_pending = report.event_handling_needed && self.options.event_mode_used;
        }
        Ok(report)
    }

    /// `fmi3EnterEventMode` (only with `eventModeUsed`).
    pub fn enter_event_mode(&mut self) -> Result<(), ModuleError> {
        self.require("fmi3EnterEventMode", &[FmiState::StepMode])?;
        if !self.options.event_mode_used {
            return self.unsupported("eventModeUsed");
        }
        let r = self.module.event_mode().map(|e| e.enter_event_mode());
        self.through(r, "hasEventMode")?;
        self.state = FmiState::EventMode;
        self.event_pending = false;
        Ok(())
    }

    /// `fmi3UpdateDiscreteStates`.
    pub fn update_discrete_states(&mut self) -> Result<DiscreteStatesUpdate, ModuleError> {
        self.require("fmi3UpdateDiscreteStates", &[FmiState::EventMode])?;
        let r = self.module.event_mode().map(|e| e.update_discrete_states());
        self.through(r, "hasEventMode")
    }

    /// `fmi3EnterStepMode`.
    pub fn enter_step_mode(&mut self) -> Result<(), ModuleError> {
        self.require("fmi3EnterStepMode", &[FmiState::EventMode])?;
        let r = self.module.event_mode().map(|e| e.enter_step_mode());
        self.through(r, "hasEventMode")?;
        self.state = FmiState::StepMode;
        self.set_since_step = false;
        Ok(())
    }

    /// `fmi3Terminate`.
    pub fn terminate(&mut self) -> Result<(), ModuleError> {
        self.require("fmi3Terminate", &[FmiState::StepMode, FmiState::EventMode])?;
        let r = self.module.terminate();
        self.checked(r)?;
        self.state = FmiState::Terminated;
        Ok(())
    }

    /// `fmi3Reset`: back to Instantiated.
    pub fn reset(&mut self) -> Result<(), ModuleError> {
        use FmiState::*;
        self.require(
            "fmi3Reset",
            &[
                Instantiated,
                InitializationMode,
                StepMode,
                EventMode,
                Terminated,
            ],
        )?;
        let r = self.module.reset();
        self.checked(r)?;
        self.state = Instantiated;
        self.set_since_step = false;
        self.event_pending = false;
        self.last_h = None;
        Ok(())
    }

    const SETTABLE: [FmiState; 5] = [
        FmiState::Instantiated,
        FmiState::InitializationMode,
        FmiState::StepMode,
        FmiState::EventMode,
        FmiState::Terminated,
    ];

    /// `fmi3GetFMUState` into a new state.
    pub fn get_state(&mut self) -> Result<ModuleState, ModuleError> {
        self.require("fmi3GetFMUState", &Self::SETTABLE)?;
        let r = self.module.state_snapshot().map(|s| s.get_state());
        self.through(r, "canGetAndSetFMUState")
    }

    /// `fmi3GetFMUState` into `slot`, reusing its storage when it holds a state this
    /// module saved ([`super::StateSnapshot::save_state_into`]): a checkpoint per step
    /// without an allocation per step.
    pub fn save_state_into(&mut self, slot: &mut ModuleState) -> Result<(), ModuleError> {
        self.require("fmi3GetFMUState", &Self::SETTABLE)?;
        let r = self
            .module
            .state_snapshot()
            .map(|s| s.save_state_into(slot));
        self.through(r, "canGetAndSetFMUState")
    }

    /// `fmi3SetFMUState`: rollback. The saved state includes inputs (FMI 3.0), so outputs
    /// may be read again right after.
    pub fn set_state(&mut self, state: &ModuleState) -> Result<(), ModuleError> {
        self.require("fmi3SetFMUState", &Self::SETTABLE)?;
        self.counts.set_state += 1;
        let r = self.module.state_snapshot().map(|s| s.set_state(state));
        self.through(r, "canGetAndSetFMUState")?;
        self.set_since_step = false;
        // An event reported by a step that the rollback undid is gone with it.
        self.event_pending = false;
        Ok(())
    }

    /// `call` is legal now and the module declares `canSerializeFMUState`.
    fn require_serialize(&mut self, call: &'static str) -> Result<(), ModuleError> {
        self.require(call, &Self::SETTABLE)?;
        let caps = &self.module.description().capabilities;
        if caps.can_serialize_fmu_state {
            Ok(())
        } else {
            self.unsupported("canSerializeFMUState")
        }
    }

    /// `fmi3SerializeFMUState`.
    pub fn serialize_state(&mut self, state: &ModuleState) -> Result<Vec<u8>, ModuleError> {
        self.require_serialize("fmi3SerializeFMUState")?;
        let r = self
            .module
            .state_snapshot()
            .map(|s| s.serialize_state(state));
        self.through(r, "canGetAndSetFMUState")
    }

    /// `fmi3DeserializeFMUState`.
    pub fn deserialize_state(&mut self, bytes: &[u8]) -> Result<ModuleState, ModuleError> {
        self.require_serialize("fmi3DeserializeFMUState")?;
        let r = self
            .module
            .state_snapshot()
            .map(|s| s.deserialize_state(bytes));
        self.through(r, "canGetAndSetFMUState")
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
        let lengths = check_seed_lengths(unknowns, knowns, seed, sensitivity);
        self.checked(lengths)?;
        self.counts.directional_derivative += 1;
        let r = self
            .module
            .directional_derivatives()
            .map(|d| d.directional_derivative(unknowns, knowns, seed, sensitivity));
        self.through(r, "providesDirectionalDerivatives")
    }

    /// The arguments of an output or input derivative call: one length, and every order
    /// in `1..=max` (`out_of_range` is the error otherwise).
    fn check_orders(
        &mut self,
        (vrs, orders, values): (usize, &[u32], usize),
        max: u32,
        out_of_range: &'static str,
    ) -> Result<(), ModuleError> {
        let r = check_order_lengths(vrs, orders.len(), values).and_then(|()| {
            match orders.iter().any(|&k| k == 0 || k > max) {
                true => Err(ModuleError::invalid(out_of_range)),
                false => Ok(()),
            }
        });
        self.checked(r)
    }

    /// `fmi3GetOutputDerivatives`.
    pub fn get_output_derivatives(
        &mut self,
        vrs: &[ValueRef],
        orders: &[u32],
        values: &mut [f64],
    ) -> Result<(), ModuleError> {
        self.require(
            "fmi3GetOutputDerivatives",
            &[FmiState::StepMode, FmiState::Terminated],
        )?;
        let max = self.description().capabilities.max_output_derivative_order;
        self.check_orders(
            (vrs.len(), orders, values.len()),
            max,
            "output derivative order outside 1..=maxOutputDerivativeOrder",
        )?;
        let r = self
            .module
            .output_derivatives()
            .map(|d| d.get_output_derivatives(vrs, orders, values));
        self.through(r, "maxOutputDerivativeOrder")
    }

    /// Extension: input derivatives for the next step (`x-maxInputDerivativeOrder`).
    pub fn set_input_derivatives(
        &mut self,
        vrs: &[ValueRef],
        orders: &[u32],
        values: &[f64],
    ) -> Result<(), ModuleError> {
        self.require(
            "x-setInputDerivatives",
            &[FmiState::InitializationMode, FmiState::StepMode],
        )?;
        let max = self.description().capabilities.x_max_input_derivative_order;
        self.check_orders(
            (vrs.len(), orders, values.len()),
            max,
            "input derivative order outside 1..=x-maxInputDerivativeOrder",
        )?;
        let r = self
            .module
            .input_derivatives()
            .map(|d| d.set_input_derivatives(vrs, orders, values));
        self.through(r, "x-maxInputDerivativeOrder")?;
        if self.state == FmiState::StepMode {
            self.set_since_step = true;
        }
        Ok(())
    }
}
