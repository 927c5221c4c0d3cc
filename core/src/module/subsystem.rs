//! [`Subsystem`]: a module as masters see it, with the FMI 3.0 co-simulation state machine
//! enforced (docs/methods.md §6.2). An illegal call returns an `Error` status and, as in
//! FMI, leaves the instance Terminated; nothing panics. The optional-capability calls
//! (FMU state, derivatives) are in `subsystem/capabilities.rs`, the exposed equations in
//! `subsystem/equations.rs`.

use super::{
    Capabilities, DiscreteStatesUpdate, InstantiateOptions, Module, ModuleDescription, ModuleError,
    ModuleErrorKind, Status, StepReport, ValueRef,
};
use alloc::boxed::Box;

mod capabilities;
mod equations;
mod settable;
mod step_io;

use settable::StepModeSettable;

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
    /// The state an `Error` status left (FMI 3.0: "If a function returns fmi3Error, it is
    /// possible to restore a previously retrieved FMU state by calling fmi3SetFMUState"):
    /// a restore returns the instance there.
    before_error: Option<FmiState>,
    /// What may be set in Step Mode, by value reference.
    settable: StepModeSettable,
    /// The module's capability flags, read at every step (descriptions are static).
    caps: Capabilities,
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
        let settable = StepModeSettable::of(module.description());
        let caps = module.description().capabilities.clone();
        Ok(Subsystem {
            module,
            state: FmiState::Instantiated,
            options,
            set_since_step: false,
            event_pending: false,
            last_h: None,
            counts: CallCounts::default(),
            before_error: None,
            settable,
            caps,
        })
    }

    /// The module's description.
    pub fn description(&self) -> &ModuleDescription {
        self.module.description()
    }

    /// The module's String and Binary outputs as last read ([`Module::text_outputs`]).
    pub fn text_outputs(&self) -> &[super::TextOutput] {
        self.module.text_outputs()
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
        if err.status == Status::Fatal {
            self.state = FmiState::Fatal;
            self.before_error = None;
            return;
        }
        if self.state != FmiState::Terminated {
            self.before_error = Some(self.state);
        }
        self.state = FmiState::Terminated;
    }

    fn checked<T>(&mut self, r: Result<T, ModuleError>) -> Result<T, ModuleError> {
        if let Err(e) = &r {
            self.fail(e);
        }
        r
    }

    /// Every state but `Fatal`: where reads, resets and FMU state calls are legal.
    const ALIVE: [FmiState; 5] = [
        FmiState::Instantiated,
        FmiState::InitializationMode,
        FmiState::StepMode,
        FmiState::EventMode,
        FmiState::Terminated,
    ];

    /// A call that succeeded moves the instance to `to`; one that failed ends it.
    fn transition(&mut self, r: Result<(), ModuleError>, to: FmiState) -> Result<(), ModuleError> {
        self.checked(r)?;
        self.state = to;
        Ok(())
    }

    fn unsupported<T>(&mut self, capability: &'static str) -> Result<T, ModuleError> {
        let err = ModuleError::unsupported(capability);
        self.fail(&err);
        Err(err)
    }

    /// `call` through one of the module's capability accessors: `None` (the module lacks
    /// the capability `flag` names) is `Unsupported`; errors leave the instance Terminated.
    fn through<T>(
        &mut self,
        flag: &'static str,
        call: impl FnOnce(&mut dyn Module) -> Option<Result<T, ModuleError>>,
    ) -> Result<T, ModuleError> {
        match call(self.module.as_mut()) {
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
        self.transition(r, FmiState::InitializationMode)
    }

    /// `fmi3ExitInitializationMode`: to Step Mode, or Event Mode with `eventModeUsed`.
    pub fn exit_initialization_mode(&mut self) -> Result<(), ModuleError> {
        self.require(
            "fmi3ExitInitializationMode",
            &[FmiState::InitializationMode],
        )?;
        let to = match self.options.event_mode_used {
            true => FmiState::EventMode,
            false => FmiState::StepMode,
        };
        let r = self.module.exit_initialization_mode();
        self.transition(r, to)?;
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
                match self.settable.get(*vr) {
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
        self.require("fmi3GetFloat64", &Self::ALIVE)?;
        if vrs.len() != values.len() {
            return self.checked(Err(ModuleError::invalid(
                "value references and values differ in length",
            )));
        }
        if self.state == FmiState::StepMode && self.set_since_step {
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
        if self.step_size_changes(h) {
            let e = ModuleError::invalid(
                "module cannot handle a variable communication step size \
                 (canHandleVariableCommunicationStepSize = false)",
            );
            return self.checked(Err(e));
        }
        self.counts.do_step += 1;
        let r = self
            .module
            .do_step(t, h, no_set_state_prior_to_current_point);
        let report = self.checked(r)?;
        self.stepped(&report, h);
        Ok(report)
    }

    /// Whether `h` differs from the last step's for a module that cannot handle that.
    fn step_size_changes(&self, h: f64) -> bool {
        !self.caps.can_handle_variable_communication_step_size
            && self
                .last_h
                .is_some_and(|prev| (prev - h).abs() > 1e-12 * prev.abs())
    }

    /// After a step that returned `report`.
    fn stepped(&mut self, report: &StepReport, h: f64) {
        if report.status != Status::Discard {
            self.set_since_step = false;
            self.last_h = Some(h);
            self.event_pending = report.event_handling_needed && self.options.event_mode_used;
        }
    }

    /// `fmi3EnterEventMode` (only with `eventModeUsed`).
    pub fn enter_event_mode(&mut self) -> Result<(), ModuleError> {
        self.require("fmi3EnterEventMode", &[FmiState::StepMode])?;
        if !self.options.event_mode_used {
            return self.unsupported("eventModeUsed");
        }
        self.through("hasEventMode", |m| {
            m.event_mode().map(|e| e.enter_event_mode())
        })?;
        self.state = FmiState::EventMode;
        self.event_pending = false;
        Ok(())
    }

    /// `fmi3UpdateDiscreteStates`.
    pub fn update_discrete_states(&mut self) -> Result<DiscreteStatesUpdate, ModuleError> {
        self.require("fmi3UpdateDiscreteStates", &[FmiState::EventMode])?;
        self.through("hasEventMode", |m| {
            m.event_mode().map(|e| e.update_discrete_states())
        })
    }

    /// `fmi3EnterStepMode`.
    pub fn enter_step_mode(&mut self) -> Result<(), ModuleError> {
        self.require("fmi3EnterStepMode", &[FmiState::EventMode])?;
        self.through("hasEventMode", |m| {
            m.event_mode().map(|e| e.enter_step_mode())
        })?;
        self.state = FmiState::StepMode;
        self.set_since_step = false;
        Ok(())
    }

    /// `fmi3Terminate`.
    pub fn terminate(&mut self) -> Result<(), ModuleError> {
        self.require("fmi3Terminate", &[FmiState::StepMode, FmiState::EventMode])?;
        let r = self.module.terminate();
        self.transition(r, FmiState::Terminated)?;
        self.before_error = None;
        Ok(())
    }

    /// `fmi3Reset`: back to Instantiated.
    pub fn reset(&mut self) -> Result<(), ModuleError> {
        self.require("fmi3Reset", &Self::ALIVE)?;
        let r = self.module.reset();
        self.transition(r, FmiState::Instantiated)?;
        self.before_error = None;
        self.set_since_step = false;
        self.event_pending = false;
        self.last_h = None;
        Ok(())
    }
}
