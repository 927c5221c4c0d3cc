//! The corrector's gains by the master's [`crate::master::StepSensitivity`] (docs/methods.md
//! §7.2, §6.6): for a module without exposed states the step is repeated from a saved
//! state with one input's polynomial moved along `±ε q((t − T_n)/ΔT)`, the shape in which
//! the true input differs from the extrapolated one. The central difference of the outputs
//! at `T_{n+1}` is then directly a column of `G_q` (and, with a constant shift, of `G_0`).
//! `ε` is `FD_REL_STEP` (cube root of the machine epsilon, optimal for central
//! differences) times the input's magnitude.

use super::{targets, Work, CORRECTOR};
use crate::error::MasterError;
use crate::master::algorithm::require_whole_step;
use crate::master::correction_tables::hold_weights;
use crate::master::step_sensitivity::Perturbation;
use crate::master::CoupledSystem;
use crate::module::ModuleState;
use crate::solvers::FD_REL_STEP;

impl Work {
    /// Columns of module `m`'s blocks of `G_q` and `G_0` as central differences of the step
    /// map along the input perturbation `±ε q((t − T_n)/ΔT)` of one input at a time, each
    /// step repeated from `saved` (docs/methods.md §7.2; `ε` relative to the input's magnitude).
    pub(super) fn finite_difference_gains(
        &mut self,
        sys: &mut CoupledSystem,
        m: usize,
        t: f64,
        q: usize,
        saved: &ModuleState,
    ) -> Result<(), MasterError> {
        let h = self.h;
        let inputs = sys.graph().input_range(m);
        let outputs = sys.graph().output_range(m);
        for local in 0..inputs.len() {
            let i = inputs.start + local;
            let scale = self.input_scale(i);
            let eps = FD_REL_STEP * scale;
            for &target in targets(q) {
                let w = hold_weights(target, h);
                let perturbation = Perturbation {
                    module: m,
                    input: local,
                    shape: &w,
                    eps,
                };
                let g = &mut self.g[target];
                self.fd.column(
                    sys,
                    &self.predictor,
                    perturbation,
                    saved,
                    (t, h),
                    |sys, report| require_whole_step(sys.name(m), t, h, report, CORRECTOR),
                    |r, value| g[(outputs.start + r, i)] = value,
                )?;
            }
        }
        Ok(())
    }

    /// Magnitude of input `i` for the finite-difference step: its value and the newest
    /// `p + 1` samples of its source's ȳ history, 1 if all are zero.
    fn input_scale(&self, i: usize) -> f64 {
        let o = self.predictor.source(i);
        let history = self.predictor.history();
        let samples = history.len().min(self.p + 1);
        let s = (0..samples).fold(self.predictor.values()[i].abs(), |s, j| {
            s.max(history.sample(j)[o].abs())
        });
        if s > 0.0 && s.is_finite() {
            s
        } else {
            1.0
        }
    }
}
