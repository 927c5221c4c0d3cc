//! Time-based input clocks (FMI 3.0, clock types), which the master ticks itself: `clocks`
//! activates the ones due at a communication point in an Event Mode of their own, before
//! the step that starts there.
//!
//! - **Periodic, interval declared** (`constant`, or `fixed`/`tunable` with intervalDecimal):
//!   ticks at `start + shift + k interval`.
//! - **Periodic, interval computed** (`fixed`/`tunable` without intervalDecimal): interval from
//!   `fmi3GetIntervalDecimal` and shift from `fmi3GetShiftDecimal` (the declared shift if the
//!   module does not export it), both asked in Initialization Mode; then as above. A tunable
//!   clock is asked again at the end of every Event Mode: `fmi3IntervalChanged` restarts its
//!   ticks at the event time plus the new interval (the standard counts a changed interval
//!   from the current Event Mode).
//! - **Countdown**: asked in Initialization Mode (first due time, from the start time) and at
//!   the end of every Event Mode: `fmi3IntervalChanged` makes it due at the event time plus
//!   the interval, `fmi3IntervalUnchanged` keeps the due time, `fmi3IntervalNotYetKnown` leaves
//!   it unscheduled. A tick uses the due time up.
//! - **Changing**: asked in Initialization Mode and at the end of the Event Mode in which it
//!   ticked.
//!
//! "The end of an Event Mode" is right before `fmi3EnterStepMode`. The event's time is where
//! the next step starts (the master resumes from it), so what was read is placed in time at
//! the next step. A tick due between two communication points is an error naming the clock
//! and the time: a fixed-grid master cannot activate a clock there, and moving it silently
//! would change the model.

use super::binary_module::{layout, to_i32, vr_bytes, BinaryModule};
use super::model_description::ModelDescription;
use super::runtime::{sig, Runtime};
use super::sandbox::{ExportFn, WasmType, WasmValue};
use super::variable_types::{ClockKind, VariableType};
use super::FmuError;
use crate::module::{ModuleError, ValueRef};
use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

/// `fmi3IntervalQualifier` values.
const NOT_YET_KNOWN: i32 = 0;
const UNCHANGED: i32 = 1;
const CHANGED: i32 = 2;

/// Where a time-based clock's timing comes from.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Timing {
    Declared,
    Fixed,
    Tunable,
    Countdown,
    Changing,
}

impl Timing {
    fn is_periodic(self) -> bool {
        matches!(self, Timing::Declared | Timing::Fixed | Timing::Tunable)
    }

    fn name(self) -> &'static str {
        match self {
            Timing::Declared | Timing::Fixed | Timing::Tunable => "periodic",
            Timing::Countdown => "countdown",
            Timing::Changing => "changing",
        }
    }
}

/// An interval read from the FMU, not yet placed in time.
#[derive(Clone, Copy, Debug)]
enum Reading {
    /// In Initialization Mode: from the start time.
    FromStart(f64),
    /// At the end of an Event Mode: from that event's time.
    FromEvent(f64),
}

/// A time-based input clock and what the master knows of its timing.
#[derive(Clone, Debug)]
struct Timed {
    vr: u32,
    name: String,
    timing: Timing,
    /// Periodic: seconds between ticks (`None` until the FMU gave it).
    interval: Option<f64>,
    /// Periodic: seconds from the start time to the first tick.
    shift: f64,
    declared_shift: f64,
    /// Periodic: a tick time; the clock ticks at `anchor + k interval`, k ≥ 0.
    anchor: Option<f64>,
    /// Aperiodic: when it is due next.
    due: Option<f64>,
    reading: Option<Reading>,
    /// Activated in the Event Mode now running (a changing clock is asked then).
    ticked: bool,
}

impl Timed {
    /// Periodic: whether it ticks at `t` (to a billionth of its interval) and when it
    /// ticks next after `t`.
    fn ticks(anchor: f64, interval: f64, t: f64) -> (bool, f64) {
        let tol = 1e-9 * interval;
        if t < anchor - tol {
            return (false, anchor);
        }
        let at = anchor + libm::round((t - anchor) / interval) * interval;
        if libm::fabs(t - at) <= tol {
            return (true, at + interval);
        }
        let k = libm::floor((t - anchor) / interval) + 1.0;
        (false, anchor + k * interval)
    }

