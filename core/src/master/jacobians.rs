//! Where the model-based corrector gets its Jacobians, and how they become the output
//! gains `G_q` of seed-000 digest §2.6:
//! `G_q = C Σ_k b_k k! B_dk / ΔT^k + D`, with `q(τ) = τ(τ+1)…(τ+q−1)/q! = Σ_k b_k τ^k`
//! the shape of the difference between the true and the extrapolated input over a step.
//!
//! Two sources, chosen per module ([`select_methods`]):
//! - **directional derivatives** (`providesDirectionalDerivatives` with `x-exposesStates`):
//!   `A, B, C, D` at the module's current point by unit seeds ([`StateSpaceReader`]), then
//!   `B_dk` from [`crate::solvers::discretize`]. Read after the module's step, so step `n`
//!   is corrected with the Jacobians at the latest available point `T_{n+1}` (digest §2.9
//!   item 16). Modules declaring `x-linearTimeInvariant` are read once, before the run.
//! - **finite differences of the step map** (`canGetAndSetFMUState`): the step is repeated
//!   from a saved state with the input polynomial moved along `±ε q(τ)` (central
//!   difference), which gives the columns of `G_q` directly as `∂y_{n+1}/∂ε`. FMI defines
//!   no step sensitivities, so this is what an importer must do without exposed states
//!   (seed-004 digest §2.8, §4.2).

use super::extrapolation::MAX_ORDER;
use super::CoupledSystem;
use crate::error::MasterError;
use crate::module::{ModuleError, Subsystem, ValueRef};
use alloc::vec;
use alloc::vec::Vec;
use nalgebra::DMatrix;

/// Which Jacobian source the corrector may use (scenario `master.correction.jacobians`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum JacobianRequest {
    /// Per module: directional derivatives if it has them with exposed states, otherwise
    /// finite differences with rollback.
    #[default]
    Auto,
    /// Directional derivatives with exposed states for every module with inputs.
    DirectionalDerivatives,
    /// Finite differences of the step map with rollback for every module with inputs.
    FiniteDifferences,
}

/// Which Jacobian source a corrected run actually uses (shown by the page).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JacobianSource {
    /// Every module with inputs gives `A, B, C, D` by directional derivatives.
    DirectionalDerivatives,
    /// Every module with inputs is differentiated through its step map with rollback.
    FiniteDifferences,
    /// Some modules one way, some the other.
    Mixed,
    /// No module has inputs, so nothing is corrected.
    NotNeeded,
}

impl JacobianSource {
    /// Snake-case name, as in the scenario format.
    pub fn as_str(&self) -> &'static str {
        match self {
            JacobianSource::DirectionalDerivatives => "directional_derivatives",
            JacobianSource::FiniteDifferences => "finite_differences",
            JacobianSource::Mixed => "mixed",
            JacobianSource::NotNeeded => "not_needed",
        }
    }
}

/// How one module's gain blocks are obtained.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ModuleMethod {
    /// No inputs: the module has no columns in `G`.
    NoInputs,
    /// Linear time-invariant with directional derivatives: read once before the run.
    Constant,
    /// Directional derivatives at every communication point.
    Directional,
    /// Finite differences of the step map with rollback, every step.
    FiniteDifferences,
}

const NEEDED: &str = "providesDirectionalDerivatives with x-exposesStates, or canGetAndSetFMUState";

/// The method for every module, or [`MasterError::MissingCapability`] for the first module
/// that cannot deliver what `request` asks for (checked before the first step).
pub(super) fn select_methods(
    sys: &CoupledSystem,
    request: JacobianRequest,
) -> Result<Vec<ModuleMethod>, MasterError> {
    let mut out = Vec::with_capacity(sys.n_modules());
    for m in 0..sys.n_modules() {
        if sys.graph().input_range(m).is_empty() {
            out.push(ModuleMethod::NoInputs);
            continue;
        }
        let caps = &sys.subsystem(m).description().capabilities;
        let dd = caps.provides_directional_derivatives && caps.x_exposes_states;
        let fd = caps.can_get_and_set_fmu_state;
        let directional = if caps.x_linear_time_invariant {
            ModuleMethod::Constant
        } else {
            ModuleMethod::Directional
        };
        let missing = |capability: &'static str, why: &str| MasterError::MissingCapability {
            module: sys.name(m).into(),
            capability,
            needed_by: alloc::format!("model-based correction ({why})"),
        };
        out.push(match request {
            JacobianRequest::Auto if dd => directional,
            JacobianRequest::Auto if fd => ModuleMethod::FiniteDifferences,
            JacobianRequest::Auto => {
                return Err(missing(
                    NEEDED,
                    "Jacobians need directional derivatives with exposed states, or rollback; the module has neither",
                ))
            }
            JacobianRequest::DirectionalDerivatives if dd => directional,
            JacobianRequest::DirectionalDerivatives => {
                return Err(missing(
                    "providesDirectionalDerivatives with x-exposesStates",
                    "jacobians = directional_derivatives",
                ))
            }
            JacobianRequest::FiniteDifferences if fd => ModuleMethod::FiniteDifferences,
            JacobianRequest::FiniteDifferences => {
                return Err(missing("canGetAndSetFMUState", "jacobians = finite_differences"))
            }
        });
    }
    Ok(out)
}

