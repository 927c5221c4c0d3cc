//! [`EnergyCorrection`]: seed 001's energy correction (eqs. 13–17, docs/methods.md §13.5)
//! as a step hook. At each communication point `t_{k+1}`, per bond:
//!
//! ```text
//! δP_{k+1} = f_k·v_{k+1} − f_{k+1}·v_k        (uncorrected f: the correction is not a residual)
//! ς_{k+1}  = μ·H·δP_{k+1}                     (energy error of the step just taken)
//! U_k      = ς_k + f_corr,k·v_{k+1}·H         (what the last correction failed to remove)
//! 𝒰       += U_k
//! f_corr   = clamp(−(ς_{k+1} + ν𝒰)/(v_{k+1}·H), ±cap(f_{k+1}))
//! ```
//!
//! `f_corr` is added to the effort input of the receiving side for the next macro-step.
//! The clamp limits it; it never switches it off when `|v|` is small.

use super::{Bond, CorrectionSettings};
use crate::error::MasterError;
use crate::master::{StepHook, SystemView};
use alloc::vec;
use alloc::vec::Vec;

/// Per-bond state of the correction.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct BondState {
    f: f64,
    v: f64,
    /// ς of the last step and the correction applied after it.
    sigma: f64,
    applied: f64,
    /// Accumulated uncorrected deviation 𝒰 in J.
    backlog: f64,
}

/// The energy correction of every bond.
#[derive(Clone, Debug)]
pub struct EnergyCorrection {
    bonds: Vec<Bond>,
    pub(super) settings: CorrectionSettings,
    state: Vec<BondState>,
    last_t: Option<f64>,
}

impl EnergyCorrection {
    /// Starts bond `b` from the effort `f` and flow `v` of the first point (for tests).
    #[cfg(test)]
    pub(super) fn start(&mut self, b: usize, f: f64, v: f64) {
        self.state[b].f = f;
        self.state[b].v = v;
    }

    /// A correction of `bonds` with `settings`.
    pub fn new(bonds: Vec<Bond>, settings: CorrectionSettings) -> Self {
        let state = vec![BondState::default(); bonds.len()];
        EnergyCorrection {
            bonds,
            settings,
            state,
            last_t: None,
        }
    }

    /// The correction of one bond for the step `h` ahead, from the step `h_last` behind.
    pub(super) fn update(&mut self, b: usize, f: f64, v: f64, h_last: f64, h: f64) -> f64 {
        let mu = self.bonds[b].mu;
        let CorrectionSettings { nu, cap } = self.settings;
        let s = &mut self.state[b];
        let dp = s.f * v - f * s.v;
        let sigma = mu * h_last * dp;
        s.backlog += s.sigma + s.applied * v * h_last;
        let wanted = -(sigma + nu * s.backlog) / (v * h);
        let limit = cap.limit(f);
        // 0/0 (no error, v = 0) asks for nothing; ±∞ (v = 0) is clamped like any other.
        let applied = if wanted.is_nan() {
            0.0
        } else {
            wanted.clamp(-limit, limit)
        };
        *s = BondState {
            f,
            v,
            sigma,
            applied,
            backlog: s.backlog,
        };
        applied
    }
}

impl StepHook for EnergyCorrection {
    fn step_commencing(
        &mut self,
        view: &SystemView<'_>,
        h: f64,
        offsets: &mut [f64],
    ) -> Result<(), MasterError> {
        // A retried attempt from the same point keeps the correction already computed.
        if self.last_t == Some(view.t) {
            return Ok(());
        }
        let y = view.outputs();
        for b in 0..self.bonds.len() {
            let (f, v) = (y[self.bonds[b].effort_output], y[self.bonds[b].flow_output]);
            let input = self.bonds[b].effort_input;
            offsets[input] = match self.last_t {
                None => {
                    self.state[b].f = f;
                    self.state[b].v = v;
                    0.0
                }
                Some(t_last) => self.update(b, f, v, view.t - t_last, h),
            };
        }
        self.last_t = Some(view.t);
        Ok(())
    }
}
