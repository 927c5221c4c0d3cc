//! [`EnergyMonitor`]: residual power and energy of every bond at each communication point,
//! and the energy the modules report (docs/methods.md §13.2, §13.3).

use super::Bond;
use crate::master::{Observer, SystemView};
use alloc::vec;
use alloc::vec::Vec;

/// The monitor's values at one communication point.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EnergyPoint {
    /// δP per bond in W (0 at the start).
    pub dp: Vec<f64>,
    /// δE per bond in J, integrated from the start.
    pub de: Vec<f64>,
    /// Σ δP over the bonds.
    pub dp_total: f64,
    /// Σ δE over the bonds.
    pub de_total: f64,
    /// Σ of the reported energies in J (NaN when no module reports one).
    pub energy: f64,
    /// Σ over the bonds of the power the coupling creates that the correction left: with a
    /// correction `μ·δP + f_corr·v` (the seed's `U_k/H`: the real share of δP plus the power
    /// of the correction applied over the step); without one `δP` itself (μ is not known,
    /// and μ ≤ 1: an upper bound). Not in the CSV: the page's creation signal reads it.
    pub dp_left: f64,
}

/// Records an [`EnergyPoint`] per communication point. δP is evaluated per bond before
/// anything is summed, so residuals of different bonds never cancel.
#[derive(Clone, Debug, Default)]
pub struct EnergyMonitor {
    bonds: Vec<Bond>,
    energy_outputs: Vec<usize>,
    /// `(t, f, v)` per bond at the last point.
    last: Option<(f64, Vec<(f64, f64)>)>,
    /// One entry per recorded point.
    pub points: Vec<EnergyPoint>,
}

impl EnergyMonitor {
    /// A monitor of `bonds`, summing the outputs `energy_outputs`.
    pub fn new(bonds: Vec<Bond>, energy_outputs: Vec<usize>) -> Self {
        EnergyMonitor {
            bonds,
            energy_outputs,
            last: None,
            points: Vec::new(),
        }
    }

    /// The bonds monitored.
    pub fn bonds(&self) -> &[Bond] {
        &self.bonds
    }

    /// The outputs summed into the energy.
    pub fn energy_outputs(&self) -> &[usize] {
        &self.energy_outputs
    }

    /// Whether some module reports its energy.
    pub fn has_energy(&self) -> bool {
        !self.energy_outputs.is_empty()
    }

    fn record(&mut self, view: &SystemView<'_>) {
        let y = view.outputs();
        let now: Vec<(f64, f64)> = self
            .bonds
            .iter()
            .map(|b| (y[b.effort_output], y[b.flow_output]))
            .collect();
        let energy = match self.energy_outputs.is_empty() {
            true => f64::NAN,
            false => self.energy_outputs.iter().map(|&o| y[o]).sum(),
        };
        let mut point = EnergyPoint {
            dp: vec![0.0; now.len()],
            de: self
                .points
                .last()
                .map_or_else(|| vec![0.0; now.len()], |p| p.de.clone()),
            energy,
            ..EnergyPoint::default()
        };
        // The correction applied over the step that ended here (none without a hook).
        let offsets = view.system.input_offsets();
        if let Some((t_last, last)) = &self.last {
            let h = view.t - t_last;
            for (b, ((f0, v0), (f1, v1))) in last.iter().zip(&now).enumerate() {
                // δP_{k+1} = f_k·v_{k+1} − f_{k+1}·v_k (seed eq. 9 with ũ_{k+1} = u_k).
                let dp = f0 * v1 - f1 * v0;
                point.dp[b] = dp;
                point.de[b] += h * dp;
                let bond = &self.bonds[b];
                point.dp_left += match offsets {
                    Some(o) => bond.mu * dp + o[bond.effort_input] * v1,
                    None => dp,
                };
            }
        }
        point.dp_total = point.dp.iter().sum();
        point.de_total = point.de.iter().sum();
        self.points.push(point);
        self.last = Some((view.t, now));
    }
}

impl Observer for EnergyMonitor {
    fn on_initialized(&mut self, view: &SystemView<'_>) {
        self.record(view);
    }
    fn on_macro_step(&mut self, view: &SystemView<'_>) {
        self.record(view);
    }
}