/// The source a set of per-module methods amounts to.
pub(super) fn summarize(methods: &[ModuleMethod]) -> JacobianSource {
    let dd = methods
        .iter()
        .any(|m| matches!(m, ModuleMethod::Constant | ModuleMethod::Directional));
    let fd = methods.contains(&ModuleMethod::FiniteDifferences);
    match (dd, fd) {
        (true, true) => JacobianSource::Mixed,
        (true, false) => JacobianSource::DirectionalDerivatives,
        (false, true) => JacobianSource::FiniteDifferences,
        (false, false) => JacobianSource::NotNeeded,
    }
}

/// The Jacobian source a model-based corrector would use on `sys` with `request`, or the
/// capability error it would refuse with. Needs only the module descriptions, so a caller
/// can show the source before handing the system to [`super::Run`].
pub fn jacobian_source_for(
    sys: &CoupledSystem,
    request: JacobianRequest,
) -> Result<JacobianSource, MasterError> {
    select_methods(sys, request).map(|m| summarize(&m))
}

/// `w_k = b_k k! / ΔT^k`, `k = 0..=q`, where `q(τ) = τ(τ+1)…(τ+q−1)/q! = Σ_k b_k τ^k`
/// (digest §2.6; `q = 0` gives `q(τ) = 1`). These are also the Taylor coefficients (value
/// and derivatives at the step start) of the input perturbation `q((t − T_n)/ΔT)`.
pub(super) fn hold_weights(q: usize, h: f64) -> [f64; MAX_ORDER + 1] {
    // Coefficients of τ(τ+1)…(τ+q−1), built one factor at a time.
    let mut b = [0.0; MAX_ORDER + 1];
    b[0] = 1.0;
    for i in 0..q {
        for k in (0..=i + 1).rev() {
            let shifted = if k > 0 { b[k - 1] } else { 0.0 };
            b[k] = shifted + i as f64 * b[k];
        }
    }
    let mut w = [0.0; MAX_ORDER + 1];
    let (mut fact_q, mut fact_k, mut hk) = (1.0, 1.0, 1.0);
    for i in 1..=q {
        fact_q *= i as f64;
    }
    for k in 0..=q {
        if k > 0 {
            fact_k *= k as f64;
            hk *= h;
        }
        w[k] = b[k] / fact_q * fact_k / hk;
    }
    w
}

/// `G = C Σ_k w_k Γ_k + D` for one module, with `Γ_k = B_dk` ([`crate::solvers::Discretization`]).
pub(super) fn gain_block(
    c: &DMatrix<f64>,
    d: &DMatrix<f64>,
    gamma: &[DMatrix<f64>],
    weights: &[f64],
) -> DMatrix<f64> {
    let mut s = DMatrix::zeros(c.ncols(), d.ncols());
    for (g, w) in gamma.iter().zip(weights) {
        if *w != 0.0 {
            s += g * *w;
        }
    }
    c * s + d
}

/// Reads `A = ∂der(x)/∂x`, `B = ∂der(x)/∂u`, `C = ∂y/∂x`, `D = ∂y/∂u` of one module with
/// one directional derivative per state and input (unit seeds), into buffers allocated once.
/// Inputs and outputs are in stacking order, so the blocks line up with `G`'s.
#[derive(Clone, Debug)]
pub(super) struct StateSpaceReader {
    unknowns: Vec<ValueRef>,
    knowns: Vec<ValueRef>,
    seed: Vec<f64>,
    sens: Vec<f64>,
    n: usize,
    /// `∂der(x)/∂x`.
    pub a: DMatrix<f64>,
    /// `∂der(x)/∂u`.
    pub b: DMatrix<f64>,
    /// `∂y/∂x`.
    pub c: DMatrix<f64>,
    /// `∂y/∂u`.
    pub d: DMatrix<f64>,
}

