//! [`JsSimulation`]: one running scenario, owned by the page's worker.
//!
//! A thin newtype over [`cosim_core::simulation::Simulation`]. The worker calls
//! [`JsSimulation::advance`] in chunks and [`JsSimulation::take_columns`] after each chunk;
//! columns cross into JS as `Float64Array`s that the worker transfers to the page.
//! Column layout (as the CSV): `time`, one co-simulation column per output, one reference
//! column per output that has a reference, then, for a variable-step run
//! ([`JsSimulation::variable_steps`]), the five step columns `H`, `k`, `iterations`, `error`,
//! `defect` (NaN where a step reported nothing; the CSV leaves out the columns no step
//! reported, the transfer keeps all five so every chunk has the same layout), then for a
//! scenario with power bonds the energy columns of the CSV ([`JsSimulation::energy_names`]:
//! `dP.BOND`, `dE.BOND` per bond, `dP`, `dE`, `E`, `E:reference`) and one column more that
//! the CSV does not have, `dP:left`, the power created that the correction left,
//! `μ·δP + f_corr·v` summed over the bonds (the page's "energy is being created here"
//! signal; `dP` itself without a correction).
//! Errors of [`JsSimulation::new`] and [`JsSimulation::advance`] carry a `kind`
//! ([`crate::error::ErrorKind`]); after a failed `advance` the rows recorded up to the
//! failure, the time reached and the counters can still be read.

use crate::error::to_js_with_kind;
use crate::scenario::validate_for_page;
use cosim_core::simulation::{Simulation, StepColumns};
use js_sys::{Array, Float64Array};
use wasm_bindgen::prelude::*;

/// A scenario being run, plus how many recorded rows JS has already taken.
#[wasm_bindgen]
pub struct JsSimulation {
    sim: Simulation,
    rows_taken: usize,
}

#[wasm_bindgen]
impl JsSimulation {
    /// Parses, validates and initialises `scenario_json`; nothing is stepped yet.
    /// Errors name the JSON path of the field to fix (e.g. `modules[1].parameters.ck: ...`).
    #[wasm_bindgen(constructor)]
    pub fn new(scenario_json: &str) -> Result<JsSimulation, JsValue> {
        let validated = validate_for_page(scenario_json).map_err(to_js_with_kind)?;
        let sim = Simulation::new(&validated).map_err(to_js_with_kind)?;
        Ok(JsSimulation { sim, rows_taken: 0 })
    }

    /// Takes up to `max_steps` macro-steps; `true` once the stop time is reached.
    pub fn advance(&mut self, max_steps: u32) -> Result<bool, JsValue> {
        self.sim.advance(max_steps).map_err(to_js_with_kind)
    }

    /// Macro-steps taken so far.
    #[wasm_bindgen(getter, js_name = stepsDone)]
    pub fn steps_done(&self) -> u32 {
        self.sim.steps_done()
    }

    /// Time of the last recorded communication point, in s (where a failed run stopped);
    /// `undefined` before anything is recorded.
    #[wasm_bindgen(getter)]
    pub fn time(&self) -> Option<f64> {
        self.sim.result().time.last().copied()
    }

    /// Accepted macro-steps so far (full and shortened by events).
    #[wasm_bindgen(getter)]
    pub fn accepted(&self) -> u32 {
        self.sim.stats().accepted
    }

    /// Steps shortened by an event so far: off-grid communication points.
    #[wasm_bindgen(getter)]
    pub fn events(&self) -> u32 {
        self.sim.stats().events
    }

    /// Attempted steps rejected and rolled back so far.
    #[wasm_bindgen(getter)]
    pub fn rejected(&self) -> u32 {
        self.sim.stats().rejected
    }

    /// Module states restored in those rollbacks.
    #[wasm_bindgen(getter, js_name = modulesRestored)]
    pub fn modules_restored(&self) -> u32 {
        self.sim.stats().modules_restored
    }

    /// Whether a step controller varies the macro-step (the step columns follow the
    /// reference columns).
    #[wasm_bindgen(getter, js_name = variableSteps)]
    pub fn variable_steps(&self) -> bool {
        self.sim.variable_steps()
    }

    /// Fraction of the simulated interval done, 0 to 1 (for variable steps, where the
    /// number of macro-steps is not known in advance).
    #[wasm_bindgen(getter)]
    pub fn progress(&self) -> f64 {
        self.sim.progress()
    }

