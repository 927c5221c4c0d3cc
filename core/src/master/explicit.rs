//! [`ExplicitCoupling`]: non-iterative co-simulation with polynomial extrapolation of the
//! coupling signals (seed-000 digest §1.5, §1.3 eqn 3), as Jacobi ([`super::jacobi`]) or
//! Gauss-Seidel ([`super::gauss_seidel`]).
//!
//! Each module receives its inputs as the Taylor polynomial of the extrapolated (or, in
//! Gauss-Seidel, interpolated) coupling signal anchored at the step start `t_n`: the value
//! through `set_float64`, derivatives `1..=p` through `set_input_derivatives`
//! (`x-maxInputDerivativeOrder`, seed-004 digest §4.4). Per module and step the calls are
//! set → do_step → get, so FMI's "no get after set" rule is never broken.
//!
//! Events ([`super::events`]): a module that returns early at `t_e` shortens the
//! macro-step to `t_e` for every module (with rollback where needed), modules that report
//! `eventHandlingNeeded` go through Event Mode, and `terminateSimulation` ends the run.
//! A module whose fixed internal step cannot hit `t + h` may report a `lastSuccessfulTime`
//! short of it without early return (FMI `fixedInternalStepSize`); that is a full step.
//!
//! Limits of this fixed-step explicit master (documented, not hidden):
//! - a step a module discards (`fmi3Discard`) cannot be retried: it is an error;
//! - time events announced by `nextEventTime` are left to the modules (they return early
//!   at them); the master does not shorten steps to hit them.

use super::events::EventWork;
use super::extrapolation::{Extrapolation, TaylorWeights, MAX_ORDER};
use super::history::OutputHistory;
use super::{gauss_seidel, jacobi, CoupledSystem, MacroStepOutcome, MasterAlgorithm, RunStart};
use crate::error::MasterError;
use crate::module::{Status, StepReport, ValueRef};
use alloc::format;
use alloc::vec;
use alloc::vec::Vec;

/// Which modules see new outputs within a macro-step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Scheme {
    /// All modules step on extrapolated inputs (could run in parallel).
    Jacobi,
    /// Modules step in this sequence (module indices, each exactly once); inputs from
    /// modules that already stepped use the polynomial through their new sample.
    GaussSeidel(Vec<usize>),
}

/// Explicit Jacobi or Gauss-Seidel coupling with polynomial extrapolation of order
/// `p = 0..=4` (0 = zero-order hold; orders above 2 shrink the stability region,
/// seed-000 digest §1.6). Settings are checked in `prepare`, before the first step.
#[derive(Clone, Debug)]
pub struct ExplicitCoupling {
    scheme: Scheme,
    order: u32,
    work: Option<ExplicitWork>,
}

/// Work buffers, allocated once in `prepare`.
#[derive(Clone, Debug)]
pub(super) struct ExplicitWork {
    order: usize,
    history: OutputHistory,
    /// Input values at `t_n`, stacked.
    u: Vec<f64>,
    /// Input derivatives, module blocks at `p·input_start`, order-major inside a block.
    du: Vec<f64>,
    du_vrs: Vec<ValueRef>,
    du_orders: Vec<u32>,
    /// Module owning the source output of each stacked input.
    source_module: Vec<usize>,
    /// Modules already stepped in this macro-step (Gauss-Seidel only).
    stepped: Vec<bool>,
    interpolate: bool,
    extrapolation: TaylorWeights,
    interpolation: TaylorWeights,
    /// Early return, rollback and event bookkeeping.
    pub(super) events: EventWork,
}

/// `x-maxInputDerivativeOrder ≥ p`, as static text for [`MasterError::MissingCapability`].
const INPUT_ORDER_NEEDED: [&str; MAX_ORDER + 1] = [
    "x-maxInputDerivativeOrder ≥ 0",
    "x-maxInputDerivativeOrder ≥ 1",
    "x-maxInputDerivativeOrder ≥ 2",
    "x-maxInputDerivativeOrder ≥ 3",
    "x-maxInputDerivativeOrder ≥ 4",
];

impl ExplicitCoupling {
    /// `scheme` with extrapolation order `extrapolation_order`.
    pub fn new(scheme: Scheme, extrapolation_order: u32) -> Self {
        ExplicitCoupling {
            scheme,
            order: extrapolation_order,
            work: None,
        }
    }

    /// Jacobi with extrapolation order `order`.
    pub fn jacobi(order: u32) -> Self {
        Self::new(Scheme::Jacobi, order)
    }

    /// Gauss-Seidel stepping modules in `sequence`, extrapolation order `order`.
    pub fn gauss_seidel(sequence: Vec<usize>, order: u32) -> Self {
        Self::new(Scheme::GaussSeidel(sequence), order)
    }

    /// The coupling scheme.
    pub fn scheme(&self) -> &Scheme {
        &self.scheme
    }

