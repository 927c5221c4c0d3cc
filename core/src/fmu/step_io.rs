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
use super::runtime::outside;
use super::sandbox::{SequencedCall, WasmValue};
use crate::module::step_io::one_by_one;
use crate::module::{
    Module, ModuleError, Status, StepIo, StepIoError, StepIoResult, StepIoStage, StepReport,
};
use alloc::sync::Arc;
use StepIoStage::*;

/// `fmi3DoStep`'s scratch: lastSuccessfulTime, then the three flags at 8, 9 and 10.
const STEP_BYTES: usize = 16;

impl BinaryModule {
    /// Whether nothing but the three calls would run during `io` with scratch of `len`.
    fn plain_step(&self, len: usize) -> bool {
        let frees =
            self.fmi.state.is_some() && self.states.iter().any(|h| Arc::strong_count(h) == 1);
        self.md.ports.is_empty()
            && self.clocks.is_empty()
            && self.texts.is_empty()
            && !frees
            && self.instance != 0
            && self.rt.scratch_fits(len)
    }

    /// [`Module::step_with_io`] of a binary module.
    pub(super) fn step_in_sequence(&mut self, io: &mut StepIo<'_>) -> StepIoResult {
        let (in_vrs, inputs) = io.inputs.unwrap_or((&[], &[]));
        let ([set_vrs, set_values], set_len) = layout([4 * in_vrs.len(), 8 * inputs.len()]);
        let n_out = (io.output_vrs.len(), io.outputs.len());
        let ([get_vrs, get_values], get_len) = layout([4 * n_out.0, 8 * n_out.1]);
        let counts = [in_vrs.len(), inputs.len(), n_out.0, n_out.1].map(|n| to_i32(n).ok());
        let [Some(n_in_vrs), Some(n_in), Some(n_out_vrs), Some(n_outputs)] = counts else {
            return one_by_one(self, io);
        };
        if !self.plain_step(set_len.max(STEP_BYTES).max(get_len)) {
            return one_by_one(self, io);
        }
        let first = if io.inputs.is_some() {
            SetInputs
        } else {
            DoStep
        };
        let base = self
            .rt
            .scratch(STEP_BYTES)
            .map_err(|e| StepIoError::before_step(first, e))?;
        let inst = WasmValue::I32(self.instance);
        let at = |offset: u32| WasmValue::I32((base + offset) as i32);

        // The bytes of the three calls: set's value references and values, the step's in
        // and out, get's value references and values.
        let mut bytes = self.rt.take_bytes();
        let sizes = [
            4 * in_vrs.len(),
            8 * inputs.len(),
            16,
            16,
            4 * n_out.0,
            8 * n_out.1,
        ];
        bytes.clear();
        bytes.resize(sizes.iter().sum(), 0);
        let (set_vr_bytes, rest) = bytes.split_at_mut(sizes[0]);
        let (set_value_bytes, rest) = rest.split_at_mut(sizes[1]);
        let (step_in, rest) = rest.split_at_mut(sizes[2]);
        let (step_out, rest) = rest.split_at_mut(sizes[3]);
        let (get_vr_bytes, get_value_bytes) = rest.split_at_mut(sizes[4]);
        for (b, v) in set_vr_bytes.chunks_exact_mut(4).zip(in_vrs) {
            b.copy_from_slice(&v.0.to_le_bytes());
        }
        for (b, v) in set_value_bytes.chunks_exact_mut(8).zip(inputs) {
            b.copy_from_slice(&v.to_le_bytes());
        }
        step_in[..8].copy_from_slice(&io.t.to_le_bytes());
        for (b, v) in get_vr_bytes.chunks_exact_mut(4).zip(io.output_vrs) {
            b.copy_from_slice(&v.0.to_le_bytes());
        }

        let set_args = [
            inst,
            at(set_vrs),
            n_in_vrs.into(),
            at(set_values),
            n_in.into(),
        ];
        let step_args: [WasmValue; 8] = [
            inst,
            io.t.into(),
            io.h.into(),
            i32::from(io.no_set_state_prior).into(),
            at(8),
            at(9),
            at(10),
            at(0),
        ];
        let get_args = [
            inst,
            at(get_vrs),
            n_out_vrs.into(),
            at(get_values),
            n_outputs.into(),
        ];
        let set_writes = [
            (base + set_vrs, &*set_vr_bytes),
            (base + set_values, &*set_value_bytes),
        ];
        let step_writes = [(base, &*step_in)];
        let get_writes = [(base + get_vrs, &*get_vr_bytes)];
        let mut step_reads = [(base, step_out)];
        let mut get_reads = [(base + get_values, get_value_bytes)];
        let (f_set, f_step, f_get) = (self.fmi.set_float64, self.fmi.do_step, self.fmi.get_float64);
        let mut calls = [
            SequencedCall {
                f: f_set,
                args: &set_args,
                writes: &set_writes,
                reads: &mut [],
                go_on_if_clear: None,
            },
            SequencedCall {
                f: f_step,
                args: &step_args,
                writes: &step_writes,
                reads: &mut step_reads,
                go_on_if_clear: Some((base + 8, 0x00FF_FFFF)),
            },
            SequencedCall {
                f: f_get,
                args: &get_args,
                writes: &get_writes,
                reads: &mut get_reads,
                go_on_if_clear: None,
            },
        ];
        let names = ["fmi3SetFloat64", "fmi3DoStep", "fmi3GetFloat64"];
        let skip = usize::from(io.inputs.is_none());
        let mut statuses = [0i32; 3];
        let (made, last) =
            self.rt
                .call_sequence(&names[skip..], &mut calls[skip..], &mut statuses[skip..]);
        let mut step_out = [0u8; 16];
        step_out.copy_from_slice(calls[1].reads[0].1);
        let outcome = self.take_sequence(io, skip, made, last, &statuses, &step_out, &calls[2]);
        self.rt.keep_bytes(bytes);
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
                        for (v, b) in io.outputs.iter_mut().zip(get.reads[0].1.chunks_exact(8)) {
                            *v = f64::from_le_bytes([
                                b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
                            ]);
                        }
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
