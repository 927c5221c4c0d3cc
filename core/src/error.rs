//! One error enum per layer, joined into [`CosimError`]. Variants carry the context a
//! person needs to fix the problem (module names, times, paths into the scenario).

use crate::module::ModuleError;
use alloc::string::String;
use core::fmt;

mod coupling;
pub use coupling::CouplingError;

/// Failures while a master algorithm runs.
#[derive(Clone, Debug, PartialEq)]
pub enum MasterError {
    /// A module call failed.
    Module {
        /// Module instance name.
        module: String,
        /// Communication point at which it failed, in s; NaN at instantiation.
        t: f64,
        /// The module's error.
        error: ModuleError,
    },
    /// An algorithm needs a capability a module does not declare.
    MissingCapability {
        /// Module instance name.
        module: String,
        /// FMI (or `x-`) capability name.
        capability: &'static str,
        /// What needs it (e.g. "extrapolation order 2").
        needed_by: String,
    },
    /// Outputs became non-finite or exceeded the divergence bound.
    Diverged {
        /// Time in s.
        t: f64,
        /// `module.output` that diverged.
        signal: String,
    },
    /// A matrix the algorithm must factorise is singular.
    SingularMatrix {
        /// Time in s.
        t: f64,
        /// Which matrix.
        what: &'static str,
    },
    /// The module asked to terminate.
    Terminated {
        /// Time in s.
        t: f64,
        /// Module instance name.
        module: String,
    },
    /// Settings the algorithm cannot use.
    InvalidSettings(String),
    /// A module discarded a step (`fmi3Discard`) and the step controller cannot retry it.
    StepDiscarded {
        /// Module instance name.
        module: String,
        /// Step start in s.
        t: f64,
        /// Step size in s.
        h: f64,
    },
    /// An attempted step was rejected and the step controller cannot retry it.
    StepRejected {
        /// Step start in s.
        t: f64,
        /// Step size in s.
        h: f64,
        /// Why the step was rejected.
        reason: RejectReason,
    },
    /// The step controller would need a step below its minimum.
    StepSizeTooSmall {
        /// Step start in s.
        t: f64,
        /// The step it would need, in s.
        h: f64,
        /// The smallest step allowed, in s.
        h_min: f64,
    },
    /// Error-controlled macro-steps (seed 002) would need a step at or below `H_min`: the
    /// error test cannot be met.
    MacroStepTooSmall {
        /// Where the next step would start, in s.
        t: f64,
        /// The step the controller needs, in s.
        h: f64,
        /// The smallest step allowed, in s.
        h_min: f64,
        /// Polynomial degree `k` of the coupling variables for that step.
        order: u32,
        /// The local error estimator (e.g. `ExMilne`).
        estimator: &'static str,
    },
    /// A module returned early although it was instantiated with `earlyReturnAllowed = false`.
    EarlyReturnNotAllowed {
        /// Module instance name.
        module: String,
        /// Where it stopped, in s.
        t: f64,
    },
    /// A module returned early without advancing from the communication point.
    EarlyReturnWithoutProgress {
        /// Module instance name.
        module: String,
        /// Step start in s.
        t: f64,
        /// The time it reported, in s.
        t_event: f64,
    },
    /// A module returned early to an algorithm that cannot shorten its steps.
    EarlyReturnUnsupported {
        /// Module instance name.
        module: String,
        /// Where it stopped, in s.
        t: f64,
        /// Where the step should have ended, in s.
        t_end: f64,
        /// The algorithm, as it is named in messages.
        algorithm: &'static str,
    },
    /// A module still asks for discrete-state updates after the event-iteration limit.
    EventIterationLimit {
        /// Module instance name.
        module: String,
        /// Event time in s.
        t: f64,
        /// Iterations done.
        iterations: u32,
    },
    /// An algorithm reported a step it was not asked for (a bug in the algorithm).
    StepOutOfRange {
        /// The algorithm's name.
        algorithm: &'static str,
        /// Step start in s.
        t: f64,
        /// Step it reports, in s.
        h_taken: f64,
        /// Step it was asked for, in s.
        h: f64,
    },
    /// An algorithm was stepped before `prepare` succeeded.
    NotPrepared(&'static str),
}

/// Why an attempted macro-step was rejected. The driver restores every module to the step
/// start and retries with a step the algorithm or the step controller suggests.
#[derive(Clone, Debug, PartialEq)]
pub enum RejectReason {
    /// A module returned early at an event: the step is repeated up to the event time.
    EarlyReturn {
        /// Module instance name.
        module: String,
        /// The event time in s.
        t_event: f64,
    },
    /// A module discarded the step (`fmi3Discard`).
    Discarded {
        /// Module instance name.
        module: String,
    },
    /// The step controller judged the error estimate too large (normalised error > 1).
    ErrorTooLarge {
        /// The normalised error estimate.
        error: f64,
    },
    /// An iterative (implicit) scheme did not converge.
    NotConverged {
        /// Iterations done.
        iterations: u32,
    },
    /// A module's own numerics failed inside an attempt (its integrator gave up, e.g. the
    /// step size fell too small): an error-controlled master repeats the step shorter.
    ModuleFailed {
        /// Module instance name.
        module: String,
        /// The module's error message.
        message: String,
    },
    /// A step controller rejected the step for its own reason (e.g. a test controller).
    Controller(&'static str),
}

impl fmt::Display for RejectReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RejectReason::EarlyReturn { module, t_event } => {
                write!(f, "module `{module}` returned early at t = {t_event} s")
            }
            RejectReason::Discarded { module } => write!(f, "module `{module}` discarded the step"),
            RejectReason::ErrorTooLarge { error } => {
                write!(f, "the error estimate is {error} times the tolerance")
            }
            RejectReason::NotConverged { iterations } => {
                write!(
                    f,
                    "the iteration did not converge in {iterations} iterations"
                )
            }
            RejectReason::ModuleFailed { module, message } => {
                write!(f, "module `{module}` failed inside the attempt: {message}")
            }
            RejectReason::Controller(why) => f.write_str(why),
        }
    }
}