    /// Macro-steps of the whole run (for variable steps: of the nominal first step).
    #[wasm_bindgen(getter, js_name = totalSteps)]
    pub fn total_steps(&self) -> u32 {
        self.sim.total_steps()
    }

    /// Output names, `module.output`, in column order.
    #[wasm_bindgen(js_name = signalNames)]
    pub fn signal_names(&self) -> Vec<String> {
        self.sim
            .result()
            .signals
            .iter()
            .map(|s| s.name.clone())
            .collect()
    }

    /// Output units, in column order.
    #[wasm_bindgen(js_name = signalUnits)]
    pub fn signal_units(&self) -> Vec<String> {
        self.sim
            .result()
            .signals
            .iter()
            .map(|s| s.unit.clone())
            .collect()
    }

    /// FMI type of each output, in column order (`Float64` for built-in modules; integer,
    /// boolean and enumeration outputs are drawn as steps).
    #[wasm_bindgen(js_name = signalTypes)]
    pub fn signal_types(&self) -> Vec<String> {
        self.sim
            .result()
            .signals
            .iter()
            .map(|s| s.port_type.name().into())
            .collect()
    }

    /// The String and Binary outputs of binary modules, as their value changes:
    /// `[{name, binary, changes: [[time, value], ...]}]` (a Binary value in hex). The CSV
    /// has one column each after the outputs.
    #[wasm_bindgen(js_name = textOutputs)]
    pub fn text_outputs(&self) -> Result<JsValue, JsError> {
        #[derive(serde::Serialize)]
        struct Text<'a> {
            name: &'a str,
            binary: bool,
            changes: Vec<(f64, &'a str)>,
        }
        let r = self.sim.result();
        let list: Vec<Text<'_>> = r
            .texts
            .iter()
            .map(|t| Text {
                name: &t.name,
                binary: t.binary,
                changes: t
                    .changes
                    .iter()
                    .filter_map(|(row, v)| Some((*r.time.get(*row)?, v.as_str())))
                    .collect(),
            })
            .collect();
        let serializer = serde_wasm_bindgen::Serializer::json_compatible();
        serde::Serialize::serialize(&list, &serializer).map_err(crate::error::to_js)
    }

    /// Whether each output has a reference column.
    #[wasm_bindgen(js_name = hasReference)]
    pub fn has_reference(&self) -> Vec<u8> {
        self.sim
            .result()
            .signals
            .iter()
            .map(|s| u8::from(s.reference.is_some()))
            .collect()
    }

    /// Rows recorded since the previous call, as columns (layout in the module doc).
    #[wasm_bindgen(js_name = takeColumns)]
    pub fn take_columns(&mut self) -> Array {
        let end = self.sim.result().time.len();
        let start = self.rows_taken.min(end);
        self.rows_taken = end;
        self.columns_between(start, end)
    }

    /// Every row recorded so far, as columns (layout in the module doc).
    pub fn columns(&self) -> Array {
        self.columns_between(0, self.sim.result().time.len())
    }

    /// Ports with a run-wide RMS defect (docs/methods.md §15.4), as `output module.y` and
    /// `connection module.u`; empty unless the scenario has `master.defects`.
    #[wasm_bindgen(js_name = rmsDefectNames)]
    pub fn rms_defect_names(&self) -> Vec<String> {
        let Some(d) = self.sim.run_defects() else {
            return Vec::new();
        };
        let outputs = d.output_names.iter().map(|n| format!("output {n}"));
        let inputs = d.input_names.iter().map(|n| format!("connection {n}"));
        outputs.chain(inputs).collect()
    }

    /// The run-wide RMS defects so far, in the order of [`Self::rms_defect_names`].
    #[wasm_bindgen(js_name = rmsDefects)]
    pub fn rms_defects(&self) -> Vec<f64> {
        let Some(d) = self.sim.run_defects() else {
            return Vec::new();
        };
        let outputs = (0..d.output_names.len()).map(|k| d.output_rms(k));
        let inputs = (0..d.input_names.len()).map(|k| d.connection_rms(k));
        outputs.chain(inputs).collect()
    }

