//! Errors crossing into JS: core errors become JS `Error`s with their `Display` text (which
//! names the scenario field path), a run's errors also carry a `kind` so the page can show a
//! failure during the run apart from bad settings, and a panic hook keeps the message of a
//! panic so the worker can post it instead of an opaque `RuntimeError: unreachable`.

use cosim_core::error::{CosimError, MasterError};
use std::fmt::Display;
use std::sync::Mutex;
use wasm_bindgen::prelude::*;

/// Message of the last panic, kept for [`take_panic_message`]. With `panic = "abort"` a
/// panic traps right after the hook, so this is the only way its text reaches JS.
static LAST_PANIC: Mutex<Option<String>> = Mutex::new(None);

/// What kind of failure an error is; the worker passes it to the page as `kind`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The scenario or its settings are wrong (the message usually names the field).
    Scenario,
    /// A method needs something a module does not declare.
    Capability,
    /// The run started and then failed: divergence, a module failing, a step discarded or
    /// rejected for good, an event that does not settle.
    Runtime,
    /// A bug: a panic, or an algorithm breaking the driver's contract.
    Internal,
}

impl ErrorKind {
    /// The kind of a core error.
    pub fn of(e: &CosimError) -> Self {
        match e {
            CosimError::Scenario(_) | CosimError::Coupling(_) => ErrorKind::Scenario,
            // A module call that fails outside the stepping loop (e.g. while initialising).
            CosimError::Module(_) => ErrorKind::Runtime,
            CosimError::Master(m) => Self::of_master(m),
        }
    }

    fn of_master(e: &MasterError) -> Self {
        match e {
            MasterError::InvalidSettings(_) => ErrorKind::Scenario,
            MasterError::MissingCapability { .. } => ErrorKind::Capability,
            MasterError::StepOutOfRange { .. } | MasterError::NotPrepared(_) => ErrorKind::Internal,
            MasterError::Module { .. }
            | MasterError::Diverged { .. }
            | MasterError::SingularMatrix { .. }
            | MasterError::Terminated { .. }
            | MasterError::StepDiscarded { .. }
            | MasterError::StepRejected { .. }
            | MasterError::StepSizeTooSmall { .. }
            | MasterError::MacroStepTooSmall { .. }
            | MasterError::EarlyReturnNotAllowed { .. }
            | MasterError::EarlyReturnWithoutProgress { .. }
            | MasterError::EarlyReturnUnsupported { .. }
            | MasterError::EventIterationLimit { .. } => ErrorKind::Runtime,
        }
    }

    /// The name JS sees: `scenario`, `capability`, `runtime` or `internal`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Scenario => "scenario",
            ErrorKind::Capability => "capability",
            ErrorKind::Runtime => "runtime",
            ErrorKind::Internal => "internal",
        }
    }
}

/// Any error as a JS `Error` with the same text.
pub(crate) fn to_js(e: impl Display) -> JsError {
    JsError::new(&e.to_string())
}

/// A core error as a JS `Error` with the same text and a `kind` property
/// ([`ErrorKind::as_str`]).
pub(crate) fn to_js_with_kind(e: impl Into<CosimError>) -> JsValue {
    let e = e.into();
    let error = js_sys::Error::new(&e.to_string());
    // Setting a property on a fresh Error cannot fail; if it did, the page would treat the
    // error as internal, which still shows its text.
    let _ = js_sys::Reflect::set(
        &error,
        &JsValue::from_str("kind"),
        &JsValue::from_str(ErrorKind::of(&e).as_str()),
    );
    error.into()
}

/// Installs the panic hook once, when the module is instantiated, and makes the
/// browser's own WebAssembly engine the one binary modules run in.
#[wasm_bindgen(start)]
pub fn install_panic_hook() {
    crate::engine::install();
    std::panic::set_hook(Box::new(|info| {
        if let Ok(mut slot) = LAST_PANIC.lock() {
            *slot = Some(format!("internal error (please report): {info}"));
        }
    }));
}

/// The message of a panic since the last call, if any. After a panic the wasm instance
/// must not be used for anything else: the worker posts this and the page replaces it.
#[wasm_bindgen(js_name = takePanicMessage)]
pub fn take_panic_message() -> Option<String> {
    LAST_PANIC.lock().ok().and_then(|mut slot| slot.take())
}

#[cfg(test)]
mod tests {
    use super::ErrorKind;
    use cosim_core::error::{CosimError, CouplingError, MasterError, RejectReason, ScenarioError};
    use cosim_core::module::ModuleError;

    fn kind(e: impl Into<CosimError>) -> &'static str {
        ErrorKind::of(&e.into()).as_str()
    }

    #[test]
    fn bad_settings_are_scenario_errors() {
        assert_eq!(
            kind(ScenarioError::at("master.macro_step", "x")),
            "scenario"
        );
        assert_eq!(
            kind(CouplingError::UnconnectedInput("a.u".into())),
            "scenario"
        );
        assert_eq!(kind(MasterError::InvalidSettings("x".into())), "scenario");
    }

    #[test]
    fn a_missing_capability_is_its_own_kind() {
        let e = MasterError::MissingCapability {
            module: "m".into(),
            capability: "providesDirectionalDerivatives",
            needed_by: "correction".into(),
        };
        assert_eq!(kind(e), "capability");
    }

    #[test]
    fn failures_during_a_run_are_runtime_errors() {
        let runtime = [
            MasterError::Diverged {
                t: 1.0,
                signal: "m.y".into(),
            },
            MasterError::Module {
                module: "m".into(),
                t: 1.0,
                error: ModuleError::numerical("state became non-finite"),
            },
            MasterError::StepDiscarded {
                module: "m".into(),
                t: 1.0,
                h: 0.1,
            },
            MasterError::StepRejected {
                t: 1.0,
                h: 0.1,
                reason: RejectReason::Controller("test"),
            },
            MasterError::EventIterationLimit {
                module: "m".into(),
                t: 1.0,
                iterations: 100,
            },
            MasterError::MacroStepTooSmall {
                t: 1.0,
                h: 1e-13,
                h_min: 1e-12,
                order: 2,
                estimator: "ExMilne",
            },
        ];
        for e in runtime {
            assert_eq!(kind(e.clone()), "runtime", "{e:?}");
        }
        assert_eq!(kind(ModuleError::numerical("x")), "runtime");
    }

    #[test]
    fn broken_driver_contracts_are_internal() {
        assert_eq!(kind(MasterError::NotPrepared("jacobi")), "internal");
    }
}
