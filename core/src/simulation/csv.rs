//! A run's CSV: `time`, every output (integers, booleans, enumerations and clock ticks
//! as whole numbers, array elements one column each, `a[1]`), every String output
//! (quoted, RFC 4180) and Binary output (hex), every reference column
//! (`name:reference`), then the per-step columns ([`StepColumns`]) and the energy columns of bonds. Written whole ([`Simulation::to_csv`]) or in pieces
//! as the run goes ([`Simulation::csv_header`], [`Simulation::csv_rows`]), so a long run's
//! CSV need not be held in memory; both give the same bytes.

use super::energy;
use super::run::{Simulation, StepColumns};
use crate::scenario::{Algorithm, ValidatedScenario};
use alloc::string::String;
use core::fmt::Write;
use core::ops::Range;

impl Simulation {
    /// The recorded outputs as CSV. Numbers use Rust's shortest round-trip form.
    pub fn to_csv(&self) -> String {
        let columns = self.step_columns();
        let mut out = self.csv_header(columns);
        out.push_str(&self.csv_rows(columns, 0..self.result().time.len()));
        out
    }

    /// The per-step columns of the CSV when they are known before the run (a fixed grid
    /// whose master reports no diagnostics: none), so rows can be written as they come.
    pub fn streaming_columns(v: &ValidatedScenario) -> Option<StepColumns> {
        let m = &v.scenario.master;
        // Energy columns are written at the end with the rest of the monitor's view.
        let plain = m.step_control.is_none()
            && m.defects.is_none()
            && m.algorithm != Algorithm::Implicit
            && v.energy.is_none();
        plain.then(StepColumns::default)
    }

    /// The CSV's header line with `columns`.
    pub fn csv_header(&self, columns: StepColumns) -> String {
        let r = self.result();
        let mut out = String::from("time");
        for s in &r.signals {
            let _ = write!(out, ",{}", s.name);
        }
        for s in &r.texts {
            let _ = write!(out, ",{}", s.name);
        }
        for s in r.signals.iter().filter(|s| s.reference.is_some()) {
            let _ = write!(out, ",{}:reference", s.name);
        }
        for name in columns.names() {
            let _ = write!(out, ",{name}");
        }
        if let Some(m) = self.energy_monitor() {
            energy::header(&mut out, m, r.signals.iter().any(|s| s.reference.is_some()));
        }
        out.push('\n');
        out
    }

    /// The CSV rows of the recorded points `rows` (clamped to what is recorded).
    pub fn csv_rows(&self, columns: StepColumns, rows: Range<usize>) -> String {
        let r = self.result();
        let rows = rows.start.min(r.time.len())..rows.end.min(r.time.len());
        let mut out = String::new();
        for i in rows {
            let _ = write!(out, "{:e}", r.time[i]);
            for s in &r.signals {
                // Typed ports carry integers exactly (up to 2^53), so `as i64` is exact.
                let _ = match s.port_type.is_discrete() {
                    true => write!(out, ",{}", s.cosim[i] as i64),
                    false => write!(out, ",{:e}", s.cosim[i]),
                };
            }
            for s in &r.texts {
                let _ = write!(out, ",{}", s.csv_cell(i));
            }
            for s in &r.signals {
                if let Some(reference) = &s.reference {
                    let _ = write!(out, ",{:e}", reference[i]);
                }
            }
            for v in columns.values(r, i) {
                // A step that reported nothing (the start) leaves the cell empty.
                match v.is_nan() {
                    true => out.push(','),
                    false => {
                        let _ = write!(out, ",{v:e}");
                    }
                }
            }
            if let Some(m) = self.energy_monitor() {
                energy::row(&mut out, m, r, i);
            }
            out.push('\n');
        }
        out
    }
}
