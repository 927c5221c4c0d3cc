//! Clocks of a binary module in co-simulation with Event Mode (FMI 3.0, clocks and
//! co-simulation with `eventModeUsed`). An input or output Clock is a port of type
//! [`PortType::Clock`](crate::module::PortType): 1 at the communication point where it
//! ticked, 0 otherwise.
//!
//! - **Output clocks**: after `fmi3DoStep` reported `eventHandlingNeeded` the master calls
//!   `fmi3EnterEventMode`; right then every output clock is read with `fmi3GetClock`, and
//!   for each one that is active its clocked variables (`clocks="vr"`) are read with
//!   `fmi3Get{Type}`, before `fmi3UpdateDiscreteStates` deactivates the clocks. The port
//!   shows 1 until the next `fmi3DoStep`; a clocked variable shows the value read at its
//!   clock's last tick (before the first tick, what the FMU returns).
//! - **Input clocks**: setting the port to 1 (a connected output clock ticked) activates
//!   it before the next `fmi3DoStep`: `fmi3EnterEventMode`, `fmi3SetClock`,
//!   `fmi3UpdateDiscreteStates` until no update is needed, `fmi3EnterStepMode`.
//! - **Time-based input clocks** (periodic, countdown, changing: `clock_schedule`) are not
//!   ports: the master activates them itself, the same way, before the step that starts at
//!   each of their ticks. A tick that would fall inside a step is an error naming the clock
//!   and the time. A countdown clock the FMU makes due at once (interval 0) is activated
//!   in a further Event Mode at the same communication point.
//!
//! A module with input or output clocks must have Event Mode and export `fmi3GetClock`
//! and `fmi3SetClock`; otherwise it is refused at load, naming the clock.

use super::binary_module::{to_i32, vr_bytes, BinaryModule};
use super::clock_schedule::Schedule;
use super::model_description::ModelDescription;
use super::runtime::Runtime;
use super::sandbox::WasmValue;
use super::variable_types::VariableType;
use super::FmuError;
use crate::module::{EventMode, ModuleError, ValueRef};
use alloc::collections::{BTreeMap, BTreeSet};
use alloc::format;
use alloc::string::ToString;
use alloc::vec;
use alloc::vec::Vec;

/// Event iterations allowed when an input clock is activated.
const MAX_CLOCK_ITERATIONS: usize = 100;

/// What the module knows about its clocks between calls.
#[derive(Default)]
pub(super) struct Clocks {
    /// FMI value references of the output clock ports.
    outputs: Vec<u32>,
    /// Input clock ports by port value reference: their FMI value reference.
    inputs: BTreeMap<ValueRef, u32>,
    /// Output clock ports by port value reference: their FMI value reference.
    output_ports: BTreeMap<ValueRef, u32>,
    /// Clocked output variables: (clock, the ports of the variable).
    clocked: Vec<(u32, Vec<ValueRef>)>,
    /// Output clocks active at the last event (until the next `fmi3DoStep`).
    ticked: BTreeSet<u32>,
    /// Input clocks to activate before the next `fmi3DoStep`.
    pending: BTreeSet<u32>,
    /// Value of each clocked port read at its clock's last tick.
    held: BTreeMap<ValueRef, f64>,
    /// Time-based input clocks, ticked by the master.
    pub(super) schedule: Schedule,
    /// The time of the first step since instantiation or reset (the clocks' start time).
    start: Option<f64>,
}