impl fmt::Display for MasterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            // NaN: before the run has a time (fmi3InstantiateCoSimulation).
            MasterError::Module { module, t, error } if t.is_nan() => {
                write!(f, "module `{module}`: {error}")
            }
            MasterError::Module { module, t, error } => {
                write!(f, "module `{module}` at t = {t} s: {error}")
            }
            MasterError::MissingCapability {
                module,
                capability,
                needed_by,
            } => write!(
                f,
                "{needed_by} needs `{capability}`, which module `{module}` does not provide"
            ),
            MasterError::Diverged { t, signal } => write!(
                f,
                "the co-simulation diverged at t = {t} s (`{signal}` is no longer finite); \
                 try a smaller macro-step or a lower extrapolation order"
            ),
            MasterError::SingularMatrix { t, what } => write!(f, "singular {what} at t = {t} s"),
            MasterError::Terminated { t, module } => {
                write!(f, "module `{module}` requested termination at t = {t} s")
            }
            MasterError::InvalidSettings(m) => f.write_str(m),
            MasterError::StepDiscarded { module, t, h } => write!(
                f,
                "module `{module}` discarded the macro-step from t = {t} s (h = {h} s); this master cannot retry \
                 a step (try a smaller macro-step)"
            ),
            MasterError::StepRejected { t, h, reason } => write!(
                f,
                "the macro-step from t = {t} s (h = {h} s) was rejected ({reason}) and the step controller cannot retry it"
            ),
            MasterError::StepSizeTooSmall { t, h, h_min } => write!(
                f,
                "at t = {t} s the step controller needs a macro-step of {h} s, below the minimum {h_min} s"
            ),
            MasterError::MacroStepTooSmall {
                t,
                h,
                h_min,
                order,
                estimator,
            } => write!(
                f,
                "at t = {t} s the {estimator} error control needs a macro-step H = {h} s with degree \
                 k = {order}, at or below the minimum H_min = {h_min} s; loosen the tolerances or lower H_min"
            ),
            MasterError::EarlyReturnNotAllowed { module, t } => write!(
                f,
                "module `{module}` returned early at t = {t} s although it was instantiated with \
                 earlyReturnAllowed = false (it does not declare mightReturnEarlyFromDoStep)"
            ),
            MasterError::EarlyReturnWithoutProgress { module, t, t_event } => write!(
                f,
                "module `{module}` returned early at t = {t_event} s without advancing from t = {t} s; \
                 events at the communication point itself are not supported"
            ),
            MasterError::EarlyReturnUnsupported {
                module,
                t,
                t_end,
                algorithm,
            } => write!(
                f,
                "module `{module}` returned early at t = {t} s instead of {t_end} s; {algorithm} does not \
                 handle early return"
            ),
            MasterError::EventIterationLimit {
                module,
                t,
                iterations,
            } => write!(
                f,
                "module `{module}` still needs discrete-state updates after {iterations} event iterations at t = {t} s"
            ),
            MasterError::StepOutOfRange {
                algorithm,
                t,
                h_taken,
                h,
            } => write!(
                f,
                "`{algorithm}` took a step of {h_taken} s at t = {t} s; the run needs at most {h} s"
            ),
            MasterError::NotPrepared(algorithm) => write!(f, "{algorithm}: step before prepare"),
        }
    }
}

