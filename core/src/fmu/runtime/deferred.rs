//! Fewer engine calls per macro-step: a module's `fmi3SetFloat64` of its inputs is kept
//! until the next call into the instance, and `fmi3DoStep` takes it, and the
//! `fmi3GetFloat64` of the outputs the master reads after the step, into one engine call
//! ([`GuestInstance::call_sequence`]: one crossing into JS on the browser's engine).
//! The module sees the same calls in the same order; only a failing set is reported one
//! call later, still naming `fmi3SetFloat64`.
//!
//! [`GuestInstance::call_sequence`]: super::super::sandbox::GuestInstance::call_sequence

use super::super::binary_module::{layout, to_i32};
use super::super::sandbox::{ExportFn, MemoryCallError, StatusCall, WasmValue};
use super::{outside, Float64s, Runtime};
use crate::module::{ModuleError, ModuleErrorKind, Status, ValueRef};
use alloc::format;
use alloc::vec::Vec;

/// An `fmi3SetFloat64` not made yet.
#[derive(Default)]
pub(super) struct PendingSet {
    active: bool,
    f: Option<ExportFn>,
    instance: i32,
    vrs: Vec<ValueRef>,
    values: Vec<f64>,
}

/// `fmi3DoStep(instance, t, h, noSetFMUStatePriorToCurrentPoint, ...)` and, when `get` is
/// given, `fmi3GetFloat64` of those value references after it if the step returned fmi3OK
/// or fmi3Warning.
pub(crate) struct StepCall<'a> {
    pub do_step: ExportFn,
    pub instance: i32,
    pub t: f64,
    pub h: f64,
    pub no_set_state_prior_to_current_point: bool,
    pub get: Option<(ExportFn, &'a [ValueRef])>,
}

/// What the step returned: its status code, its 16 out-bytes (lastSuccessfulTime and the
/// three flags) or the address of a read outside memory, and, if the get was made, its
/// outcome (the values are in the caller's buffer).
pub(crate) struct StepOutcome {
    pub code: i32,
    pub out: [u8; 16],
    pub read_outside: Option<u32>,
    pub got: Option<Result<(), ModuleError>>,
}

const SET: &str = "fmi3SetFloat64";
const STEP: &str = "fmi3DoStep";
const GET: &str = "fmi3GetFloat64";

impl Runtime {
    /// `fmi3SetFloat64(instance, vrs, values)` with `f`, made before the next call.
    pub fn defer_float64_set(
        &mut self,
        f: ExportFn,
        instance: i32,
        vrs: &[ValueRef],
        values: &[f64],
    ) -> Result<(), ModuleError> {
        self.flush_pending()?;
        let p = &mut self.pending;
        p.active = true;
        (p.f, p.instance) = (Some(f), instance);
        p.vrs.clear();
        p.vrs.extend_from_slice(vrs);
        p.values.clear();
        p.values.extend_from_slice(values);
        Ok(())
    }

    /// Makes the deferred set, if any, as its own call.
    pub(super) fn flush_pending(&mut self) -> Result<(), ModuleError> {
        let (true, Some(f)) = (self.pending.active, self.pending.f) else {
            return Ok(());
        };
        self.pending.active = false;
        let (vrs, values) = (
            core::mem::take(&mut self.pending.vrs),
            core::mem::take(&mut self.pending.values),
        );
        let r = self.float64_call(SET, f, self.pending.instance, &vrs, Float64s::Set(&values));
        (self.pending.vrs, self.pending.values) = (vrs, values);
        let (code, _) = r?;
        self.check(SET, code)
    }

    /// Calls made into the instance so far.
    pub fn calls(&self) -> u64 {
        self.calls
    }