    /// An interval the FMU gave, checked: positive for a periodic clock, not negative for
    /// an aperiodic one (FMI 3.0), finite.
    fn checked(&self, interval: f64, when: &str) -> Result<f64, String> {
        let periodic = self.timing.is_periodic();
        let ok = interval.is_finite() && (interval > 0.0 || (!periodic && interval == 0.0));
        match ok {
            true => Ok(interval),
            false => Err(format!(
                "{} input clock `{}`: fmi3GetIntervalDecimal gave the interval {interval} {when}; \
                 FMI 3.0 requires a finite interval {}",
                self.timing.name(),
                self.name,
                if periodic { "> 0" } else { ">= 0" }
            )),
        }
    }

    fn not_yet_known(&self, when: &str) -> String {
        format!(
            "{} input clock `{}`: fmi3GetIntervalDecimal returned fmi3IntervalNotYetKnown {when}, \
             which FMI 3.0 allows only for countdown clocks",
            self.timing.name(),
            self.name
        )
    }
}

/// The time-based input clocks of a module and the exports that time them.
#[derive(Default)]
pub(super) struct Schedule {
    timed: Vec<Timed>,
    interval_fn: Option<ExportFn>,
    shift_fn: Option<ExportFn>,
}

impl Schedule {
    /// The time-based input clocks of `md`. One whose timing only the FMU knows needs the
    /// export `fmi3GetIntervalDecimal`; without it the module is refused, naming the clock.
    pub(super) fn new(md: &ModelDescription, rt: &Runtime) -> Result<Self, FmuError> {
        const I: WasmType = WasmType::I32;
        let mut out = Schedule::default();
        for v in &md.all_variables {
            if v.ty != VariableType::Clock || v.causality != "input" {
                continue;
            }
            let Ok(kind) = v.input_clock_kind() else {
                continue;
            };
            let (timing, interval, shift) = match kind {
                ClockKind::Triggered => continue,
                ClockKind::Periodic { interval, shift } => {
                    (Timing::Declared, Some(interval), shift)
                }
                ClockKind::Computed { tunable, shift } => match tunable {
                    true => (Timing::Tunable, None, shift),
                    false => (Timing::Fixed, None, shift),
                },
                ClockKind::Aperiodic { countdown } => match countdown {
                    true => (Timing::Countdown, None, 0.0),
                    false => (Timing::Changing, None, 0.0),
                },
            };
            if timing != Timing::Declared && out.interval_fn.is_none() {
                let variability = v.clock.as_ref().map_or("", |c| &c.interval_variability);
                let why =
                    format!(
                    "input clock `{}` (intervalVariability=\"{variability}\"{}): the master asks \
                     the FMU when it ticks",
                    v.name,
                    if timing.is_periodic() { ", no intervalDecimal" } else { "" }
                );
                out.interval_fn =
                    rt.func("fmi3GetIntervalDecimal", Some(&why), &sig(&[I; 5], &[I]))?;
            }
            out.timed.push(Timed {
                vr: v.value_ref,
                name: v.name.clone(),
                timing,
                interval,
                shift,
                declared_shift: shift,
                anchor: None,
                due: None,
                reading: None,
                ticked: false,
            });
        }
        if out
            .timed
            .iter()
            .any(|c| matches!(c.timing, Timing::Fixed | Timing::Tunable))
        {
            out.shift_fn = rt.func("fmi3GetShiftDecimal", None, &sig(&[I; 4], &[I]))?;
        }
        Ok(out)
    }

    pub(super) fn is_empty(&self) -> bool {
        self.timed.is_empty()
    }

    /// Forgets every timing the FMU gave and every tick (`fmi3Reset`).
    pub(super) fn clear(&mut self) {
        for c in &mut self.timed {
            if c.timing != Timing::Declared {
                c.interval = None;
            }
            c.shift = c.declared_shift;
            (c.anchor, c.due, c.reading, c.ticked) = (None, None, None, false);
        }
    }

