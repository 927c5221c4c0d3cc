//! [`Subsystem::step_with_io`]: set, step and get as one request to the module when the
//! state machine lets all three through, else one by one through the checked calls (so
//! an illegal call fails where and as it would have alone).

use super::{FmiState, Subsystem};
use crate::module::step_io::{one_by_one, ThreeCalls};
use crate::module::{ModuleError, StepIo, StepIoResult, StepIoStage, StepReport, ValueRef};

impl ThreeCalls for Subsystem {
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

impl Subsystem {
    /// Sets `io`'s inputs, steps and reads its outputs (`set_float64`, `do_step`,
    /// `get_float64` with their checks, in that order): the step's report and whether the
    /// outputs were read ([`StepIo::reads_outputs`]), or the call that failed.
    pub fn step_with_io(&mut self, io: &mut StepIo<'_>) -> StepIoResult {
        if !self.lets_through(io) {
            return one_by_one(self, io);
        }
        match self.module.step_with_io(io) {
            Ok((report, read)) => {
                self.after_set(io);
                self.counts.do_step += 1;
                self.stepped(&report, io.h);
                Ok((report, read))
            }
            Err(e) => {
                if e.stage > StepIoStage::SetInputs {
                    self.after_set(io);
                    self.counts.do_step += 1;
                }
                if let Some(report) = &e.report {
                    self.stepped(report, io.h);
                }
                self.fail(&e.error);
                Err(e)
            }
        }
    }

    fn after_set(&mut self, io: &StepIo<'_>) {
        if io.inputs.is_some() {
            self.set_since_step = true;
        }
    }

    /// Whether every check of the three calls passes now (a set in Step Mode does not
    /// change what the step and the get check, and a step that is not discarded clears
    /// the set for the get). Side-effect free: a call that would fail goes one by one.
    fn lets_through(&self, io: &StepIo<'_>) -> bool {
        let inputs_settable = io.inputs.is_none_or(|(vrs, values)| {
            vrs.len() == values.len() && vrs.iter().all(|vr| self.settable.get(*vr) == Some(true))
        });
        self.state == FmiState::StepMode
            && inputs_settable
            && !self.event_pending
            && io.h > 0.0
            && io.h.is_finite()
            && io.t.is_finite()
            && !self.step_size_changes(io.h)
            && io.output_vrs.len() == io.outputs.len()
    }
}
