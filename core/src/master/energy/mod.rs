//! Energy-based monitoring and correction of explicit Jacobi co-simulation (seed 001,
//! docs/methods.md §13), and the multi-rate Jacobi scheme it needs.
//!
//! - A [`Bond`] pairs an effort connection (a force, torque or pressure sent from the
//!   feedthrough side to the receiving side) with the flow connection back (velocity,
//!   angular velocity, volume flow). Its residual power on the macro grid is
//!   `δP_{k+1} = f_k·v_{k+1} − f_{k+1}·v_k` (uncorrected force, the manager's ZOH view);
//!   `δP > 0` means the coupling creates energy.
//! - [`EnergyMonitor`] (an [`super::Observer`]) records δP and δE per bond and in total,
//!   and the energy of the modules that report it (`x-reportsEnergy`).
//! - [`EnergyCorrection`] (a [`super::StepHook`]) adds `f_corr = −(ς + ν𝒰)/(v·H)`, capped,
//!   to the effort input of each bond's receiving side (eqs. 13–17).
//! - [`MultiRateJacobi`]: every module on its own step, a whole fraction of the macro-step,
//!   its inputs extrapolated at each of its own steps.
//! - [`mu`]: the μ rules (eqs. 19–21).

mod correction;
mod monitor;
pub mod mu;
mod multirate;

pub use correction::EnergyCorrection;
pub use monitor::{EnergyMonitor, EnergyPoint};
pub use multirate::MultiRateJacobi;

use alloc::string::String;
use alloc::vec::Vec;

/// One power bond, by indices into the stacked outputs and inputs.
#[derive(Clone, Debug, PartialEq)]
pub struct Bond {
    /// Name for columns (`dP.NAME`), e.g. `m2.F`.
    pub name: String,
    /// Output carrying the effort `f` (the feedthrough side's force on the receiver).
    pub effort_output: usize,
    /// Input receiving the effort (where the correction is added).
    pub effort_input: usize,
    /// Output carrying the flow `v` (the receiving side's velocity).
    pub flow_output: usize,
    /// μ of this bond (from the rules or given).
    pub mu: f64,
}

/// Limit on the magnitude of a correction: a fraction of the uncorrected effort, an
/// absolute value, or the larger of both ("10 % or 100 N": the absolute floor keeps the
/// correction alive where the effort passes through 0).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cap {
    /// Fraction of `|f|` (> 0); `None`: no relative limit.
    pub fraction: Option<f64>,
    /// Absolute limit in the effort's unit (> 0); `None`: no absolute limit.
    pub absolute: Option<f64>,
}

impl Cap {
    /// Largest correction allowed with the uncorrected effort `f`.
    pub fn limit(&self, f: f64) -> f64 {
        match (self.fraction, self.absolute) {
            (Some(p), Some(a)) => (p * libm::fabs(f)).max(a),
            (Some(p), None) => p * libm::fabs(f),
            (None, Some(a)) => a,
            (None, None) => f64::INFINITY,
        }
    }
}

/// Settings of the energy correction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CorrectionSettings {
    /// Integral gain ν in [0, 1] on the accumulated uncorrected deviation 𝒰.
    pub nu: f64,
    /// Limit on each correction.
    pub cap: Cap,
}

/// What a scenario asks of energy monitoring, correction and multi-rate stepping.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EnergyPlan {
    /// The bonds, monitored each on its own.
    pub bonds: Vec<Bond>,
    /// Outputs `E` of the modules that report their energy.
    pub energy_outputs: Vec<usize>,
    /// Steps per macro-step of every module; empty for a single-rate run.
    pub substeps: Vec<u32>,
    /// The correction, if asked for.
    pub correction: Option<CorrectionSettings>,
}

#[cfg(test)]
mod tests;
