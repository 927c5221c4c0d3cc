//! [`BinaryModule`]'s [`Module::step_with_io`]: the inputs' `fmi3SetFloat64`, `fmi3DoStep`
//! and the outputs' `fmi3GetFloat64` handed to the engine as one sequence
//! ([`Runtime::call_sequence`]), which the browser's engine makes in one crossing. They
//! are the calls the three methods make, with the same arguments at the same scratch
//! addresses, and each outcome is handled as that method handles it; the engine stops
//! after any call that did not go plainly (a status other than `fmi3OK`, an event or early
//! return, a WASI import, memory growth) and the rest go one by one. Taken only when
//! nothing else runs between the three (no typed ports, clocks, text outputs or FMU states
//! to free) and the scratch buffer already fits all three.

use super::binary_module::{layout, to_i32, BinaryModule};
use super::runtime::{outside, Runtime};
use super::sandbox::{SequenceKey, SequencedCall, WasmValue};
use crate::module::step_io::one_by_one;
use crate::module::{
    Module, ModuleError, Status, StepIo, StepIoError, StepIoResult, StepIoStage, StepReport,
    ValueRef,
};
use alloc::boxed::Box;
use alloc::sync::Arc;
use alloc::vec;
use alloc::vec::Vec;
use StepIoStage::*;

/// `fmi3DoStep`'s scratch: lastSuccessfulTime, then the three flags at 8, 9 and 10.
const STEP_BYTES: usize = 16;

/// The layout of a macro-step's three calls in the scratch buffer and in page memory, made
/// once and kept while the instance, the scratch buffer and the value references stay:
/// a step then only writes its inputs, `t` and `h`.
pub(crate) struct StepPlan {
    /// The engine's key of the sequence with set (`[0]`) and without (`[1]`).
    keys: [SequenceKey; 2],
    instance: i32,
    base: u32,
    /// The scratch bytes the three calls use ([`Self::scratch_len`]).
    scratch_len: usize,
    in_vrs: Vec<ValueRef>,
    n_in: usize,
    out_vrs: Vec<ValueRef>,
    n_out: usize,
    /// set's value references and values, the step's in and out, get's value references
    /// and values, cut at `cuts`.
    bytes: Vec<u8>,
    cuts: [usize; 5],
    /// Scratch addresses: set's value references and values, get's value references and
    /// values.
    at: [u32; 4],
    set_args: [WasmValue; 5],
    step_args: [WasmValue; 8],
    get_args: [WasmValue; 5],
}

impl StepPlan {
    /// The plan of `instance` with scratch at `base`, or `None` if a count exceeds wasm32.
    fn new(
        instance: i32,
        (base, scratch_len): (u32, usize),
        inputs: (&[ValueRef], usize),
        outputs: (&[ValueRef], usize),
    ) -> Option<Self> {
        let ([set_vrs, set_values], _) = layout([4 * inputs.0.len(), 8 * inputs.1]);
        let ([get_vrs, get_values], _) = layout([4 * outputs.0.len(), 8 * outputs.1]);
        let counts = [inputs.0.len(), inputs.1, outputs.0.len(), outputs.1].map(|n| to_i32(n).ok());
        let [Some(n_in_vrs), Some(n_in), Some(n_out_vrs), Some(n_out)] = counts else {
            return None;
        };
        let sizes = [
            4 * inputs.0.len(),
            8 * inputs.1,
            STEP_BYTES,
            STEP_BYTES,
            4 * outputs.0.len(),
        ];
        let mut cuts = [0; 5];
        let mut end = 0;
        for (cut, size) in cuts.iter_mut().zip(sizes) {
            end += size;
            *cut = end;
        }
        let mut bytes = vec![0u8; end + 8 * outputs.1];
        for (b, v) in bytes[..cuts[0]].chunks_exact_mut(4).zip(inputs.0) {
            b.copy_from_slice(&v.0.to_le_bytes());
        }
        for (b, v) in bytes[cuts[3]..cuts[4]].chunks_exact_mut(4).zip(outputs.0) {
            b.copy_from_slice(&v.0.to_le_bytes());
        }
        let inst = WasmValue::I32(instance);
        let at = |offset: u32| WasmValue::I32((base + offset) as i32);
        Some(StepPlan {
            keys: [SequenceKey::new(), SequenceKey::new()],
            instance,
            base,
            scratch_len,
            in_vrs: inputs.0.to_vec(),
            n_in: inputs.1,
            out_vrs: outputs.0.to_vec(),
            n_out: outputs.1,
            bytes,
            cuts,
            at: [set_vrs, set_values, get_vrs, get_values].map(|o| base + o),
            set_args: [
                inst,
                at(set_vrs),
                n_in_vrs.into(),
                at(set_values),
                n_in.into(),
            ],
            step_args: [
                inst,
                0.0.into(),
                0.0.into(),
                0.into(),
                at(8),
                at(9),
                at(10),
                at(0),
            ],
            get_args: [
                inst,
                at(get_vrs),
                n_out_vrs.into(),
                at(get_values),
                n_out.into(),
            ],
        })
    }

