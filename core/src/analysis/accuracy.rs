//! Local and global NRMSE of a co-simulation described by its propagation matrix, against
//! the exact monolithic solution (docs/methods.md §10.2, paper eqns 31–33).
//!
//! Run protocol (docs/methods.md §10.3; the paper does not give one, §4.4): the co-simulation
//! starts at `t = 0` from the modules' start states `x0` with the **exact** output history
//! `y*(0), y*(−ΔT), …, y*(−pΔT)` and `δu = 0`, exactly like a time-domain run with
//! `start_up = exact_history`. It takes `N = round(horizon/ΔT)` macro-steps; the errors
//! are over the outputs after steps `1..=N` (states, history slots and δu are excluded).
//!
//! - global: `ε_g,n+1 = y*(t_{n+1}) − y_{n+1}` (eqn 32), reference from
//!   [`MonolithicReference::outputs_at_offsets`];
//! - local: `ε_l,n+1 = C* A*_d x_n − y_{n+1}` with `x_n` the **co-simulation** state
//!   (eqn 31 applied along the co-simulation trajectory, docs/methods.md §10.3), so a diverging
//!   method shows a growing local error.
//!
//! Both are normalised per output by the population standard deviation of the reference
//! outputs over the same steps and combined by RMS (eqn 33; outputs whose reference is
//! constant are skipped). A run whose information vector overflows is reported as
//! diverged with both errors `+∞`, never NaN.

use super::{MonolithicReference, PropagationMatrix};
use crate::error::MasterError;
use crate::solvers::expm;
use crate::time::MAX_MACRO_STEPS;
use alloc::format;
use alloc::vec;
use alloc::vec::Vec;
use nalgebra::{DMatrix, DVector};

/// Error measures of one run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ErrorMeasures {
    /// `e_l,NRMSE` (eqns 31, 33); `+∞` when diverged.
    pub local: f64,
    /// `e_g,NRMSE` (eqns 32, 33); `+∞` when diverged.
    pub global: f64,
    /// The information vector became non-finite (or the error sums overflowed).
    pub diverged: bool,
    /// Macro-steps taken, `N`.
    pub steps: u32,
}

/// Runs `z_{n+1} = Φ z_n` over `horizon` seconds with the exact start-up history and
/// returns both NRMSEs. `reference` must be built from the same blocks and coupling as
/// `pm`. Errors: a horizon shorter than one macro-step or longer than
/// [`MAX_MACRO_STEPS`] steps, no output that varies over the horizon, or a failed
/// exponential.
pub fn error_measures(
    pm: &PropagationMatrix,
    reference: &MonolithicReference,
    horizon: f64,
) -> Result<ErrorMeasures, MasterError> {
    let lay = pm.layout();
    let h = pm.macro_step();
    let steps = libm::round(horizon / h);
    if !(steps >= 1.0 && steps <= f64::from(MAX_MACRO_STEPS)) || reference.x0().len() != lay.n_x {
        return Err(MasterError::InvalidSettings(format!(
            "error measures: {horizon} s over ΔT = {h} s must give 1 to {MAX_MACRO_STEPS} macro-steps, \
             with a reference of the same system"
        )));
    }
    let n = steps as u32;
    let rows = reference.outputs_at_offsets(h, n)?;
    let past = reference.outputs_at_negative_offsets(h, lay.order as u32)?;
    let mut history = Vec::with_capacity(lay.order + 1);
    history.push(DVector::from_column_slice(&rows[0]));
    history.extend(past.iter().rev().map(|y| DVector::from_column_slice(y)));
    let mut z = pm.initial_vector(reference.x0(), &history).ok_or_else(|| {
        MasterError::InvalidSettings("error measures: reference does not fit the layout".into())
    })?;
    let ad_star = expm(&(reference.a_star() * h)).ok_or_else(|| {
        MasterError::InvalidSettings(format!("error measures: exponential failed at ΔT = {h} s"))
    })?;
    let local_map: DMatrix<f64> = reference.c_star() * ad_star;

    let ny = lay.n_y;
    let y0 = lay.y(0).start;
    let mut sum_l = vec![0.0; ny];
    let mut sum_g = vec![0.0; ny];
    let mut next = DVector::zeros(z.len());
    let mut y_loc = DVector::zeros(ny);
    let mut diverged = false;
    for row in rows.iter().skip(1) {
        y_loc.gemv(1.0, &local_map, &z.rows(0, lay.n_x), 0.0);
        next.gemv(1.0, pm.phi(), &z, 0.0);
        core::mem::swap(&mut z, &mut next);
        for j in 0..ny {
            let y = z[y0 + j];
            sum_l[j] += (y_loc[j] - y) * (y_loc[j] - y);
            sum_g[j] += (row[j] - y) * (row[j] - y);
        }
        if !(sum_l.iter().chain(&sum_g).all(|v| v.is_finite()) && z.iter().all(|v| v.is_finite())) {
            diverged = true;
            break;
        }
    }
    // Reference spread over the compared steps 1..=N (population std, docs/methods.md §10.2).
    let nf = f64::from(n);
    let (mut acc_l, mut acc_g, mut k) = (0.0, 0.0, 0u32);
    for j in 0..ny {
        let mean = rows.iter().skip(1).map(|r| r[j]).sum::<f64>() / nf;
        let var = rows
            .iter()
            .skip(1)
            .map(|r| (r[j] - mean) * (r[j] - mean))
            .sum::<f64>()
            / nf;
        if !(var.is_finite() && var > 0.0) {
            continue;
        }
        acc_l += sum_l[j] / nf / var;
        acc_g += sum_g[j] / nf / var;
        k += 1;
    }
    if k == 0 {
        return Err(MasterError::InvalidSettings(
            "error measures: no output of the reference varies over the horizon (nothing to normalise by)".into(),
        ));
    }
    if diverged {
        return Ok(ErrorMeasures {
            local: f64::INFINITY,
            global: f64::INFINITY,
            diverged,
            steps: n,
        });
    }
    let kf = f64::from(k);
    Ok(ErrorMeasures {
        local: libm::sqrt(acc_l / kf),
        global: libm::sqrt(acc_g / kf),
        diverged,
        steps: n,
    })
}