    /// The extrapolation order `p`.
    pub fn extrapolation_order(&self) -> u32 {
        self.order
    }

    fn check_capabilities(&self, sys: &CoupledSystem, p: usize) -> Result<(), MasterError> {
        for m in 0..sys.n_modules() {
            if sys.graph.input_range(m).is_empty() {
                continue;
            }
            let provided = sys.subsystems[m]
                .description()
                .capabilities
                .x_max_input_derivative_order;
            if (provided as usize) < p {
                return Err(MasterError::MissingCapability {
                    module: sys.names[m].clone(),
                    capability: INPUT_ORDER_NEEDED[p],
                    needed_by: format!(
                        "extrapolation order {p} (module provides order {provided})"
                    ),
                });
            }
        }
        Ok(())
    }
}

impl MasterAlgorithm for ExplicitCoupling {
    fn name(&self) -> &'static str {
        match self.scheme {
            Scheme::Jacobi => "jacobi",
            Scheme::GaussSeidel(_) => "gauss_seidel",
        }
    }

    fn prepare(
        &mut self,
        sys: &mut CoupledSystem,
        start: &RunStart<'_>,
    ) -> Result<(), MasterError> {
        if sys.initialized_at() != Some(start.t_start) {
            return Err(MasterError::InvalidSettings(
                "the coupled system must be initialised at the start time".into(),
            ));
        }
        let extrapolation = Extrapolation::new(self.order).ok_or_else(|| {
            MasterError::InvalidSettings(format!(
                "extrapolation order {} is not supported (0 to {MAX_ORDER})",
                self.order
            ))
        })?;
        if let Scheme::GaussSeidel(sequence) = &self.scheme {
            gauss_seidel::check_sequence(sequence, &sys.names)?;
        }
        self.check_capabilities(sys, extrapolation.order())?;
        let sequence = match &self.scheme {
            Scheme::Jacobi => None,
            Scheme::GaussSeidel(s) => Some(s.as_slice()),
        };
        let events = EventWork::new(sys, sequence)?;
        let mut work = ExplicitWork::new(sys, extrapolation.order(), events);
        work.start_history(sys, start)?;
        self.work = Some(work);
        Ok(())
    }

    fn step(
        &mut self,
        sys: &mut CoupledSystem,
        t: f64,
        h: f64,
    ) -> Result<MacroStepOutcome, MasterError> {
        let work = self.work.as_mut().ok_or_else(|| {
            MasterError::InvalidSettings("ExplicitCoupling::step before prepare".into())
        })?;
        match &self.scheme {
            Scheme::Jacobi => jacobi::step(work, sys, t, h),
            Scheme::GaussSeidel(sequence) => gauss_seidel::step(work, sequence, sys, t, h),
        }
    }
}

impl ExplicitWork {
    fn new(sys: &CoupledSystem, order: usize, events: EventWork) -> Self {
        let g = &sys.graph;
        let (n_u, n_y) = (g.n_inputs(), g.n_outputs());
        let mut du_vrs = Vec::with_capacity(n_u * order);
        let mut du_orders = Vec::with_capacity(n_u * order);
        for m in 0..sys.n_modules() {
            for k in 1..=order {
                for &vr in g.input_value_refs(m) {
                    du_vrs.push(vr);
                    du_orders.push(k as u32);
                }
            }
        }
        ExplicitWork {
            order,
            history: OutputHistory::new(order + 1, n_y),
            u: vec![0.0; n_u],
            du: vec![0.0; n_u * order],
            du_vrs,
            du_orders,
            source_module: (0..n_u)
                .map(|i| g.output_module(g.source_of_input(i)))
                .collect(),
            stepped: vec![false; sys.n_modules()],
            interpolate: false,
            extrapolation: TaylorWeights::hold(),
            interpolation: TaylorWeights::hold(),
            events,
        }
    }

    /// Exact past samples (checked), then the initial outputs at `t_start`.
    fn start_history(
        &mut self,
        sys: &CoupledSystem,
        start: &RunStart<'_>,
    ) -> Result<(), MasterError> {
        self.history.clear();
        let mut previous = f64::NEG_INFINITY;
        for (k, (t, y)) in start.history.iter().enumerate() {
            let bad = |why: &str| {
                MasterError::InvalidSettings(format!(
                    "start-up history sample {k} (t = {t} s): {why}"
                ))
            };
            if y.len() != sys.graph.n_outputs() {
                return Err(bad("wrong number of outputs"));
            }
            if !t.is_finite() || *t <= previous || *t >= start.t_start {
                return Err(bad(
                    "times must be finite, increasing and before the start time",
                ));
            }
            if y.iter().any(|v| !v.is_finite()) {
                return Err(bad("non-finite value"));
            }
            previous = *t;
            self.history.push(*t, y);
        }
        self.history.push(start.t_start, sys.outputs());
        Ok(())
    }