impl Clocks {
    /// The clocks of `md`, with the exports of `rt`; `exported`: whether the module exports
    /// `fmi3GetClock` and `fmi3SetClock`. Input and output clocks without Event Mode or
    /// without those exports are refused, naming the first clock; time-based ones without
    /// `fmi3GetIntervalDecimal` where it is needed too.
    pub(super) fn new(
        md: &ModelDescription,
        rt: &Runtime,
        exported: bool,
    ) -> Result<Self, FmuError> {
        let mut out = Clocks::default();
        let declared = md.all_variables.iter().find(|v| {
            v.ty == VariableType::Clock && matches!(v.causality.as_str(), "input" | "output")
        });
        if let Some(v) = declared {
            let clock = format!("{} clock `{}`", v.causality, v.name);
            if !md.module.capabilities.has_event_mode {
                return Err(FmuError::ModelDescription(format!(
                    "{clock}: clocks tick only in Event Mode, and <CoSimulation> does not declare \
                     hasEventMode=\"true\""
                )));
            }
            if !exported {
                return Err(FmuError::MissingExport {
                    name: "fmi3GetClock` and `fmi3SetClock".to_string(),
                    needed_by: clock,
                });
            }
        }
        let is_port = |vr: u32| md.ports.get(md.ports.ports_of(vr)[0]).is_some();
        out.schedule = Schedule::new(md, rt)?;
        for v in &md.all_variables {
            if v.is_clock_port() && is_port(v.value_ref) {
                let port = md.ports.ports_of(v.value_ref)[0];
                match v.causality.as_str() {
                    "output" => {
                        out.outputs.push(v.value_ref);
                        out.output_ports.insert(port, v.value_ref);
                    }
                    _ => {
                        out.inputs.insert(port, v.value_ref);
                    }
                }
            }
        }
        for v in &md.all_variables {
            let ports = md.ports.ports_of(v.value_ref);
            let known = md.module.variables.iter().any(|p| p.value_ref == ports[0]);
            for &c in &v.clocks {
                if v.causality == "output" && known && out.outputs.contains(&c) {
                    out.clocked.push((c, ports.clone()));
                }
            }
        }
        Ok(out)
    }

    /// True if the module has no clocks (its calls skip this file).
    pub(super) fn is_empty(&self) -> bool {
        self.outputs.is_empty() && self.inputs.is_empty() && self.schedule.is_empty()
    }

    /// Forgets ticks, activations, held values and the start time (`fmi3Reset`).
    pub(super) fn clear(&mut self) {
        self.ticked.clear();
        self.pending.clear();
        self.held.clear();
        self.start = None;
        self.schedule.clear();
    }

    /// The value of port `vr` if the clocks decide it.
    fn value(&self, vr: ValueRef) -> Option<f64> {
        if let Some(c) = self.output_ports.get(&vr) {
            return Some(f64::from(u8::from(self.ticked.contains(c))));
        }
        if let Some(c) = self.inputs.get(&vr) {
            return Some(f64::from(u8::from(self.pending.contains(c))));
        }
        self.held.get(&vr).copied()
    }
}

impl BinaryModule {
    /// `get_float64` of any ports: clock ports and held clocked values from what the
    /// last event read, the rest from the module.
    pub(super) fn get_values(
        &mut self,
        vrs: &[ValueRef],
        values: &mut [f64],
    ) -> Result<(), ModuleError> {
        if self.clocks.is_empty() {
            return self.get_ports(vrs, values);
        }
        let mut rest = Vec::new();
        for (k, &vr) in vrs.iter().enumerate() {
            match self.clocks.value(vr) {
                Some(x) => values[k] = x,
                None => rest.push(k),
            }
        }
        let asked: Vec<ValueRef> = rest.iter().map(|&k| vrs[k]).collect();
        let mut got = vec![0.0; asked.len()];
        self.get_ports(&asked, &mut got)?;
        for (k, x) in rest.into_iter().zip(got) {
            values[k] = x;
        }
        Ok(())
    }

    /// `set_float64` of any ports: 1 on an input clock port activates the clock before
    /// the next step, 0 withdraws it; the rest go to the module.
    pub(super) fn set_values(
        &mut self,
        vrs: &[ValueRef],
        values: &[f64],
    ) -> Result<(), ModuleError> {
        if self.clocks.is_empty() {
            return self.set_ports(vrs, values);
        }
        let (mut asked, mut given) = (Vec::new(), Vec::new());
        for (&vr, &x) in vrs.iter().zip(values) {
            let Some(&clock) = self.clocks.inputs.get(&vr) else {
                asked.push(vr);
                given.push(x);
                continue;
            };
            if x == 1.0 {
                self.clocks.pending.insert(clock);
            } else if x == 0.0 {
                self.clocks.pending.remove(&clock);
            } else {
                return Err(ModuleError::invalid(format!(
                    "input clock `{}`: {x} is not a Clock value (0 or 1)",
                    self.clock_name(clock)
                )));
            }
        }
        self.set_ports(&asked, &given)
    }

    pub(super) fn clock_name(&self, vr: u32) -> &str {
        let all = &self.model_description().all_variables;
        let v = all.iter().find(|v| v.value_ref == vr);
        v.map_or("?", |v| v.name.as_str())
    }

