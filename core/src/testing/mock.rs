//! Test-only [`MockModule`]: a module built from closures with exactly predictable outputs
//! (libcosim's `mock_slave.hpp` idea). It accepts input derivatives up to a chosen order,
//! so an integrator mock can integrate the input polynomial exactly, and it can log every
//! call into a shared list to check call order.

use crate::module::{
    Capabilities, Causality, DependencyKind, Derivatives, InputDerivatives, Module,
    ModuleDescription, ModuleError, OutputDependency, StepReport, ValueRef, Variability, Variable,
};
use alloc::boxed::Box;
use alloc::format;
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec;
use alloc::vec::Vec;

// Test-only: a lock for values the test shares with its (`Send`) mocks.
extern crate std;

/// Highest input derivative order a mock stores.
const K: usize = 5;

/// What the closures see: time, states, and per input its Taylor coefficients at `t`
/// (`u[i][0]` value, `u[i][k]` k-th derivative).
pub struct MockCtx<'a> {
    /// Time in s.
    pub t: f64,
    /// States.
    pub x: &'a [f64],
    /// Per input: value and derivatives at `t`.
    pub u: &'a [[f64; K]],
}

impl MockCtx<'_> {
    /// Input `i`'s polynomial at `t + s`.
    pub fn input_at(&self, i: usize, s: f64) -> f64 {
        let mut acc = 0.0;
        let mut term = 1.0;
        for k in 0..K {
            acc += self.u[i][k] * term;
            term *= s / (k + 1) as f64;
        }
        acc
    }
}

