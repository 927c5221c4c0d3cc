//! FMI 3.0 status codes and the value `do_step` returns.

use super::ValueRef;
use alloc::string::String;
use core::fmt;

/// FMI 3.0 `fmi3Status`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Status {
    /// Success.
    Ok,
    /// Success, with something worth logging.
    Warning,
    /// Not successful and the module is unchanged: the master may retry differently.
    Discard,
    /// The call failed; the instance is now Terminated (state can still be restored or reset).
    Error,
    /// The instance is unusable; no further calls.
    Fatal,
}

/// What `do_step` reports, instead of FMI's four out-parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StepReport {
    /// `Ok`, `Warning` or `Discard` (failures are a [`ModuleError`]).
    pub status: Status,
    /// An event happened at `last_successful_time`; the master must enter Event Mode.
    pub event_handling_needed: bool,
    /// The module asks to end the simulation.
    pub terminate_simulation: bool,
    /// The module stopped before `t + h`.
    pub early_return: bool,
    /// The module's internal time on return (may differ from `t + h`).
    pub last_successful_time: f64,
}

impl StepReport {
    /// A full step to `t_end` with no event.
    pub fn completed(t_end: f64) -> Self {
        StepReport {
            status: Status::Ok,
            event_handling_needed: false,
            terminate_simulation: false,
            early_return: false,
            last_successful_time: t_end,
        }
    }

    /// A discarded step: the module is unchanged, still at `t`.
    pub fn discarded(t: f64) -> Self {
        StepReport {
            status: Status::Discard,
            ..StepReport::completed(t)
        }
    }
}

/// Why a module call failed.
#[derive(Clone, Debug, PartialEq)]
pub enum ModuleErrorKind {
    /// The call is not allowed in the instance's current FMI state.
    IllegalCall {
        /// FMI function name of the call (e.g. `fmi3DoStep`).
        call: &'static str,
        /// FMI state the instance was in.
        state: super::FmiState,
    },
    /// `fmi3Get*` after `fmi3Set*` without `fmi3DoStep` in between (forbidden in Step Mode).
    GetAfterSet,
    /// No variable has this value reference.
    UnknownValueRef(ValueRef),
    /// The variable exists but may not be set now.
    NotSettable(ValueRef),
    /// Slice lengths or other arguments do not fit.
    InvalidArgument(String),
    /// The capability is not provided by this module.
    Unsupported(&'static str),
    /// The module's own numerics failed (non-finite values, step-size underflow, ...).
    Numerical(String),
    /// A binary module trapped or ran out of fuel.
    Trap(String),
    /// A binary module asked the host for something it refuses (writing a file); the
    /// message names the FMI call and the WASI call.
    Refused(String),
    /// A binary module's FMI function returned `fmi3Discard`, `fmi3Error` or `fmi3Fatal`
    /// where the call cannot be discarded; `log` is the end of the module's log.
    Reported {
        /// FMI function name (e.g. `fmi3DoStep`).
        call: &'static str,
        /// Last lines the module logged, possibly empty.
        log: String,
    },
}

/// A failed module call, with the FMI status it maps to (`Error` or `Fatal`).
#[derive(Clone, Debug, PartialEq)]
pub struct ModuleError {
    /// `Error` or `Fatal`.
    pub status: Status,
    /// What went wrong.
    pub kind: ModuleErrorKind,
}

impl ModuleError {
    /// An `Error`-status failure.
    pub fn error(kind: ModuleErrorKind) -> Self {
        ModuleError {
            status: Status::Error,
            kind,
        }
    }

    /// A numerical failure with a message.
    pub fn numerical(msg: impl Into<String>) -> Self {
        Self::error(ModuleErrorKind::Numerical(msg.into()))
    }

    /// Wrong arguments.
    pub fn invalid(msg: impl Into<String>) -> Self {
        Self::error(ModuleErrorKind::InvalidArgument(msg.into()))
    }

    /// The capability `flag` (its FMI name) is not provided.
    pub fn unsupported(flag: &'static str) -> Self {
        Self::error(ModuleErrorKind::Unsupported(flag))
    }
}

impl fmt::Display for ModuleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ModuleErrorKind::IllegalCall { call, state } => {
                write!(f, "{call} is not allowed in state {state:?}")
            }
            ModuleErrorKind::GetAfterSet => {
                f.write_str("get after set without a doStep in between is not allowed in Step Mode")
            }
            ModuleErrorKind::UnknownValueRef(vr) => {
                write!(f, "no variable has value reference {}", vr.0)
            }
            ModuleErrorKind::NotSettable(vr) => write!(f, "variable {} cannot be set now", vr.0),
            ModuleErrorKind::InvalidArgument(m) => write!(f, "invalid argument: {m}"),
            ModuleErrorKind::Unsupported(c) => write!(f, "capability {c} is not provided"),
            ModuleErrorKind::Numerical(m) => write!(f, "numerical failure: {m}"),
            ModuleErrorKind::Trap(m) => write!(f, "module trapped: {m}"),
            ModuleErrorKind::Refused(m) => f.write_str(m),
            ModuleErrorKind::Reported { call, log } => {
                let status = match self.status {
                    Status::Fatal => "fmi3Fatal",
                    Status::Discard => "fmi3Discard",
                    _ => "fmi3Error",
                };
                write!(f, "{call} returned {status}")?;
                if log.is_empty() {
                    Ok(())
                } else {
                    write!(f, "; module log: {log}")
                }
            }
        }
    }
}