    /// `fmi3GetClock` / `fmi3SetClock` of `clocks`; for a get, which were active.
    fn clock_call(&mut self, clocks: &[u32], set: bool) -> Result<Vec<bool>, ModuleError> {
        let inst = self.instance()?;
        let (get_fn, set_fn) = self
            .typed_fns
            .clock
            .ok_or_else(|| ModuleError::invalid("the module has no fmi3GetClock/fmi3SetClock"))?;
        let (call, f) = match set {
            true => ("fmi3SetClock", set_fn),
            false => ("fmi3GetClock", get_fn),
        };
        let n = clocks.len();
        let base = self.rt.scratch(4 * n + n + 8)?;
        let vrs: Vec<ValueRef> = clocks.iter().map(|&c| ValueRef(c)).collect();
        self.rt.write(base, &vr_bytes(&vrs))?;
        let at = base + 4 * n as u32;
        self.rt.write(at, &vec![u8::from(set); n])?;
        let args = [inst, base as i32, to_i32(n)?, at as i32].map(WasmValue::I32);
        let code = self.rt.call_i32(call, f, &args)?;
        self.check(call, code)?;
        let mut active = vec![0u8; n];
        self.rt.read(at, &mut active)?;
        Ok(active.into_iter().map(|b| b != 0).collect())
    }

    /// In Event Mode, just entered: which output clocks ticked, and the values of the
    /// variables they clock.
    pub(super) fn read_output_clocks(&mut self) -> Result<(), ModuleError> {
        if self.clocks.outputs.is_empty() {
            return Ok(());
        }
        let outputs = self.clocks.outputs.clone();
        let active = self.clock_call(&outputs, false)?;
        for (&c, on) in outputs.iter().zip(active) {
            if on {
                self.clocks.ticked.insert(c);
            }
        }
        for k in 0..self.clocks.clocked.len() {
            let (clock, ports) = self.clocks.clocked[k].clone();
            if !self.clocks.ticked.contains(&clock) {
                continue;
            }
            let mut got = vec![0.0; ports.len()];
            self.get_ports(&ports, &mut got)?;
            self.clocks.held.extend(ports.into_iter().zip(got));
        }
        Ok(())
    }

    /// Before the step from `t` to `t + h`: clears the last ticks and activates the
    /// pending input clocks, and the time-based ones due at `t`, in an Event Mode of
    /// their own; again while that Event Mode makes a countdown clock due at `t`.
    pub(super) fn before_step(&mut self, t: f64, h: f64) -> Result<(), ModuleError> {
        if self.clocks.is_empty() {
            return Ok(());
        }
        self.clocks.ticked.clear();
        let start = *self.clocks.start.get_or_insert(t);
        for pass in 0..MAX_CLOCK_ITERATIONS {
            let due = self.clocks.schedule.due(start, t, h, pass == 0);
            self.clocks
                .pending
                .extend(due.map_err(ModuleError::invalid)?);
            if self.clocks.pending.is_empty() {
                return Ok(());
            }
            self.activate_pending()?;
        }
        Err(ModuleError::invalid(format!(
            "input clocks were activated {MAX_CLOCK_ITERATIONS} times at t = {t}: a countdown \
             clock the FMU keeps making due at once"
        )))
    }

    /// `fmi3EnterEventMode`, `fmi3SetClock` of the pending input clocks,
    /// `fmi3UpdateDiscreteStates` until no update is needed, `fmi3EnterStepMode`.
    fn activate_pending(&mut self) -> Result<(), ModuleError> {
        let pending: Vec<u32> = core::mem::take(&mut self.clocks.pending)
            .into_iter()
            .collect();
        self.enter_event_mode()?;
        self.clock_call(&pending, true)?;
        for _ in 0..MAX_CLOCK_ITERATIONS {
            let update = self.update_discrete_states()?;
            if update.terminate_simulation {
                return Err(ModuleError::invalid(format!(
                    "the module asked to terminate when input clock `{}` was activated",
                    self.clock_name(pending[0])
                )));
            }
            if !update.discrete_states_need_update {
                return self.enter_step_mode();
            }
        }
        Err(ModuleError::invalid(format!(
            "input clock `{}`: fmi3UpdateDiscreteStates still needed updates after \
             {MAX_CLOCK_ITERATIONS} iterations",
            self.clock_name(pending[0])
        )))
    }
}
