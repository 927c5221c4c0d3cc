//! One module's part of a macro-step as one request: set its inputs, `fmi3DoStep`, get its
//! outputs ([`Module::step_with_io`]). A module whose every FMI call is costly to reach (a
//! binary module in the browser's engine, where each call crosses into JS) makes the three
//! calls in one go; every other module makes them one by one. Either way the calls, their
//! order, their arguments and their errors are those of the three separate calls.

use super::{Module, ModuleError, Status, StepReport, ValueRef};

/// What one module's part of a macro-step sets, steps and reads.
pub struct StepIo<'a> {
    /// The inputs set first (`None`: no set call).
    pub inputs: Option<(&'a [ValueRef], &'a [f64])>,
    /// The communication point.
    pub t: f64,
    /// The communication step size.
    pub h: f64,
    /// `noSetFMUStatePriorToCurrentPoint`.
    pub no_set_state_prior: bool,
    /// The outputs read after the step, when [`StepIo::reads_outputs`] says so.
    pub output_vrs: &'a [ValueRef],
    /// Where they are read to.
    pub outputs: &'a mut [f64],
    /// Whether the master accepts an early return (else it is an error, read nothing).
    pub early_return_allowed: bool,
}

impl StepIo<'_> {
    /// Whether the outputs are read after a step that reported `report`: not after a
    /// discarded step, nor after an early return the master does not accept.
    pub fn reads_outputs(&self, report: &StepReport) -> bool {
        report.status != Status::Discard && (!report.early_return || self.early_return_allowed)
    }
}

/// Which of the three calls failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum StepIoStage {
    /// `fmi3SetFloat64` of the inputs.
    SetInputs,
    /// `fmi3DoStep`.
    DoStep,
    /// `fmi3GetFloat64` of the outputs.
    GetOutputs,
}

/// A failed [`Module::step_with_io`]: the call that failed, its error, and the step's
/// report when the step itself returned (the outputs' read failed).
#[derive(Debug)]
pub struct StepIoError {
    /// The call that failed.
    pub stage: StepIoStage,
    /// Its error.
    pub error: ModuleError,
    /// The step's report, when the read after it failed.
    pub report: Option<StepReport>,
}

impl StepIoError {
    /// `error` of the call `stage`, before any step returned.
    pub fn before_step(stage: StepIoStage, error: ModuleError) -> Self {
        StepIoError {
            stage,
            error,
            report: None,
        }
    }
}

/// The step's report and whether the outputs were read, or the call that failed.
pub type StepIoResult = Result<(StepReport, bool), StepIoError>;

/// The three calls a [`StepIo`] makes, as separate calls.
pub(crate) trait ThreeCalls {
    fn set_inputs(&mut self, vrs: &[ValueRef], values: &[f64]) -> Result<(), ModuleError>;
    fn step(&mut self, t: f64, h: f64, no_set_prior: bool) -> Result<StepReport, ModuleError>;
    fn get_outputs(&mut self, vrs: &[ValueRef], values: &mut [f64]) -> Result<(), ModuleError>;
}

impl<M: Module + ?Sized> ThreeCalls for M {
    fn set_inputs(&mut self, vrs: &[ValueRef], values: &[f64]) -> Result<(), ModuleError> {
        self.set_float64(vrs, values)
    }
    fn step(&mut self, t: f64, h: f64, no_set_prior: bool) -> Result<StepReport, ModuleError> {
        self.do_step(t, h, no_set_prior)
    }
    fn get_outputs(&mut self, vrs: &[ValueRef], values: &mut [f64]) -> Result<(), ModuleError> {
        self.get_float64(vrs, values)
    }
}

/// `io`'s calls one by one: set (if any), step, and the read if the report allows it.
pub(crate) fn one_by_one<C: ThreeCalls + ?Sized>(
    calls: &mut C,
    io: &mut StepIo<'_>,
) -> StepIoResult {
    use StepIoStage::*;
    if let Some((vrs, values)) = io.inputs {
        let set = calls.set_inputs(vrs, values);
        set.map_err(|e| StepIoError::before_step(SetInputs, e))?;
    }
    let report = calls
        .step(io.t, io.h, io.no_set_state_prior)
        .map_err(|e| StepIoError::before_step(DoStep, e))?;
    if !io.reads_outputs(&report) {
        return Ok((report, false));
    }
    match calls.get_outputs(io.output_vrs, io.outputs) {
        Ok(()) => Ok((report, true)),
        Err(error) => Err(StepIoError {
            stage: GetOutputs,
            error,
            report: Some(report),
        }),
    }
}
