//! [`DefectJacobi`]: non-iterative Jacobi with the defects of docs/methods.md §15 measured on
//! every macro-step (Algorithm 1, "implementation-ready" loop):
//! 1. *exchange*: each input gets its source's output value and derivatives `1..=n` at
//!    `t_k`, written as the input value and input derivatives `1..=m` (truncated, or
//!    zero-padded above `n`);
//! 2. *step*: one `do_step(t_k, h)` per module (never two half steps: the midpoint sample
//!    is taken inside the step, docs/methods.md §15.3);
//! 3. *read*: outputs and derivatives `1..=n` at `t_{k+1}`, and the midpoint samples;
//! 4. *defects*: connection defect per input, Hermite output estimate per watched output,
//!    their exact per-step RMS, and `ε_k` (eqn 38) in [`StepDiagnostics`].
//!
//! No module state is ever saved or restored, and [`MasterAlgorithm::may_reject`] is false.
//! Direct feedthrough (docs/methods.md §15.6): the value sent at `t_k` is the one read at
//! the end of the previous step, computed with that step's extrapolated input; outputs are
//! never read between setting inputs and stepping (FMI forbids it).

use super::defects::{connection_defect, output_defect_estimate, Monitored, RunDefects};
use super::ports::DefectPorts;
use super::start::{check_capabilities, initial_samples, Initialisation};
use super::taylor::{Taylor, MAX_DEGREE};
use crate::error::{MasterError, RejectReason};
use crate::master::{
    CoupledSystem, MacroStepOutcome, MasterAlgorithm, Rejection, RunStart, StepDiagnostics,
};
use crate::module::Status;
use alloc::format;
use alloc::vec;
use alloc::vec::Vec;

/// Highest input and output order (m, n).
pub const MAX_DEFECT_ORDER: u32 = 2;

/// What the defect master exchanges and monitors.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DefectSettings {
    /// Input polynomial order `m` (0 to 2): input derivatives `1..=m` are set.
    pub input_order: usize,
    /// Output polynomial order `n` (0 to 2): output derivatives `1..=n` are read.
    pub output_order: usize,
    /// Which defects enter `ε_k`.
    pub monitored: Monitored,
    /// How the first step's derivative slots are filled.
    pub initialisation: Initialisation,
}

/// Defect-measuring Jacobi (see the module docs). Settings are checked in `prepare`.
pub struct DefectJacobi {
    settings: DefectSettings,
    work: Option<Work>,
}

/// Buffers of one run, allocated in `prepare`.
struct Work {
    ports: DefectPorts,
    /// Watched port `k`'s samples at the current communication point: `n + 1` entries.
    samples: Vec<f64>,
    /// The same at the end of the attempt.
    next: Vec<f64>,
    /// Midpoint sample per watched port (those with midpoint samples).
    midpoints: Vec<f64>,
    /// Input values applied in the attempt, and derivatives `1..=m` per input.
    applied: Vec<f64>,
    du: Vec<f64>,
    /// Output derivatives `1..=n` per watched port, as read.
    dy: Vec<f64>,
    /// `∫ δu² dt` of the attempt per input.
    connection_sq: Vec<f64>,
    /// Watched ports with midpoint samples (the outputs of [`RunDefects`]) and their
    /// integrals in the attempt.
    estimated: Vec<usize>,
    estimated_sq: Vec<f64>,
    /// `ε_k` of the attempt; `None` if it ended without defects (termination).
    eps: Option<f64>,
    run: RunDefects,
}

impl DefectJacobi {
    /// Defect-measuring Jacobi with these settings.
    pub fn new(settings: DefectSettings) -> Self {
        DefectJacobi {
            settings,
            work: None,
        }
    }

    /// The settings.
    pub fn settings(&self) -> &DefectSettings {
        &self.settings
    }
}