    /// Weights for this step: extrapolation through the newest `q + 1` samples and
    /// interpolation through the new sample at `t + h` and the newest `q` old ones.
    pub(super) fn begin(&mut self, t: f64, h: f64, interpolate: bool) -> Result<(), MasterError> {
        let mut times = [0.0; MAX_ORDER + 1];
        let q = self.order.min(self.history.len().saturating_sub(1));
        for (j, tj) in times.iter_mut().enumerate().take(q + 1) {
            *tj = self.history.time(j);
        }
        let invalid = || {
            MasterError::InvalidSettings(format!(
                "macro-step at t = {t} s, h = {h} s: sample times coincide"
            ))
        };
        self.extrapolation = Extrapolation::weights(&times[..=q], t).ok_or_else(invalid)?;
        self.interpolate = interpolate;
        if interpolate {
            let q = self.order.min(self.history.len());
            times[0] = t + h;
            for (j, tj) in times.iter_mut().enumerate().take(q + 1).skip(1) {
                *tj = self.history.time(j - 1);
            }
            self.interpolation = Extrapolation::weights(&times[..=q], t).ok_or_else(invalid)?;
            self.stepped.iter_mut().for_each(|s| *s = false);
        }
        Ok(())
    }

    /// Marks module `m` as stepped in this macro-step (Gauss-Seidel: its new outputs feed
    /// the modules after it).
    pub(super) fn mark_stepped(&mut self, m: usize) {
        if self.interpolate {
            self.stepped[m] = true;
        }
    }

    /// Sets module `m`'s input polynomial, steps it and reads its new outputs; returns its
    /// step report (early return, events and termination are for the caller).
    pub(super) fn advance_module(
        &mut self,
        sys: &mut CoupledSystem,
        m: usize,
        t: f64,
        h: f64,
    ) -> Result<StepReport, MasterError> {
        let range = sys.graph.input_range(m);
        if !range.is_empty() {
            self.fill_inputs(sys, range.clone());
            sys.set_inputs(m, t, &self.u[range.clone()])?;
            let p = self.order;
            if p > 0 {
                let b = p * range.start..p * range.end;
                sys.set_input_derivatives(
                    m,
                    t,
                    &self.du_vrs[b.clone()],
                    &self.du_orders[b.clone()],
                    &self.du[b],
                )?;
            }
        }
        // noSetFMUStatePriorToCurrentPoint: a rollback only ever returns to `t`.
        let report = sys.do_step(m, t, h, true)?;
        check_report(sys, m, t, h, &report)?;
        sys.read_outputs(m, report.last_successful_time.min(t + h))?;
        self.mark_stepped(m);
        Ok(report)
    }

    fn fill_inputs(&mut self, sys: &CoupledSystem, range: core::ops::Range<usize>) {
        let p = self.order;
        let n_local = range.len();
        let outputs = sys.outputs();
        for (local, i) in range.clone().enumerate() {
            let o = sys.graph.source_of_input(i);
            let from_new = self.interpolate && self.stepped[self.source_module[i]];
            let history = &self.history;
            // Interpolation: sample 0 is the new output, then the old samples.
            let sample = |j: usize| -> f64 {
                match (from_new, j) {
                    (true, 0) => outputs[o],
                    (true, j) => history.sample(j - 1)[o],
                    (false, j) => history.sample(j)[o],
                }
            };
            let w = if from_new {
                &self.interpolation
            } else {
                &self.extrapolation
            };
            self.u[i] = w.derivative(0, sample);
            for k in 1..=p {
                self.du[p * range.start + (k - 1) * n_local + local] = w.derivative(k, sample);
            }
        }
    }

    /// Stores the outputs at the end of the macro-step as the newest sample.
    pub(super) fn finish(&mut self, sys: &CoupledSystem, t_end: f64) {
        self.history.push(t_end, sys.outputs());
    }
}

/// The explicit master cannot retry a discarded step, and a module may return early only
/// if it was instantiated with `earlyReturnAllowed`.
fn check_report(
    sys: &CoupledSystem,
    m: usize,
    t: f64,
    h: f64,
    report: &StepReport,
) -> Result<(), MasterError> {
    let name = &sys.names[m];
    if report.status == Status::Discard {
        return Err(MasterError::InvalidSettings(format!(
            "module `{name}` discarded the macro-step from t = {t} s (h = {h} s); the explicit fixed-step \
             master cannot retry a step (try a smaller macro-step)"
        )));
    }
    if report.early_return && !sys.instantiate_options(m).early_return_allowed {
        return Err(MasterError::InvalidSettings(format!(
            "module `{name}` returned early at t = {} s although it was instantiated with \
             earlyReturnAllowed = false (it does not declare mightReturnEarlyFromDoStep)",
            report.last_successful_time
        )));
    }
    Ok(())
}