impl StateSpaceReader {
    /// Buffers for module `m` of `sys`.
    pub fn new(sys: &CoupledSystem, m: usize) -> Self {
        let states: Vec<(ValueRef, ValueRef)> = sys
            .subsystem(m)
            .description()
            .states()
            .iter()
            .map(|(x, d)| (x.value_ref, d.value_ref))
            .collect();
        let inputs = sys.graph().input_value_refs(m);
        let outputs = sys.graph().output_value_refs(m);
        let (n, nu, ny) = (states.len(), inputs.len(), outputs.len());
        StateSpaceReader {
            unknowns: states
                .iter()
                .map(|s| s.1)
                .chain(outputs.iter().copied())
                .collect(),
            knowns: states
                .iter()
                .map(|s| s.0)
                .chain(inputs.iter().copied())
                .collect(),
            seed: vec![0.0; n + nu],
            sens: vec![0.0; n + ny],
            n,
            a: DMatrix::zeros(n, n),
            b: DMatrix::zeros(n, nu),
            c: DMatrix::zeros(ny, n),
            d: DMatrix::zeros(ny, nu),
        }
    }

    /// Reads the four matrices at the subsystem's current point (Step Mode, no input set
    /// since the last step: FMI forbids reading after a set).
    pub fn read(&mut self, sub: &mut Subsystem) -> Result<(), ModuleError> {
        let n = self.n;
        for j in 0..self.seed.len() {
            self.seed[j] = 1.0;
            let r = sub.directional_derivative(
                &self.unknowns,
                &self.knowns,
                &self.seed,
                &mut self.sens,
            );
            self.seed[j] = 0.0;
            r?;
            for (i, s) in self.sens.iter().enumerate() {
                match (i < n, j < n) {
                    (true, true) => self.a[(i, j)] = *s,
                    (true, false) => self.b[(i, j - n)] = *s,
                    (false, true) => self.c[(i - n, j)] = *s,
                    (false, false) => self.d[(i - n, j - n)] = *s,
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hold_weights_give_the_digest_gains() {
        // Digest §2.6: G_2 = C(B_d1/(2ΔT) + B_d2/ΔT²) + D, G_4 = C(B_d1/(4ΔT) +
        // (11/12)B_d2/ΔT² + (3/2)B_d3/ΔT³ + B_d4/ΔT⁴) + D; D's factor is q(1) = 1.
        let h = 0.5;
        let close = |a: f64, b: f64| (a - b).abs() < 1e-14 * (1.0 + b.abs());
        let w0 = hold_weights(0, h);
        assert_eq!(w0[..2], [1.0, 0.0]);
        let w1 = hold_weights(1, h);
        assert!(close(w1[0], 0.0) && close(w1[1], 1.0 / h));
        let w2 = hold_weights(2, h);
        assert!(close(w2[0], 0.0) && close(w2[1], 0.5 / h) && close(w2[2], 1.0 / (h * h)));
        let w3 = hold_weights(3, h);
        assert!(
            close(w3[1], 1.0 / (3.0 * h))
                && close(w3[2], 1.0 / (h * h))
                && close(w3[3], 1.0 / (h * h * h))
        );
        let w4 = hold_weights(4, h);
        let expected = [
            0.0,
            0.25 / h,
            11.0 / 12.0 / h.powi(2),
            1.5 / h.powi(3),
            1.0 / h.powi(4),
        ];
        for k in 0..=4 {
            assert!(
                close(w4[k], expected[k]),
                "k = {k}: {} vs {}",
                w4[k],
                expected[k]
            );
        }
        // The perturbation q(τ) evaluated at τ = 1 is 1 for every order.
        for q in 0..=4 {
            let w = hold_weights(q, h);
            let mut fact = 1.0;
            let at_end: f64 = (0..=q)
                .map(|k| {
                    if k > 0 {
                        fact *= k as f64;
                    }
                    w[k] * h.powi(k as i32) / fact
                })
                .sum();
            assert!(close(at_end, 1.0), "q = {q}: q(1) = {at_end}");
        }
    }
}