    /// The scratch bytes the three calls use.
    fn scratch_len(inputs: (&[ValueRef], usize), outputs: (&[ValueRef], usize)) -> usize {
        let (_, set) = layout([4 * inputs.0.len(), 8 * inputs.1]);
        let (_, get) = layout([4 * outputs.0.len(), 8 * outputs.1]);
        set.max(STEP_BYTES).max(get)
    }

    /// Whether the plan serves `io`'s calls on `instance` whose scratch buffer is `rt`'s.
    fn serves(
        &self,
        instance: i32,
        rt: &Runtime,
        inputs: (&[ValueRef], usize),
        outputs: (&[ValueRef], usize),
    ) -> bool {
        (self.instance, self.n_in, self.n_out) == (instance, inputs.1, outputs.1)
            && self.in_vrs == inputs.0
            && self.out_vrs == outputs.0
            && rt.scratch_at(self.scratch_len) == Some(self.base)
    }
}

impl BinaryModule {
    /// Whether nothing but the three calls would run during a step.
    fn plain_step(&self) -> bool {
        let frees =
            self.fmi.state.is_some() && self.states.iter().any(|h| Arc::strong_count(h) == 1);
        self.md.ports.is_empty()
            && self.clocks.is_empty()
            && self.texts.is_empty()
            && !frees
            && self.instance != 0
    }

    /// The plan of `io`'s calls: the one kept if it still serves, else a new one; `None`
    /// when the calls go one by one (something else runs between them, or the scratch
    /// buffer would have to grow, which calls the module's allocator).
    fn plan_for(&mut self, io: &StepIo<'_>) -> Option<Box<StepPlan>> {
        if !self.plain_step() {
            return None;
        }
        let inputs = io.inputs.map_or((&[][..], 0), |(vrs, u)| (vrs, u.len()));
        let outputs = (io.output_vrs, io.outputs.len());
        match self.step_plan.take() {
            Some(plan) if plan.serves(self.instance, &self.rt, inputs, outputs) => Some(plan),
            _ => {
                let len = StepPlan::scratch_len(inputs, outputs);
                let base = self.rt.scratch_at(len)?;
                StepPlan::new(self.instance, (base, len), inputs, outputs).map(Box::new)
            }
        }
    }

    /// [`Module::step_with_io`] of a binary module.
    pub(super) fn step_in_sequence(&mut self, io: &mut StepIo<'_>) -> StepIoResult {
        let Some(mut plan) = self.plan_for(io) else {
            return one_by_one(self, io);
        };
        let p = &mut *plan;
        let (_, inputs) = io.inputs.unwrap_or((&[], &[]));
        let (set_vr_bytes, rest) = p.bytes.split_at_mut(p.cuts[0]);
        let (set_value_bytes, rest) = rest.split_at_mut(p.cuts[1] - p.cuts[0]);
        let (step_in, rest) = rest.split_at_mut(STEP_BYTES);
        let (step_out, rest) = rest.split_at_mut(STEP_BYTES);
        let (get_vr_bytes, get_value_bytes) = rest.split_at_mut(p.cuts[4] - p.cuts[3]);
        for (b, v) in set_value_bytes.chunks_exact_mut(8).zip(inputs) {
            b.copy_from_slice(&v.to_le_bytes());
        }
        step_in[..8].copy_from_slice(&io.t.to_le_bytes());
        step_in[8..].fill(0);
        p.step_args[1] = io.t.into();
        p.step_args[2] = io.h.into();
        p.step_args[3] = i32::from(io.no_set_state_prior).into();
        let base = p.base;
        let set_writes = [(p.at[0], &*set_vr_bytes), (p.at[1], &*set_value_bytes)];
        let step_writes = [(base, &*step_in)];
        let get_writes = [(p.at[2], &*get_vr_bytes)];
        let mut step_reads = [(base, step_out)];
        let mut get_reads = [(p.at[3], get_value_bytes)];
        let mut calls = [
            SequencedCall {
                f: self.fmi.set_float64,
                args: &p.set_args,
                writes: &set_writes,
                reads: &mut [],
                go_on_if_clear: None,
            },
            SequencedCall {
                f: self.fmi.do_step,
                args: &p.step_args,
                writes: &step_writes,
                reads: &mut step_reads,
                go_on_if_clear: Some((base + 8, 0x00FF_FFFF)),
            },
            SequencedCall {
                f: self.fmi.get_float64,
                args: &p.get_args,
                writes: &get_writes,
                reads: &mut get_reads,
                go_on_if_clear: None,
            },
        ];
        let names = ["fmi3SetFloat64", "fmi3DoStep", "fmi3GetFloat64"];
        let skip = usize::from(io.inputs.is_none());
        let mut statuses = [0i32; 3];
        let (made, last) = self.rt.call_sequence(
            &names[skip..],
            p.keys[skip],
            &mut calls[skip..],
            &mut statuses[skip..],
        );
        let mut step_out = [0u8; 16];
        step_out.copy_from_slice(calls[1].reads[0].1);
        let outcome = self.take_sequence(io, skip, made, last, &statuses, &step_out, &calls[2]);
        self.step_plan = Some(plan);
        outcome
    }