    /// The clocks to activate at communication point `t`, before the step of `h` s (the
    /// clocks' start time is `start`). The periodic clocks are considered in the first pass
    /// at `t` only; later passes (after an Event Mode at `t`) find the aperiodic clocks it
    /// made due at once. A tick inside the step is an error naming the clock.
    pub(super) fn due(
        &mut self,
        start: f64,
        t: f64,
        h: f64,
        first: bool,
    ) -> Result<Vec<u32>, String> {
        let mut out = Vec::new();
        for c in &mut self.timed {
            match c.reading.take() {
                Some(Reading::FromStart(x)) => c.due = Some(start + x),
                Some(Reading::FromEvent(x)) if c.timing == Timing::Tunable => {
                    (c.interval, c.anchor) = (Some(x), Some(t + x));
                }
                Some(Reading::FromEvent(x)) => c.due = Some(t + x),
                None => {}
            }
            if c.timing.is_periodic() {
                let interval = c.interval.ok_or_else(|| {
                    format!(
                        "periodic input clock `{}`: its interval is not known (fmi3GetIntervalDecimal \
                         is asked in Initialization Mode)",
                        c.name
                    )
                })?;
                let anchor = *c.anchor.get_or_insert(start + c.shift);
                let (now, next) = Timed::ticks(anchor, interval, t);
                if now && first {
                    out.push(c.vr);
                    c.ticked = true;
                }
                if next < t + h - 1e-9 * interval {
                    return Err(format!(
                        "periodic input clock `{}` (interval {interval} s, shift {} s) ticks at t = \
                         {next}, inside the step of {h} s from t = {t}: the master ticks periodic \
                         clocks at communication points, so the macro step must divide the clock's \
                         interval and shift",
                        c.name, c.shift,
                    ));
                }
                continue;
            }
            let Some(due) = c.due else { continue };
            let tol = 1e-9 * h;
            if libm::fabs(due - t) <= tol {
                out.push(c.vr);
                (c.due, c.ticked) = (None, true);
            } else if due < t + h - tol {
                let when = match due < t {
                    true => "before",
                    false => "inside",
                };
                return Err(format!(
                    "{} input clock `{}` is due at t = {due}, {when} the step of {h} s from t = {t}: \
                     the master activates clocks at communication points, so the macro step must \
                     divide the times the FMU schedules the clock at (fmi3GetIntervalDecimal)",
                    c.timing.name(),
                    c.name,
                ));
            }
        }
        Ok(out)
    }

    /// Takes what `fmi3GetIntervalDecimal` (and `fmi3GetShiftDecimal`) gave in
    /// Initialization Mode for clock `k`.
    fn take_initial(
        &mut self,
        k: usize,
        interval: f64,
        qualifier: i32,
        shift: Option<f64>,
    ) -> Result<(), String> {
        const WHEN: &str = "in Initialization Mode";
        let c = &mut self.timed[k];
        match qualifier {
            NOT_YET_KNOWN if c.timing == Timing::Countdown => c.due = None,
            NOT_YET_KNOWN => return Err(c.not_yet_known(WHEN)),
            UNCHANGED | CHANGED if c.timing.is_periodic() => {
                c.interval = Some(c.checked(interval, WHEN)?);
                let shift = shift.unwrap_or(c.declared_shift);
                if !(shift.is_finite() && shift >= 0.0) {
                    return Err(format!(
                        "periodic input clock `{}`: fmi3GetShiftDecimal gave the shift {shift}; \
                         FMI 3.0 requires a finite shift >= 0",
                        c.name
                    ));
                }
                c.shift = shift;
            }
            UNCHANGED | CHANGED => c.reading = Some(Reading::FromStart(c.checked(interval, WHEN)?)),
            _ => return Err(bad_qualifier(c, qualifier)),
        }
        Ok(())
    }

    /// Takes what `fmi3GetIntervalDecimal` gave at the end of an Event Mode for clock `k`.
    fn take_event(&mut self, k: usize, interval: f64, qualifier: i32) -> Result<(), String> {
        const WHEN: &str = "in Event Mode";
        let c = &mut self.timed[k];
        match qualifier {
            CHANGED => c.reading = Some(Reading::FromEvent(c.checked(interval, WHEN)?)),
            UNCHANGED => {}
            NOT_YET_KNOWN if c.timing == Timing::Countdown => (c.due, c.reading) = (None, None),
            NOT_YET_KNOWN => return Err(c.not_yet_known(WHEN)),
            _ => return Err(bad_qualifier(c, qualifier)),
        }
        Ok(())
    }
}

fn bad_qualifier(c: &Timed, qualifier: i32) -> String {
    format!(
        "{} input clock `{}`: fmi3GetIntervalDecimal returned the qualifier {qualifier}, which is \
         not an fmi3IntervalQualifier (0, 1 or 2)",
        c.timing.name(),
        c.name
    )
}