type OutputFn = Box<dyn Fn(&MockCtx<'_>, &mut [f64]) + Send>;
type StepFn = Box<dyn FnMut(&MockCtx<'_>, f64, &mut [f64]) + Send>;
type ReportFn = Box<dyn Fn(f64, f64) -> StepReport + Send>;

/// A value a test shares with its mocks, which must be `Send` like every module.
#[derive(Debug, Default)]
pub struct Shared<T>(std::sync::Mutex<T>);

impl<T> Shared<T> {
    /// The value, to read (a panic in another test thread does not hide it).
    pub fn borrow(&self) -> std::sync::MutexGuard<'_, T> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The value, to change.
    pub fn borrow_mut(&self) -> std::sync::MutexGuard<'_, T> {
        self.borrow()
    }
}

/// Shared call log entries like `"A.set"`, `"A.step"`, `"A.get"`, `"A.der"`.
pub type CallLog = Arc<Shared<Vec<String>>>;

/// A module whose outputs and steps are closures (see the module docs).
pub struct MockModule {
    desc: ModuleDescription,
    n_in: usize,
    n_out: usize,
    t: f64,
    x0: Vec<f64>,
    x: Vec<f64>,
    u: Vec<[f64; K]>,
    output_fn: OutputFn,
    step_fn: StepFn,
    report_fn: Option<ReportFn>,
    log: Option<(CallLog, String)>,
}

impl MockModule {
    /// A module with `inputs` and `outputs` (name, unit) and no states; outputs are 0
    /// until [`Self::output`] is given.
    pub fn new(inputs: &[(&str, &str)], outputs: &[(&str, &str)]) -> Self {
        let mut variables = Vec::new();
        for (k, (n, unit)) in inputs.iter().enumerate() {
            variables.push(Variable::new(
                n,
                k as u32,
                Causality::Input,
                Variability::Continuous,
                Some(0.0),
                unit,
            ));
        }
        for (k, (n, unit)) in outputs.iter().enumerate() {
            let vr = (inputs.len() + k) as u32;
            variables.push(Variable::new(
                n,
                vr,
                Causality::Output,
                Variability::Continuous,
                None,
                unit,
            ));
        }
        let output_dependencies = (0..outputs.len())
            .map(|k| OutputDependency {
                output: ValueRef((inputs.len() + k) as u32),
                inputs: Vec::new(),
            })
            .collect();
        let capabilities = Capabilities {
            can_handle_variable_communication_step_size: true,
            ..Capabilities::default()
        };
        MockModule {
            desc: ModuleDescription {
                model_name: "Mock".into(),
                variables,
                capabilities,
                output_dependencies,
            },
            n_in: inputs.len(),
            n_out: outputs.len(),
            t: 0.0,
            x0: Vec::new(),
            x: Vec::new(),
            u: vec![[0.0; K]; inputs.len()],
            output_fn: Box::new(|_, _| {}),
            step_fn: Box::new(|_, _, _| {}),
            report_fn: None,
            log: None,
        }
    }

    /// Initial states.
    pub fn states(mut self, x0: &[f64]) -> Self {
        self.x0 = x0.to_vec();
        self.x = x0.to_vec();
        self
    }

    /// Output `o` depends directly on input `i` (indices in declaration order).
    pub fn feedthrough(mut self, o: usize, i: usize) -> Self {
        self.desc.output_dependencies[o]
            .inputs
            .push((ValueRef(i as u32), DependencyKind::Constant));
        self
    }

    /// Declares `canHandleVariableCommunicationStepSize = false`.
    pub fn fixed_step_only(mut self) -> Self {
        self.desc
            .capabilities
            .can_handle_variable_communication_step_size = false;
        self
    }

    /// Declares and accepts input derivatives up to `order`.
    pub fn input_derivative_order(mut self, order: u32) -> Self {
        self.desc.capabilities.x_max_input_derivative_order = order;
        self
    }

    /// Outputs as a function of time, states and inputs.
    pub fn output(mut self, f: impl Fn(&MockCtx<'_>, &mut [f64]) + Send + 'static) -> Self {
        self.output_fn = Box::new(f);
        self
    }

    /// State update over a step of `h` (states in/out).
    pub fn on_step(
        mut self,
        f: impl FnMut(&MockCtx<'_>, f64, &mut [f64]) + Send + 'static,
    ) -> Self {
        self.step_fn = Box::new(f);
        self
    }

    /// Replaces the report of `do_step(t, h)` (the step itself still happens unless the
    /// report is a discard).
    pub fn report(mut self, f: impl Fn(f64, f64) -> StepReport + Send + 'static) -> Self {
        self.report_fn = Some(Box::new(f));
        self
    }

    /// Logs calls as `"{name}.{call}"`.
    pub fn log_to(mut self, log: &CallLog, name: &str) -> Self {
        self.log = Some((log.clone(), name.into()));
        self
    }

    fn note(&self, call: &str) {
        if let Some((log, name)) = &self.log {
            log.borrow_mut().push(format!("{name}.{call}"));
        }
    }

    fn ctx(&self) -> MockCtx<'_> {
        MockCtx {
            t: self.t,
            x: &self.x,
            u: &self.u,
        }
    }
}

impl Module for MockModule {
    fn description(&self) -> &ModuleDescription {
        &self.desc
    }

    fn enter_initialization_mode(
        &mut self,
        _tol: Option<f64>,
        start: f64,
        _stop: Option<f64>,
    ) -> Result<(), ModuleError> {
        self.t = start;
        Ok(())
    }

    fn exit_initialization_mode(&mut self) -> Result<(), ModuleError> {
        Ok(())
    }

    fn set_float64(&mut self, vrs: &[ValueRef], values: &[f64]) -> Result<(), ModuleError> {
        self.note("set");
        for (vr, v) in vrs.iter().zip(values) {
            let i = vr.0 as usize;
            if i >= self.n_in {
                return Err(ModuleError::invalid("mock: only inputs can be set"));
            }
            self.u[i][0] = *v;
        }
        Ok(())
    }

    fn get_float64(&mut self, vrs: &[ValueRef], values: &mut [f64]) -> Result<(), ModuleError> {
        self.note("get");
        let mut y = vec![0.0; self.n_out];
        (self.output_fn)(&self.ctx(), &mut y);
        for (vr, v) in vrs.iter().zip(values.iter_mut()) {
            let k = vr.0 as usize;
            *v = if k < self.n_in {
                self.u[k][0]
            } else {
                y[k - self.n_in]
            };
        }
        Ok(())
    }

    fn do_step(
        &mut self,
        t: f64,
        h: f64,
        _no_set_state_prior: bool,
    ) -> Result<StepReport, ModuleError> {
        self.note("step");
        let report = match &self.report_fn {
            Some(f) => f(t, h),
            None => StepReport::completed(t + h),
        };
        if report.status == crate::module::Status::Discard {
            return Ok(report);
        }
        let mut x = self.x.clone();
        let ctx = MockCtx {
            t,
            x: &self.x,
            u: &self.u,
        };
        (self.step_fn)(&ctx, h, &mut x);
        self.x = x;
        self.t = t + h;
        // The input at the new time is the polynomial's end value (what a feedthrough
        // output sees, docs/methods.md §3.1); derivatives hold for one step only.
        for i in 0..self.n_in {
            let end = MockCtx {
                t,
                x: &self.x,
                u: &self.u,
            }
            .input_at(i, h);
            self.u[i] = [0.0; K];
            self.u[i][0] = end;
        }
        Ok(report)
    }

    fn reset(&mut self) -> Result<(), ModuleError> {
        self.x = self.x0.clone();
        self.u.iter_mut().for_each(|u| *u = [0.0; K]);
        Ok(())
    }

    fn input_derivatives(&mut self) -> Option<&mut dyn InputDerivatives> {
        if self.desc.capabilities.x_max_input_derivative_order > 0 {
            Some(self)
        } else {
            None
        }
    }
}

impl InputDerivatives for MockModule {
    fn set_input_derivatives(&mut self, d: Derivatives<'_, &[f64]>) -> Result<(), ModuleError> {
        self.note("der");
        for (vr, k, v) in d.iter() {
            let i = vr.0 as usize;
            if i >= self.n_in || k == 0 || k as usize >= K {
                return Err(ModuleError::invalid("mock: bad input derivative"));
            }
            self.u[i][k as usize] = v;
        }
        Ok(())
    }
}

/// A source emitting `f(t)` on output `y` (no inputs, no states).
pub fn source(f: impl Fn(f64) -> f64 + Send + 'static) -> MockModule {
    MockModule::new(&[], &[("y", "")]).output(move |c, y| y[0] = f(c.t))
}

/// `x' = u`, `y = x`, integrating the input polynomial of order ≤ `order` exactly.
pub fn integrator(x0: f64, order: u32) -> MockModule {
    MockModule::new(&[("u", "")], &[("y", "")])
        .states(&[x0])
        .input_derivative_order(order)
        .output(|c, y| y[0] = c.x[0])
        .on_step(|c, h, x| {
            // ∫_0^h Σ_k u^(k) s^k/k! ds = Σ_k u^(k) h^(k+1)/(k+1)!
            let mut term = h;
            for k in 0..K {
                x[0] += c.u[0][k] * term;
                term *= h / (k + 2) as f64;
            }
        })
}
