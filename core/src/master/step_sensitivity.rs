//! [`StepSensitivity`]: how one module's outputs at the end of a step change when its input
//! polynomial is moved, by central finite differences of the step map with rollback
//! (docs/methods.md §7.2, §6.6). FMI defines no step sensitivities, so this is what a master
//! must do for a module without exposed states: repeat the step from a saved state with the
//! input's Taylor coefficients moved by `±ε·shape`. The model-based corrector gets its
//! gains `G_q` this way; implicit coupling will get its interface Jacobian the same way.

use super::{CoupledSystem, InputPredictor};
use crate::error::MasterError;
use crate::module::{ModuleState, StepReport};
use alloc::vec;
use alloc::vec::Vec;

/// Scratch for perturbed inputs and outputs, allocated once for the largest module.
#[derive(Clone, Debug)]
pub struct StepSensitivity {
    u: Vec<f64>,
    du: Vec<f64>,
    y_plus: Vec<f64>,
    y_minus: Vec<f64>,
}

/// One finite-difference column: which module and input, and how the input is moved.
#[derive(Clone, Copy, Debug)]
pub struct Perturbation<'a> {
    /// Module index.
    pub module: usize,
    /// Input of the module (local index, declaration order).
    pub input: usize,
    /// Taylor coefficients of the perturbation shape at the step start: value, then
    /// derivatives `1..=p` (e.g. the hold weights of docs/methods.md §8.3).
    pub shape: &'a [f64],
    /// Step size `ε` of the central difference.
    pub eps: f64,
}

impl StepSensitivity {
    /// Scratch for modules of up to `inputs` inputs and `outputs` outputs at extrapolation
    /// order `p`.
    pub fn new(inputs: usize, outputs: usize, p: usize) -> Self {
        StepSensitivity {
            u: vec![0.0; inputs],
            du: vec![0.0; inputs * p],
            y_plus: vec![0.0; outputs],
            y_minus: vec![0.0; outputs],
        }
    }

    /// `∂y(t + h)/∂ε` of the module's outputs, `(y(+ε) − y(−ε)) / 2ε`, written to
    /// `column(r, value)` for each output `r`. Each perturbed step starts from `saved`
    /// around the prediction of `predictor`; `check` vets each step report. The module is
    /// left after the last perturbed step: restore it before its real step.
    #[allow(clippy::too_many_arguments)]
    pub fn column(
        &mut self,
        sys: &mut CoupledSystem,
        predictor: &InputPredictor,
        perturbation: Perturbation<'_>,
        saved: &ModuleState,
        (t, h): (f64, f64),
        check: impl Fn(&CoupledSystem, &StepReport) -> Result<(), MasterError>,
        mut column: impl FnMut(usize, f64),
    ) -> Result<(), MasterError> {
        let Perturbation {
            module: m,
            input: local,
            shape,
            eps,
        } = perturbation;
        let p = predictor.order();
        let inputs = sys.graph().input_range(m);
        let n_local = inputs.len();
        let n_out = sys.graph().output_range(m).len();
        let block = predictor.derivative_block(&inputs);
        for sign in [1.0, -1.0] {
            sys.subsystem_mut(m)
                .set_state(saved)
                .map_err(|e| sys.module_error(m, t, e))?;
            self.u[..n_local].copy_from_slice(&predictor.values()[inputs.clone()]);
            self.u[local] += sign * eps * shape[0];
            self.du[..p * n_local].copy_from_slice(&predictor.derivatives()[block.clone()]);
            for (k, wk) in shape.iter().enumerate().take(p + 1).skip(1) {
                self.du[(k - 1) * n_local + local] += sign * eps * wk;
            }
            let (u, du) = (&self.u[..n_local], &self.du[..p * n_local]);
            predictor.apply_values(&mut sys.slot(m), t, u, du)?;
            let report = sys.do_step(m, t, h, false)?;
            check(sys, &report)?;
            let out = if sign > 0.0 {
                &mut self.y_plus
            } else {
                &mut self.y_minus
            };
            sys.get_outputs_into(m, t, &mut out[..n_out])?;
        }
        for r in 0..n_out {
            column(r, (self.y_plus[r] - self.y_minus[r]) / (2.0 * eps));
        }
        Ok(())
    }
}