impl MasterAlgorithm for DefectJacobi {
    fn name(&self) -> &'static str {
        "defect_jacobi"
    }

    fn prepare(
        &mut self,
        sys: &mut CoupledSystem,
        start: &RunStart<'_>,
    ) -> Result<(), MasterError> {
        let s = self.settings;
        let max = MAX_DEFECT_ORDER as usize;
        if s.input_order > max || s.output_order > max {
            return Err(MasterError::InvalidSettings(format!(
                "defect-controlled Jacobi: input and output orders must be 0, 1 or 2 \
                 (got m = {}, n = {})",
                s.input_order, s.output_order
            )));
        }
        let ports = DefectPorts::new(sys, s.output_order, s.input_order);
        check_capabilities(sys, &ports, &s, start.variable_steps)?;
        let (n_ports, n_in) = (ports.outputs.len(), sys.graph().n_inputs());
        let np1 = s.output_order + 1;
        let mut samples = vec![0.0; n_ports * np1];
        initial_samples(sys, &ports, s.initialisation, start.t_start, &mut samples)?;
        let estimated: Vec<usize> = (0..n_ports).filter(|&k| ports.has_midpoint[k]).collect();
        let run = RunDefects::new(
            start.t_start,
            ports.estimated_output_names(sys.graph()),
            sys.graph().input_names(),
        );
        self.work = Some(Work {
            next: samples.clone(),
            samples,
            midpoints: vec![0.0; n_ports],
            applied: vec![0.0; n_in],
            du: vec![0.0; n_in * s.input_order],
            dy: vec![0.0; n_ports * s.output_order],
            connection_sq: vec![0.0; n_in],
            estimated_sq: vec![0.0; estimated.len()],
            estimated,
            eps: None,
            run,
            ports,
        });
        Ok(())
    }

    fn step(
        &mut self,
        sys: &mut CoupledSystem,
        t: f64,
        h: f64,
    ) -> Result<MacroStepOutcome, MasterError> {
        // Not `ok_or`: that builds (and drops) the error at every step.
        let Some(w) = self.work.as_mut() else {
            return Err(MasterError::NotPrepared("DefectJacobi"));
        };
        w.eps = None;
        w.exchange(sys, t)?;
        let mut terminated = None;
        for mo in 0..sys.n_modules() {
            // noSetFMUStatePriorToCurrentPoint: nothing is ever restored.
            let report = sys.do_step(mo, t, h, true)?;
            if report.status == Status::Discard {
                let module = sys.name(mo).into();
                return Ok(MacroStepOutcome::Rejected(Rejection {
                    reason: RejectReason::Discarded { module },
                    h_retry: None,
                }));
            }
            if report.early_return {
                return Err(MasterError::InvalidSettings(format!(
                    "module `{}` returned early at t = {} s; defect-controlled Jacobi takes \
                     every step whole (it never rolls back) and cannot use early return",
                    sys.name(mo),
                    report.last_successful_time
                )));
            }
            let event = report.event_handling_needed && sys.instantiate_options(mo).event_mode_used;
            if (event && sys.handle_event(mo, t + h)?) || report.terminate_simulation {
                terminated.get_or_insert(mo);
            }
        }
        for mo in 0..sys.n_modules() {
            sys.read_outputs(mo, t + h)?;
        }
        if let Some(module) = terminated {
            // A module that ends the run may be left in Event Mode, where its derivatives
            // cannot be read: this last step has no defects.
            return Ok(MacroStepOutcome::Terminated { h_taken: h, module });
        }
        w.read_samples(sys, t + h)?;
        let eps = w.defects(&self.settings, h);
        w.eps = Some(eps);
        Ok(MacroStepOutcome::Accepted {
            h_taken: h,
            diagnostics: StepDiagnostics {
                defect: Some(eps),
                ..StepDiagnostics::default()
            },
        })
    }

    fn commit(&mut self, _sys: &CoupledSystem, t_end: f64) {
        if let Some(w) = self.work.as_mut() {
            w.commit(t_end);
        }
    }

    fn defects(&self) -> Option<&RunDefects> {
        self.work.as_ref().map(|w| &w.run)
    }
}