/// A scenario that cannot be used, with the JSON path of the offending field.
#[derive(Clone, Debug, PartialEq)]
pub struct ScenarioError {
    /// Path into the scenario, e.g. `modules[1].parameters.ck` (empty for the whole document).
    pub path: String,
    /// What is wrong and what is expected.
    pub message: String,
}

impl ScenarioError {
    /// An error at `path`; a message longer than [`MAX_MESSAGE_CHARS`] is cut there.
    pub fn at(path: impl Into<String>, message: impl Into<String>) -> Self {
        ScenarioError {
            path: cap_message(path.into()),
            message: cap_message(message.into()),
        }
    }
}

pub use crate::limits::MAX_MESSAGE_CHARS;

/// `text` cut to [`MAX_MESSAGE_CHARS`] characters, saying how much was left out.
pub fn cap_message(mut text: String) -> String {
    if let Some((cut, _)) = text.char_indices().nth(MAX_MESSAGE_CHARS) {
        let left_out = text[cut..].chars().count();
        text.truncate(cut);
        text.push_str(&alloc::format!("… ({left_out} more characters)"));
    }
    text
}

/// At most `max` names as `a, b, c`, then ` and N more`.
pub fn name_list<T: fmt::Display>(names: impl IntoIterator<Item = T>, max: usize) -> String {
    use core::fmt::Write as _;
    let mut out = String::new();
    let mut count = 0usize;
    for name in names {
        if count < max {
            if count > 0 {
                out.push_str(", ");
            }
            let _ = write!(out, "{name}");
        }
        count += 1;
    }
    if count > max {
        let _ = write!(out, " and {} more", count - max);
    }
    out
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

/// Any error of the core.
#[derive(Clone, Debug, PartialEq)]
pub enum CosimError {
    /// Bad scenario.
    Scenario(ScenarioError),
    /// Bad connections.
    Coupling(CouplingError),
    /// Failure during a run.
    Master(MasterError),
    /// A module call outside a run.
    Module(ModuleError),
}

impl fmt::Display for CosimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CosimError::Scenario(e) => e.fmt(f),
            CosimError::Coupling(e) => e.fmt(f),
            CosimError::Master(e) => e.fmt(f),
            CosimError::Module(e) => e.fmt(f),
        }
    }
}

impl From<ScenarioError> for CosimError {
    fn from(e: ScenarioError) -> Self {
        CosimError::Scenario(e)
    }
}
impl From<CouplingError> for CosimError {
    fn from(e: CouplingError) -> Self {
        CosimError::Coupling(e)
    }
}
impl From<MasterError> for CosimError {
    fn from(e: MasterError) -> Self {
        CosimError::Master(e)
    }
}
impl From<ModuleError> for CosimError {
    fn from(e: ModuleError) -> Self {
        CosimError::Module(e)
    }
}

#[cfg(feature = "std")]
impl std::error::Error for CosimError {}