impl BinaryModule {
    /// `fmi3GetIntervalDecimal` of clocks `vrs`: (interval, qualifier) of each.
    fn get_intervals(&mut self, vrs: &[u32]) -> Result<Vec<(f64, i32)>, ModuleError> {
        const CALL: &str = "fmi3GetIntervalDecimal";
        let f = self.clocks.schedule.interval_fn;
        let f =
            f.ok_or_else(|| ModuleError::invalid("the module has no fmi3GetIntervalDecimal"))?;
        let inst = self.instance()?;
        let n = vrs.len();
        let ([pv, pi, pq], len) = layout([4 * n, 8 * n, 4 * n]);
        let base = self.rt.scratch(len)?;
        let refs: Vec<ValueRef> = vrs.iter().map(|&v| ValueRef(v)).collect();
        self.rt.write(base + pv, &vr_bytes(&refs))?;
        // A qualifier the FMU does not write stays -1, which is refused.
        self.rt.write(base + pq, &vec![0xff; 4 * n])?;
        let at = |p: u32| (base + p) as i32;
        let args = [inst, at(pv), to_i32(n)?, at(pi), at(pq)].map(WasmValue::I32);
        let code = self.rt.call_i32(CALL, f, &args)?;
        self.check(CALL, code)?;
        let mut intervals = vec![0.0; n];
        self.read_f64s(base + pi, &mut intervals)?;
        let mut q = vec![0u8; 4 * n];
        self.rt.read(base + pq, &mut q)?;
        let qualifiers = q
            .chunks_exact(4)
            .map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]));
        Ok(intervals.into_iter().zip(qualifiers).collect())
    }

    /// `fmi3GetShiftDecimal` of clocks `vrs`.
    fn get_shifts(&mut self, f: ExportFn, vrs: &[u32]) -> Result<Vec<f64>, ModuleError> {
        const CALL: &str = "fmi3GetShiftDecimal";
        let inst = self.instance()?;
        let n = vrs.len();
        let ([pv, ps], len) = layout([4 * n, 8 * n]);
        let base = self.rt.scratch(len)?;
        let refs: Vec<ValueRef> = vrs.iter().map(|&v| ValueRef(v)).collect();
        self.rt.write(base + pv, &vr_bytes(&refs))?;
        let at = |p: u32| (base + p) as i32;
        let args = [inst, at(pv), to_i32(n)?, at(ps)].map(WasmValue::I32);
        let code = self.rt.call_i32(CALL, f, &args)?;
        self.check(CALL, code)?;
        let mut shifts = vec![0.0; n];
        self.read_f64s(base + ps, &mut shifts)?;
        Ok(shifts)
    }

    /// In Initialization Mode (before `fmi3ExitInitializationMode`): the interval of every
    /// clock whose timing the FMU gives, and the shift of the periodic ones.
    pub(super) fn read_initial_intervals(&mut self) -> Result<(), ModuleError> {
        let timed = &self.clocks.schedule.timed;
        let asked: Vec<usize> = (0..timed.len())
            .filter(|&k| timed[k].timing != Timing::Declared)
            .collect();
        if asked.is_empty() {
            return Ok(());
        }
        let vrs: Vec<u32> = asked.iter().map(|&k| timed[k].vr).collect();
        let periodic: Vec<usize> = asked
            .iter()
            .copied()
            .filter(|&k| timed[k].timing.is_periodic())
            .collect();
        let periodic_vrs: Vec<u32> = periodic.iter().map(|&k| timed[k].vr).collect();
        let got = self.get_intervals(&vrs)?;
        let shifts = match self.clocks.schedule.shift_fn {
            Some(f) if !periodic_vrs.is_empty() => self.get_shifts(f, &periodic_vrs)?,
            _ => Vec::new(),
        };
        for (&k, (interval, qualifier)) in asked.iter().zip(got) {
            let shift = periodic
                .iter()
                .position(|&p| p == k)
                .and_then(|i| shifts.get(i));
            self.clocks
                .schedule
                .take_initial(k, interval, qualifier, shift.copied())
                .map_err(ModuleError::invalid)?;
        }
        Ok(())
    }

    /// At the end of an Event Mode (before `fmi3EnterStepMode`): the interval of every
    /// tunable and countdown clock, and of every changing clock that ticked in it.
    pub(super) fn read_event_intervals(&mut self) -> Result<(), ModuleError> {
        let timed = &self.clocks.schedule.timed;
        let asked: Vec<usize> = (0..timed.len())
            .filter(|&k| match timed[k].timing {
                Timing::Tunable | Timing::Countdown => true,
                Timing::Changing => timed[k].ticked,
                Timing::Declared | Timing::Fixed => false,
            })
            .collect();
        if asked.is_empty() {
            return Ok(());
        }
        let vrs: Vec<u32> = asked.iter().map(|&k| timed[k].vr).collect();
        let got = self.get_intervals(&vrs)?;
        for c in &mut self.clocks.schedule.timed {
            c.ticked = false;
        }
        for (&k, (interval, qualifier)) in asked.iter().zip(got) {
            self.clocks
                .schedule
                .take_event(k, interval, qualifier)
                .map_err(ModuleError::invalid)?;
        }
        Ok(())
    }
}