impl Work {
    /// Sets every module's input values and derivatives from the samples at `t`.
    fn exchange(&mut self, sys: &mut CoupledSystem, t: f64) -> Result<(), MasterError> {
        let (n, m) = (self.ports.n, self.ports.m);
        let np1 = n + 1;
        let offsets = sys.input_offsets();
        for i in 0..self.applied.len() {
            let k = self.ports.source_port[i];
            let offset = offsets.map_or(0.0, |off| off[i]);
            self.applied[i] = self.samples[k * np1] + offset;
            for j in 1..=m {
                // Derivatives the source does not report are zero (docs/methods.md §15.2).
                self.du[i * m + j - 1] = if j <= n {
                    self.samples[k * np1 + j]
                } else {
                    0.0
                };
            }
        }
        for mo in 0..sys.n_modules() {
            let r = sys.graph().input_range(mo);
            if r.is_empty() {
                continue;
            }
            let mut slot = sys.slot(mo);
            slot.set_inputs_unrecorded(t, &self.applied[r.clone()])?;
            if m > 0 {
                let b = r.start * m..r.end * m;
                let (vrs, orders) = (&self.ports.in_vrs[b.clone()], &self.ports.in_orders[b]);
                slot.set_input_derivatives(t, vrs, orders, &self.du[r.start * m..r.end * m])?;
            }
        }
        sys.record_inputs(&self.applied);
        Ok(())
    }

    /// Reads the watched ports' values, derivatives and midpoint samples at `t_end`.
    fn read_samples(&mut self, sys: &mut CoupledSystem, t_end: f64) -> Result<(), MasterError> {
        let n = self.ports.n;
        let np1 = n + 1;
        for mo in 0..sys.n_modules() {
            let ports = self.ports.module_ports[mo].clone();
            if ports.is_empty() {
                continue;
            }
            for k in ports.clone() {
                self.next[k * np1] = sys.outputs()[self.ports.outputs[k]];
            }
            let sub = sys.subsystem_mut(mo);
            let mut r = Ok(());
            if n > 0 {
                // One call per module; the derivatives land in `dy`, then beside the values.
                let b = ports.start * n..ports.end * n;
                let (vrs, orders) = (
                    &self.ports.out_vrs[b.clone()],
                    &self.ports.out_orders[b.clone()],
                );
                r = sub.get_output_derivatives(vrs, orders, &mut self.dy[b]);
                for k in ports.clone() {
                    self.next[k * np1 + 1..(k + 1) * np1]
                        .copy_from_slice(&self.dy[k * n..(k + 1) * n]);
                }
            }
            if self.ports.has_midpoint[ports.start] {
                let vrs = &self.ports.mid_vrs[ports.clone()];
                r = r.and_then(|_| sub.get_midpoint_outputs(vrs, &mut self.midpoints[ports]));
            }
            r.map_err(|e| sys.module_error(mo, t_end, e))?;
        }
        Ok(())
    }

    /// The attempt's squared-defect integrals and `ε_k`, on the step `[0, h]`.
    fn defects(&mut self, settings: &DefectSettings, h: f64) -> f64 {
        let (n, m) = (self.ports.n, self.ports.m);
        let np1 = n + 1;
        let output_poly = |next: &[f64], k: usize| Taylor::new(h, &next[k * np1..(k + 1) * np1]);
        let mut eps: f64 = 0.0;
        for (j, &k) in self.estimated.iter().enumerate() {
            let estimate =
                output_defect_estimate(&output_poly(&self.next, k), n, h, self.midpoints[k]);
            let sq = estimate.integral_of_square(0.0, h);
            self.estimated_sq[j] = sq;
            if settings.monitored.outputs() {
                eps = eps.max(libm::sqrt(sq / h));
            }
        }
        let mut d = [0.0; MAX_DEGREE + 1];
        for i in 0..self.applied.len() {
            d[0] = self.applied[i];
            d[1..=m].copy_from_slice(&self.du[i * m..(i + 1) * m]);
            let input = Taylor::new(0.0, &d[..=m]);
            let source = output_poly(&self.next, self.ports.source_port[i]);
            let sq = connection_defect(&input, &source).integral_of_square(0.0, h);
            self.connection_sq[i] = sq;
            if settings.monitored.connections() {
                eps = eps.max(libm::sqrt(sq / h));
            }
        }
        eps
    }

    /// The accepted attempt's samples become the current ones; its defects are added to
    /// the run-wide sums (a terminating step has none).
    fn commit(&mut self, t_end: f64) {
        core::mem::swap(&mut self.samples, &mut self.next);
        if let Some(eps) = self.eps.take() {
            self.run
                .add_step(t_end, &self.estimated_sq, &self.connection_sq, eps);
        }
    }
}
