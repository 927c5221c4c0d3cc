//! Steps 3 to 5 of the model-based corrector after a macro-step (docs/methods.md §8.3, §8.4): the
//! corrected outputs from the raw ones, the new constant input offset, and the exchange of
//! ȳ (history and coupling data) instead of the raw y (docs/methods.md §8.6).

use super::Work;
use crate::error::MasterError;
use crate::master::correction_tables::{
    backward_difference_weights, extrapolated_end_weights, STATE_CORRECTION_WEIGHTS,
};
use crate::master::CoupledSystem;
use nalgebra::{DMatrix, Dyn, LU};

impl Work {
    /// Steps 3 to 5 of the algorithm: corrected outputs, new offset, history and exchange.
    pub(super) fn correct(
        &mut self,
        sys: &mut CoupledSystem,
        t_end: f64,
        q: usize,
    ) -> Result<(), MasterError> {
        // P_ext(T_{n+1}) = Σ_j (−1)^j C(q+1, j+1) ȳ_{n−j} (docs/methods.md §8.3).
        let end = extrapolated_end_weights(q);
        let history = self.predictor.history();
        for (o, pe) in self.pe.iter_mut().enumerate() {
            *pe = (0..=q).map(|j| end[j] * history.sample(j)[o]).sum();
        }
        for (i, lp) in self.lp.iter_mut().enumerate() {
            *lp = self.pe[self.predictor.source(i)];
        }
        self.y.copy_from_slice(sys.outputs());
        self.y.gemv(-1.0, &self.g[q], &self.lp, 1.0);
        self.y.gemv(-1.0, &self.g[0], &self.delta_u, 1.0);
        let solved = if self.constant {
            self.lu[q].solve_mut(&mut self.y)
        } else {
            factorize(&mut self.gl, &self.g[q], &self.l).solve_mut(&mut self.y)
        };
        if !solved {
            return Err(singular(t_end));
        }
        if let Some(o) = self.y.iter().position(|v| !v.is_finite()) {
            return Err(MasterError::Diverged {
                t: t_end,
                signal: sys.graph().output_name(o).into(),
            });
        }
        sys.exchange_outputs(self.y.as_slice());
        self.pending_q = q;
        Ok(())
    }

    /// After the driver accepted the step ending at `t_end`: the new offset from
    /// `∇^{q+1} ȳ_{n+1}` and ȳ_{n+1} as the newest history sample.
    pub(super) fn commit(&mut self, t_end: f64) {
        let q = self.pending_q;
        // ∇^{q+1} ȳ_{n+1} = Σ_j (−1)^j C(q+1, j) ȳ_{n+1−j} (docs/methods.md §8.4).
        let nabla_w = backward_difference_weights(q);
        let history = self.predictor.history();
        for (o, nabla) in self.pe.iter_mut().enumerate() {
            *nabla = self.y[o]
                + (1..=q + 1)
                    .map(|j| nabla_w[j] * history.sample(j - 1)[o])
                    .sum::<f64>();
        }
        let c = STATE_CORRECTION_WEIGHTS[q];
        for (i, du) in self.delta_u.iter_mut().enumerate() {
            let nabla = self.pe[self.predictor.source(i)];
            *du = (1.0 - self.alpha) * *du + self.alpha * c * nabla;
        }
        self.predictor.push(t_end, self.y.as_slice());
    }
}

/// LU factorisation of `I − G L`, assembled in the scratch matrix `gl` (one clone per
/// call: nalgebra's `LU` owns its matrix). `LU::solve_mut` then reports a zero pivot.
pub(super) fn factorize(
    gl: &mut DMatrix<f64>,
    g: &DMatrix<f64>,
    l: &DMatrix<f64>,
) -> LU<f64, Dyn, Dyn> {
    gl.gemm(-1.0, g, l, 0.0);
    for i in 0..gl.nrows() {
        gl[(i, i)] += 1.0;
    }
    LU::new(gl.clone())
}

/// The error for a singular `I − G L` at time `t` (the correction cannot be solved for ȳ,
/// docs/methods.md §8.3).
pub(super) fn singular(t: f64) -> MasterError {
    MasterError::SingularMatrix {
        t,
        what: "I − G L of the model-based corrector",
    }
}