    /// The outcome of the `made` calls of a sequence that started at stage `skip` (the
    /// last one's as `last`), handled as the separate calls handle theirs, then the rest
    /// one by one.
    #[allow(clippy::too_many_arguments)]
    fn take_sequence(
        &mut self,
        io: &mut StepIo<'_>,
        skip: usize,
        made: usize,
        last: Result<Option<u32>, ModuleError>,
        statuses: &[i32; 3],
        step_out: &[u8; 16],
        get: &SequencedCall<'_>,
    ) -> StepIoResult {
        let stages = [SetInputs, DoStep, GetOutputs];
        // Every call made and fmi3OK (the step's flags clear, or the sequence would have
        // stopped after it): what the loop below finds, without its checks.
        if skip + made == stages.len()
            && matches!(last, Ok(None))
            && statuses[skip..] == [0; 3][skip..]
        {
            let report = self
                .step_report(io.t, 0, None, step_out)
                .map_err(|error| StepIoError::before_step(DoStep, error))?;
            if io.reads_outputs(&report) {
                read_f64s(io.outputs, get.reads[0].1);
                return Ok((report, true));
            }
        }
        let mut last = Some(last);
        let mut report = None;
        for k in skip..skip + made {
            let stage = stages[k];
            // Only the last call made can have failed or read outside.
            let read_outside = match k + 1 == skip + made {
                true => last.take().unwrap_or(Ok(None)),
                false => Ok(None),
            };
            let fail = |error| StepIoError {
                stage,
                error,
                report,
            };
            let read_outside = read_outside.map_err(fail)?;
            let code = statuses[k];
            match stage {
                SetInputs => self.check("fmi3SetFloat64", code).map_err(fail)?,
                DoStep => {
                    let r = self
                        .step_report(io.t, code, read_outside, step_out)
                        .map_err(fail)?;
                    if !io.reads_outputs(&r) {
                        return Ok((r, false));
                    }
                    report = Some(r);
                }
                GetOutputs => {
                    if let (0 | 1, None) = (code, read_outside) {
                        read_f64s(io.outputs, get.reads[0].1);
                    }
                    self.check("fmi3GetFloat64", code).map_err(fail)?;
                    read_outside.map_or(Ok(()), |at| Err(fail(outside(at))))?;
                }
            }
        }
        // The calls the sequence did not make, one by one.
        let report = match report {
            Some(r) => r,
            None => Module::do_step(self, io.t, io.h, io.no_set_state_prior)
                .map_err(|e| StepIoError::before_step(DoStep, e))?,
        };
        if skip + made == stages.len() {
            return Ok((report, true));
        }
        if !io.reads_outputs(&report) {
            return Ok((report, false));
        }
        match Module::get_float64(self, io.output_vrs, io.outputs) {
            Ok(()) => Ok((report, true)),
            Err(error) => Err(StepIoError {
                stage: GetOutputs,
                error,
                report: Some(report),
            }),
        }
    }

    /// `fmi3DoStep`'s report from its status `code` and its scratch `out`, as
    /// [`Module::do_step`] makes it.
    pub(super) fn step_report(
        &self,
        t: f64,
        code: i32,
        read_outside: Option<u32>,
        out: &[u8; 16],
    ) -> Result<StepReport, ModuleError> {
        let status = self.status("fmi3DoStep", code)?;
        read_outside.map_or(Ok(()), |at| Err(outside(at)))?;
        let mut last = [0u8; 8];
        last.copy_from_slice(&out[..8]);
        Ok(StepReport {
            status,
            event_handling_needed: out[8] != 0,
            terminate_simulation: out[9] != 0,
            early_return: out[10] != 0,
            last_successful_time: if status == Status::Discard {
                t
            } else {
                f64::from_le_bytes(last)
            },
        })
    }
}

/// `values` from their little-endian `bytes`.
fn read_f64s(values: &mut [f64], bytes: &[u8]) {
    for (v, b) in values.iter_mut().zip(bytes.chunks_exact(8)) {
        *v = f64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]);
    }
}
