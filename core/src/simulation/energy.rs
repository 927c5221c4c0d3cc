//! Energy monitoring, correction and multi-rate stepping in a [`super::Simulation`]
//! (docs/methods.md §13): the algorithm and hook a scenario's [`EnergyPlan`] asks for, the
//! observer that records δP, δE and E next to the outputs, their CSV columns and the
//! summary `cosim energy` prints.

use super::{Signal, SimulationResult};
use crate::master::energy::{EnergyCorrection, EnergyMonitor, EnergyPlan, MultiRateJacobi};
use crate::master::{MasterAlgorithm, Observer, Run, SystemView};
use alloc::boxed::Box;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write;

/// The algorithm of a plan: multi-rate Jacobi when some module has its own step,
/// otherwise `algorithm` unchanged.
pub(super) fn algorithm_for(
    plan: Option<&EnergyPlan>,
    order: u32,
    algorithm: Box<dyn MasterAlgorithm>,
) -> Box<dyn MasterAlgorithm> {
    match plan {
        Some(p) if !p.substeps.is_empty() => {
            Box::new(MultiRateJacobi::new(p.substeps.clone(), order))
        }
        _ => algorithm,
    }
}

/// Installs the correction hook of a plan and returns the monitor of its bonds.
pub(super) fn attach(plan: Option<&EnergyPlan>, run: &mut Run) -> Option<EnergyMonitor> {
    let p = plan?;
    if let Some(settings) = p.correction {
        run.set_hook(Box::new(EnergyCorrection::new(p.bonds.clone(), settings)));
    }
    Some(EnergyMonitor::new(
        p.bonds.clone(),
        p.energy_outputs.clone(),
    ))
}

/// The recorder and the monitor notified together.
pub(super) struct Both<'a>(
    pub &'a mut SimulationResult,
    pub Option<&'a mut EnergyMonitor>,
);

impl Observer for Both<'_> {
    fn on_initialized(&mut self, view: &SystemView<'_>) {
        self.0.on_initialized(view);
        if let Some(m) = self.1.as_mut() {
            m.on_initialized(view);
        }
    }
    fn on_macro_step(&mut self, view: &SystemView<'_>) {
        self.0.on_macro_step(view);
        if let Some(m) = self.1.as_mut() {
            m.on_macro_step(view);
        }
    }
}

/// Sum of the reference energies at point `i` (NaN when a signal has no reference).
fn reference_energy(signals: &[Signal], energy: &[usize], i: usize) -> f64 {
    energy
        .iter()
        .map(|&o| {
            signals[o]
                .reference
                .as_ref()
                .and_then(|r| r.get(i).copied())
                .unwrap_or(f64::NAN)
        })
        .sum()
}

/// Energy columns: `dP.BOND`, `dE.BOND` per bond, `dP`, `dE`, then `E` and
/// `E:reference` when modules report their energy (the latter with a reference).
pub(super) fn names(m: &EnergyMonitor, reference: bool) -> Vec<String> {
    let mut out = Vec::new();
    for b in m.bonds() {
        out.push(format!("dP.{}", b.name));
        out.push(format!("dE.{}", b.name));
    }
    out.push(String::from("dP"));
    out.push(String::from("dE"));
    if m.has_energy() {
        out.push(String::from("E"));
        if reference {
            out.push(String::from("E:reference"));
        }
    }
    out
}

/// The values of point `i` in the order of [`names`], appended to `out`.
pub(super) fn values(out: &mut Vec<f64>, m: &EnergyMonitor, r: &SimulationResult, i: usize) {
    let p = &m.points[i];
    for (dp, de) in p.dp.iter().zip(&p.de) {
        out.push(*dp);
        out.push(*de);
    }
    out.push(p.dp_total);
    out.push(p.de_total);
    if m.has_energy() {
        out.push(p.energy);
        if has_reference(r) {
            out.push(reference_energy(&r.signals, m.energy_outputs(), i));
        }
    }
}

/// The CSV header cells of the energy columns.
pub(super) fn header(out: &mut String, m: &EnergyMonitor, reference: bool) {
    for name in names(m, reference) {
        let _ = write!(out, ",{name}");
    }
}

/// The energy cells of point `i`.
pub(super) fn row(out: &mut String, m: &EnergyMonitor, r: &SimulationResult, i: usize) {
    let mut cells = Vec::new();
    values(&mut cells, m, r, i);
    for v in cells {
        let _ = write!(out, ",{v:e}");
    }
}

fn has_reference(r: &SimulationResult) -> bool {
    r.signals.iter().any(|s| s.reference.is_some())
}

/// What `cosim energy` reports about a run.
#[derive(Clone, Debug, PartialEq)]
pub struct EnergySummary {
    /// Per bond: name, mean δP over the steps (W), δE at the end (J).
    pub bonds: Vec<(String, f64, f64)>,
    /// Mean of the total δP over the steps, in W.
    pub mean_dp: f64,
    /// Total δE at the end, in J.
    pub de_end: f64,
    /// Reported energy at the start and the end, in J (NaN without `x-reportsEnergy`).
    pub e0: f64,
    /// Energy at the end.
    pub e_end: f64,
    /// Reference energy at the end, when a reference exists.
    pub e_ref_end: Option<f64>,
}

/// The summary of the points recorded so far; `None` without bonds or points.
pub(super) fn summarize(m: &EnergyMonitor, r: &SimulationResult) -> Option<EnergySummary> {
    let (first, last) = (m.points.first()?, m.points.last()?);
    let steps = (m.points.len() - 1).max(1) as f64;
    let mean = |f: &dyn Fn(&super::super::master::energy::EnergyPoint) -> f64| {
        m.points[1..].iter().map(f).sum::<f64>() / steps
    };
    let bonds = m
        .bonds()
        .iter()
        .enumerate()
        .map(|(b, bond)| (bond.name.clone(), mean(&|p| p.dp[b]), last.de[b]))
        .collect();
    let n = m.points.len() - 1;
    let e_ref_end = (m.has_energy() && has_reference(r))
        .then(|| reference_energy(&r.signals, m.energy_outputs(), n));
    Some(EnergySummary {
        bonds,
        mean_dp: mean(&|p| p.dp_total),
        de_end: last.de_total,
        e0: first.energy,
        e_end: last.energy,
        e_ref_end,
    })
}

impl super::Simulation {
    /// Names of the energy columns the CSV ends with (empty without bonds): `dP.BOND`,
    /// `dE.BOND` per bond, `dP`, `dE`, then `E` and `E:reference` where they exist.
    pub fn energy_column_names(&self) -> Vec<String> {
        let r = self.result();
        self.energy_monitor()
            .map_or_else(Vec::new, |m| names(m, has_reference(r)))
    }

    /// The energy cells of recorded point `i` (as the CSV writes them), appended to `out`;
    /// nothing without bonds or past the points recorded.
    pub fn energy_values(&self, i: usize, out: &mut Vec<f64>) {
        if let Some(m) = self.energy_monitor().filter(|m| i < m.points.len()) {
            values(out, m, self.result(), i);
        }
    }

    /// The power created that the correction left at recorded point `i`, summed over the
    /// bonds ([`crate::master::energy::EnergyPoint::dp_left`]); `None` without bonds.
    pub fn energy_dp_left(&self, i: usize) -> Option<f64> {
        Some(self.energy_monitor()?.points.get(i)?.dp_left)
    }
}
