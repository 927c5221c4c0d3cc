//! Finite differences of the step map with rollback (docs/methods.md §7.2, §6.6):
//! for a module without exposed states the corrector repeats its step from a saved state
//! with one input's polynomial moved along `±ε q((t − T_n)/ΔT)`, the shape in which the
//! true input differs from the extrapolated one. The central difference of the outputs at
//! `T_{n+1}` is then directly a column of `G_q` (and, with a constant shift, of `G_0`).
//! `ε` is `FD_REL_STEP` (cube root of the machine epsilon, optimal for central
//! differences) times the input's magnitude.

use super::{check_report, targets, Work};
use crate::error::MasterError;
use crate::master::correction_tables::hold_weights;
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
        let (h, p) = (self.h, self.p);
        let (inputs, outputs) = (sys.graph().input_range(m), sys.graph().output_range(m));
        let n_local = inputs.len();
        let block = self.predictor.derivative_block(&inputs);
        for local in 0..n_local {
            let i = inputs.start + local;
            let scale = self.input_scale(i);
            let eps = FD_REL_STEP * scale;
            for &target in targets(q) {
                let w = hold_weights(target, h);
                for sign in [1.0, -1.0] {
                    sys.subsystem_mut(m)
                        .set_state(saved)
                        .map_err(|e| sys.module_error(m, t, e))?;
                    let predicted = self.predictor.values();
                    self.fd.u[..n_local].copy_from_slice(&predicted[inputs.clone()]);
                    self.fd.u[local] += sign * eps * w[0];
                    self.fd.du[..p * n_local]
                        .copy_from_slice(&self.predictor.derivatives()[block.clone()]);
                    for (k, wk) in w.iter().enumerate().take(p + 1).skip(1) {
                        self.fd.du[(k - 1) * n_local + local] += sign * eps * wk;
                    }
                    self.set_module_inputs(sys, m, t, true)?;
                    let report = sys.do_step(m, t, h, false)?;
                    check_report(sys, m, t, h, &report)?;
                    let out = if sign > 0.0 {
                        &mut self.fd.y_plus
                    } else {
                        &mut self.fd.y_minus
                    };
                    sys.get_outputs_into(m, t, &mut out[..outputs.len()])?;
                }
                for (r, o) in outputs.clone().enumerate() {
                    self.g[target][(o, i)] = (self.fd.y_plus[r] - self.fd.y_minus[r]) / (2.0 * eps);
                }
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
