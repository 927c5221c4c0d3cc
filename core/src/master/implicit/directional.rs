//! [`Directional`]: the interface Jacobian from the modules' directional derivatives
//! (`providesDirectionalDerivatives` with `x-exposesStates`; docs/methods.md §14.12.2).
//!
//! Each dynamic module is linearised at its predictor end point (`A`, `B` by unit seeds,
//! read right after its step as FMI requires), and the linearisation is integrated over the
//! step exactly: with `ℓ(T_N + s) = Σ_i c_i s^i` the Lagrange basis function of the new
//! point, `∂x_{N+1}/∂u*_j = Σ_i i!·c_i·Γ_i e_j`, `Γ_i = ∫_0^H e^{A(H−s)} B s^i/i! ds`
//! ([`discretize`]). `∂φ/∂x_m` along that direction is the update-step replay of
//! [`super::los::LowOrder`]. Exact for linear time-invariant modules; the exposed states
//! must come in the model description's state order (checked).

use super::los::LowOrder;
use crate::error::MasterError;
use crate::master::error_control::Samples;
use crate::master::{CoupledSystem, CouplingVariables, StateSpaceReader};
use crate::solvers::discretize;
use alloc::format;
use alloc::vec;
use alloc::vec::Vec;

/// One reader per dynamic module with inputs.
pub(super) struct Directional {
    readers: Vec<Option<StateSpaceReader>>,
}

impl Directional {
    /// Readers for every dynamic module with inputs, or the capability error naming the
    /// first module without directional derivatives, exposed states or exposed equations.
    pub(super) fn new(
        sys: &mut CoupledSystem,
        cv: &CouplingVariables,
    ) -> Result<Self, MasterError> {
        let mut readers = Vec::with_capacity(sys.n_modules());
        for m in 0..sys.n_modules() {
            if !cv.is_dynamic(m) || sys.graph().input_range(m).is_empty() {
                readers.push(None);
                continue;
            }
            let caps = &sys.subsystem(m).description().capabilities;
            let ok = caps.provides_directional_derivatives
                && caps.x_exposes_states
                && caps.x_exposes_equations;
            if !ok {
                return Err(MasterError::MissingCapability {
                    module: sys.name(m).into(),
                    capability:
                        "providesDirectionalDerivatives with x-exposesStates and x-exposesEquations",
                    needed_by: "the directional-derivative interface Jacobian".into(),
                });
            }
            let reader = StateSpaceReader::new(sys.subsystem(m));
            check_state_order(sys, m, &reader)?;
            readers.push(Some(reader));
        }
        Ok(Directional { readers })
    }

    /// Subtracts `∂φ/∂u*` from `jacobian` (holding `I`) at the predictor end, before the
    /// update step sets anything.
    pub(super) fn subtract_sensitivity(
        &mut self,
        sys: &mut CoupledSystem,
        cv: &CouplingVariables,
        los: &mut LowOrder,
        (t, h, k): (f64, f64, usize),
        jacobian: &mut [f64],
    ) -> Result<(), MasterError> {
        let n_c = cv.len();
        let t_end = t + h;
        let taylor = basis_taylor(cv.history(), k, h);
        let nominal = cv.updated().to_vec();
        // Read every module first: the update-step replays only evaluate equations.
        let mut directions: Vec<(usize, usize, Vec<f64>)> = Vec::new();
        for m in 0..sys.n_modules() {
            let Some(reader) = self.readers[m].as_mut() else {
                continue;
            };
            let r = reader.read(sys.subsystem_mut(m));
            r.map_err(|e| sys.module_error(m, t_end, e))?;
            let p = k.min(crate::solvers::MAX_INPUT_ORDER);
            let d = discretize(&reader.a, &reader.b, h, p).ok_or_else(|| {
                MasterError::InvalidSettings(format!(
                    "module `{}`: its linearisation cannot be integrated over h = {h} s",
                    sys.name(m)
                ))
            })?;
            for (local, i) in sys.graph().input_range(m).enumerate() {
                let Some(j) = cv.input_indices().iter().position(|&c| c == i) else {
                    continue;
                };
                let mut s = vec![0.0; reader.states()];
                let mut factorial = 1.0;
                for (order, gamma) in d.gamma.iter().enumerate() {
                    if order > 0 {
                        factorial *= order as f64;
                    }
                    for (r, v) in s.iter_mut().enumerate() {
                        *v += factorial * taylor[order] * gamma[(r, local)];
                    }
                }
                directions.push((m, j, s));
            }
        }
        for (m, j, s) in directions {
            let scale = s.iter().fold(0.0f64, |acc, v| acc.max(v.abs()));
            if scale == 0.0 {
                continue;
            }
            let eta = 1e-7 / scale;
            let phi = los.replay(sys, cv, t_end, m, &s, eta)?;
            for c in 0..n_c {
                jacobian[c * n_c + j] -= (phi[c] - nominal[c]) / eta;
            }
        }
        Ok(())
    }
}

/// The exposed equations' states must be the model description's states, in its order.
fn check_state_order(
    sys: &mut CoupledSystem,
    m: usize,
    reader: &StateSpaceReader,
) -> Result<(), MasterError> {
    let n = reader.states();
    let mut by_ref = vec![0.0; n];
    let mut exposed = vec![0.0; n];
    let sub = sys.subsystem_mut(m);
    let r = sub
        .get_float64(reader.state_value_refs(), &mut by_ref)
        .and_then(|_| sub.equation_states(&mut exposed));
    r.map_err(|e| sys.module_error(m, f64::NAN, e))?;
    if by_ref != exposed {
        return Err(MasterError::InvalidSettings(format!(
            "module `{}`: its exposed equation states are not its declared states in order; \
             the directional-derivative Jacobian cannot combine them",
            sys.name(m)
        )));
    }
    Ok(())
}

/// Taylor coefficients `c_i` (`i = 0..=k`) in `s = t − T_N` of the Lagrange basis function
/// of `T_{N+1} = T_N + h` through `T_{N+1}` and the newest `k` points of `history`.
fn basis_taylor<S: Samples + ?Sized>(history: &S, k: usize, h: f64) -> Vec<f64> {
    let t_n = history.time(0);
    let mut c = vec![0.0; k + 1];
    c[0] = 1.0;
    for j in 0..k {
        // Multiply by (s + (T_N − T_{N−j})) / (h + T_N − T_{N−j}).
        let offset = t_n - history.time(j);
        let denominator = h + offset;
        for i in (0..=j + 1).rev() {
            let shifted = if i > 0 { c[i - 1] } else { 0.0 };
            c[i] = (shifted + offset * c[i]) / denominator;
        }
    }
    c
}