    /// The step of `c` with the deferred set before it, in one engine call; `got` receives
    /// the values of `c.get` (as many as it has value references).
    pub fn step(&mut self, c: StepCall<'_>, got: &mut [f64]) -> Result<StepOutcome, ModuleError> {
        let set = self.pending.f.filter(|_| self.pending.active);
        self.pending.active = false;
        let nset = if set.is_some() {
            self.pending.vrs.len()
        } else {
            0
        };
        let get_vrs = c.get.map_or(&[][..], |(_, vrs)| vrs);
        let nget = get_vrs.len();
        let sizes = [4 * nset, 8 * nset, 16, 4 * nget, 8 * nget];
        let ([sv, sx, p, gv, gx], len) = layout(sizes);
        let base = self.scratch(len)?;
        let [sv, sx, p, gv, gx] = [sv, sx, p, gv, gx].map(|o| base + o);
        let inst = c.instance;
        let (ns, ng) = (to_i32(nset)?, to_i32(nget)?);
        let set_args = [inst, sv as i32, ns, sx as i32, ns].map(WasmValue::I32);
        let get_args = [inst, gv as i32, ng, gx as i32, ng].map(WasmValue::I32);
        let step_args: [WasmValue; 8] = [
            inst.into(),
            c.t.into(),
            c.h.into(),
            i32::from(c.no_set_state_prior_to_current_point).into(),
            ((p + 8) as i32).into(),
            ((p + 9) as i32).into(),
            ((p + 10) as i32).into(),
            (p as i32).into(),
        ];
        // One buffer for every copy, kept between steps: the set's value references and
        // values, the step's in/out bytes, the get's value references and values.
        let mut bytes = core::mem::take(&mut self.bytes);
        bytes.clear();
        bytes.extend(
            self.pending.vrs[..nset]
                .iter()
                .flat_map(|v| v.0.to_le_bytes()),
        );
        bytes.extend(
            self.pending.values[..nset]
                .iter()
                .flat_map(|v| v.to_le_bytes()),
        );
        bytes.extend(c.t.to_le_bytes());
        bytes.extend([0u8; 8 + 16]);
        bytes.extend(get_vrs.iter().flat_map(|v| v.0.to_le_bytes()));
        bytes.resize(bytes.len() + 8 * nget, 0);
        let (set_vr, rest) = bytes.split_at_mut(4 * nset);
        let (set_x, rest) = rest.split_at_mut(8 * nset);
        let (step_in, rest) = rest.split_at_mut(16);
        let (step_out, rest) = rest.split_at_mut(16);
        let (get_vr, get_x) = rest.split_at_mut(4 * nget);
        let set_writes = [(sv, &*set_vr), (sx, &*set_x)];
        let step_writes = [(p, &*step_in)];
        let get_writes = [(gv, &*get_vr)];
        let mut step_reads = [(p, step_out)];
        let mut get_reads = [(gx, get_x)];
        let mut seq = [
            StatusCall {
                f: set.unwrap_or(c.do_step),
                args: &set_args,
                writes: &set_writes,
                reads: &mut [],
            },
            StatusCall {
                f: c.do_step,
                args: &step_args,
                writes: &step_writes,
                reads: &mut step_reads,
            },
            StatusCall {
                f: c.get.map_or(c.do_step, |(f, _)| f),
                args: &get_args,
                writes: &get_writes,
                reads: &mut get_reads,
            },
        ];
        let first = usize::from(set.is_none());
        let end = if c.get.is_some() { 3 } else { 2 };
        let mut statuses = [0i32; 3];
        let done = self
            .guest
            .call_sequence(&mut seq[first..end], &mut statuses[first..end]);
        self.calls += done.ran as u64;
        // The index (0 set, 1 step, 2 get) of the call made last.
        let last = first + done.ran.max(1) - 1;
        let result = self.step_outcome(last, done.failed, &statuses, got, &bytes, nset, nget);
        self.bytes = bytes;
        result
    }

    /// [`Runtime::step`]'s calls as their own calls would have ended: a failed set or step
    /// is an error, the get's outcome is kept for when the master asks.
    #[allow(clippy::too_many_arguments)]
    fn step_outcome(
        &mut self,
        last: usize,
        failed: Option<MemoryCallError>,
        statuses: &[i32; 3],
        got: &mut [f64],
        bytes: &[u8],
        nset: usize,
        nget: usize,
    ) -> Result<StepOutcome, ModuleError> {
        self.refused([SET, STEP, GET][last])?;
        if last == 0 {
            if let Some(e) = failed {
                return Err(self.sequence_error(SET, e));
            }
            self.check(SET, statuses[0])?;
        }
        let out_at = 12 * nset + 16;
        let mut outcome = StepOutcome {
            code: statuses[1],
            out: bytes[out_at..out_at + 16].try_into().unwrap_or_default(),
            read_outside: None,
            got: None,
        };
        match (last, failed) {
            (1, Some(MemoryCallError::ReadOutside(at))) => outcome.read_outside = Some(at),
            (1, Some(e)) => return Err(self.sequence_error(STEP, e)),
            (2, Some(e)) => outcome.got = Some(Err(self.sequence_error(GET, e))),
            (2, None) => {
                let x = &bytes[out_at + 16 + 4 * nget..];
                outcome.got = Some(self.check(GET, statuses[2]).map(|()| {
                    for (v, b) in got.iter_mut().zip(x.chunks_exact(8)) {
                        *v = f64::from_le_bytes(b.try_into().unwrap_or_default());
                    }
                }));
            }
            _ => {}
        }
        Ok(outcome)
    }

    /// A call of a sequence that did not complete, as its own call's error.
    fn sequence_error(&self, call: &'static str, e: MemoryCallError) -> ModuleError {
        match e {
            MemoryCallError::WriteOutside(at) | MemoryCallError::ReadOutside(at) => outside(at),
            MemoryCallError::Call(e) => self.trap(call, e),
        }
    }

    /// The status `code` of `call`: Ok, Warning, Discard, or an error naming the call.
    pub fn status(&self, call: &'static str, code: i32) -> Result<Status, ModuleError> {
        let reported = |status| ModuleError {
            status,
            kind: ModuleErrorKind::Reported {
                call,
                log: self.log_tail(5),
            },
        };
        match code {
            0 => Ok(Status::Ok),
            1 => Ok(Status::Warning),
            2 => Ok(Status::Discard),
            3 => Err(reported(Status::Error)),
            4 => Err(reported(Status::Fatal)),
            other => Err(ModuleError {
                status: Status::Fatal,
                kind: ModuleErrorKind::Trap(format!(
                    "{call} returned {other}, which is not an fmi3Status"
                )),
            }),
        }
    }

    /// A call that may not be discarded: `fmi3Discard` is an error here.
    pub fn check(&self, call: &'static str, code: i32) -> Result<(), ModuleError> {
        match self.status(call, code)? {
            Status::Discard => Err(ModuleError {
                status: Status::Error,
                kind: ModuleErrorKind::Reported {
                    call,
                    log: format!("(fmi3Discard) {}", self.log_tail(5)),
                },
            }),
            _ => Ok(()),
        }
    }
}