    /// Global NRMSE over the steps taken so far; `undefined` without a reference.
    #[wasm_bindgen(js_name = globalNrmse)]
    pub fn global_nrmse(&self) -> Option<f64> {
        self.sim.global_nrmse()
    }

    /// Seed 002's global error (eqn 36) over a chain's coupling-body states;
    /// `undefined` for other scenarios or without a reference.
    #[wasm_bindgen(js_name = couplingBodyError)]
    pub fn coupling_body_error(&self) -> Option<f64> {
        cosim_core::simulation::coupling_body_error(&self.sim)
    }

    /// Where the model-based corrector's Jacobians come from (`directional_derivatives`,
    /// `finite_differences`, `mixed` or `not_needed`); `undefined` without
    /// `master.correction`.
    #[wasm_bindgen(getter, js_name = jacobianSource)]
    pub fn jacobian_source(&self) -> Option<String> {
        self.sim.jacobian_source().map(String::from)
    }

    /// Names of the energy columns after the step columns (empty without bonds), the last
    /// one `dP:left` (page only; the others as the CSV names them).
    #[wasm_bindgen(js_name = energyNames)]
    pub fn energy_names(&self) -> Vec<String> {
        let mut names = self.sim.energy_column_names();
        if !names.is_empty() {
            names.push(String::from("dP:left"));
        }
        names
    }

    /// `cosim energy`'s summary of the run so far: `[mean dP, dE(T), E0, E(T), E_ref(T)]`
    /// (NaN where a value does not exist); empty without bonds.
    #[wasm_bindgen(js_name = energySummary)]
    pub fn energy_summary(&self) -> Vec<f64> {
        self.sim.energy_summary().map_or_else(Vec::new, |s| {
            let e_ref = s.e_ref_end.unwrap_or(f64::NAN);
            vec![s.mean_dp, s.de_end, s.e0, s.e_end, e_ref]
        })
    }

    /// The recorded outputs as CSV, exactly as the CLI writes them.
    #[wasm_bindgen(js_name = toCsv)]
    pub fn to_csv(&self) -> String {
        self.sim.to_csv()
    }
}

impl JsSimulation {
    /// Rows `start..end` of every column; each `Float64Array` is a copy in JS memory, so
    /// the worker may transfer its buffer.
    fn columns_between(&self, start: usize, end: usize) -> Array {
        let r = self.sim.result();
        let out = Array::new();
        out.push(&copy(&r.time, start, end));
        for s in &r.signals {
            out.push(&copy(&s.cosim, start, end));
        }
        for reference in r.signals.iter().filter_map(|s| s.reference.as_ref()) {
            out.push(&copy(reference, start, end));
        }
        if self.sim.variable_steps() {
            let all = StepColumns {
                step_size: true,
                order: true,
                iterations: true,
                error: true,
                defect: true,
            };
            let end = end.min(r.time.len());
            let start = start.min(end);
            let mut columns: [Vec<f64>; 5] = Default::default();
            for i in start..end {
                for (c, v) in columns.iter_mut().zip(all.values(r, i)) {
                    c.push(v);
                }
            }
            for c in &columns {
                out.push(&Float64Array::from(&c[..]));
            }
        }
        self.push_energy_columns(&out, start, end);
        out
    }

    /// The energy columns of rows `start..end` ([`Self::energy_names`]'s order).
    fn push_energy_columns(&self, out: &Array, start: usize, end: usize) {
        let width = self.sim.energy_column_names().len();
        if width == 0 {
            return;
        }
        let end = end.min(self.sim.result().time.len());
        let start = start.min(end);
        let mut columns = vec![Vec::with_capacity(end - start); width + 1];
        let mut cells = Vec::with_capacity(width);
        for i in start..end {
            cells.clear();
            self.sim.energy_values(i, &mut cells);
            cells.resize(width, f64::NAN);
            cells.push(self.sim.energy_dp_left(i).unwrap_or(f64::NAN));
            for (c, v) in columns.iter_mut().zip(&cells) {
                c.push(*v);
            }
        }
        for c in &columns {
            out.push(&Float64Array::from(&c[..]));
        }
    }
}

/// `v[start..end]` as a new `Float64Array`, clipped to `v`'s length (never panics).
fn copy(v: &[f64], start: usize, end: usize) -> Float64Array {
    let end = end.min(v.len());
    let start = start.min(end);
    Float64Array::from(&v[start..end])
}
