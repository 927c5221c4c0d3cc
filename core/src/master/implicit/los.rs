//! [`LowOrder`]: the low-order-sensitivity (LOS) interface Jacobian, our design (the seed's
//! Appendix A.2 is missing; docs/methods.md §14.12).
//!
//! Moving `u*_j` (an input of module `m`) by `δ` moves `m`'s input polynomial by `δ·ℓ(t)`,
//! `ℓ` the Lagrange basis function of the new point `T_{N+1}` (which is `L^k` of eqn 17).
//! Linearising `m` at `T_N` (`A = ∂f/∂x`, `b = ∂f/∂u_j` at `x_N, u_N`, central differences
//! of the exposed right-hand side) and truncating the transition matrix after the second
//! power, the end-state response is
//!
//! `∂x_{N+1}/∂u*_j ≈ (w_0·I + w_1·A + w_2·A²)·b`, `w_i = ∫_{T_N}^{T_{N+1}} (T_{N+1} − τ)^i/i!·ℓ(τ) dτ`
//!
//! (`w_0 = H·C^k_vel`, `w_1 = H²·C^k_pos`). The consistent coupling variables respond as
//! `∂φ/∂x_m·∂x_{N+1}/∂u*_j`, a directional difference of the update step with `m`'s end state
//! moved (no integration). The neglected terms are `O(H^{i+1})` relative to each kept one, so
//! LOS tends to the finite-difference Jacobian as `H → 0`; no module is integrated again.

use crate::coupling::Port;
use crate::error::MasterError;
use crate::master::error_control::Samples;
use crate::master::{CoupledSystem, CouplingVariables};
use alloc::vec;
use alloc::vec::Vec;

/// Gauss–Legendre nodes and weights on `[0, 1]` (8 points: exact for `ℓ` of degree ≤ 5
/// times `(1 − s)²`).
const GAUSS_8: [(f64, f64); 8] = [
    (0.019855071751231856, 0.05061426814518813),
    (0.10166676129318664, 0.11119051722668724),
    (0.2372337950418355, 0.15685332293894363),
    (0.4082826787521751, 0.181341891689181),
    (0.591717321247825, 0.181341891689181),
    (0.7627662049581645, 0.15685332293894363),
    (0.8983332387068134, 0.11119051722668724),
    (0.9801449282487681, 0.05061426814518813),
];

/// Per-module linearisations at `T_N` and the buffers of the update replay.
pub(super) struct LowOrder {
    /// Per module: `(n_x, A row-major, B row-major n_x × n_u)`, empty for non-dynamic ones.
    linear: Vec<(usize, Vec<f64>, Vec<f64>)>,
    /// Coupling variable of each stacked input (dynamic modules' inputs).
    coupling_of_input: Vec<Option<usize>>,
    /// Whether stacked output `o` depends directly on an input of its module.
    feedthrough: Vec<bool>,
    x: Vec<f64>,
    outputs: Vec<f64>,
    inputs: Vec<f64>,
    y: Vec<f64>,
}

impl LowOrder {
    pub(super) fn new(sys: &CoupledSystem, cv: &CouplingVariables) -> Self {
        let g = sys.graph();
        let mut coupling_of_input = vec![None; g.n_inputs()];
        for (c, &i) in cv.input_indices().iter().enumerate() {
            coupling_of_input[i] = Some(c);
        }
        let feedthrough = (0..g.n_outputs())
            .map(|o| {
                let m = g.output_module(o);
                let desc = sys.subsystem(m).description();
                let out = g.output_value_ref(o);
                g.input_value_refs(m)
                    .iter()
                    .any(|&i| desc.has_feedthrough(out, i))
            })
            .collect();
        LowOrder {
            linear: (0..sys.n_modules())
                .map(|_| (0, Vec::new(), Vec::new()))
                .collect(),
            coupling_of_input,
            feedthrough,
            x: Vec::new(),
            outputs: Vec::new(),
            inputs: vec![0.0; g.n_inputs()],
            y: Vec::new(),
        }
    }

    /// `A`, `B` of every dynamic module at its current state and `u_N` (the newest accepted
    /// coupling values), at `T_N = t`.
    pub(super) fn linearise(
        &mut self,
        sys: &mut CoupledSystem,
        cv: &CouplingVariables,
        t: f64,
    ) -> Result<(), MasterError> {
        for m in (0..sys.n_modules()).filter(|&m| cv.is_dynamic(m)) {
            let ins = sys.graph().input_range(m);
            let u: Vec<f64> = ins
                .clone()
                .map(|i| {
                    self.coupling_of_input[i].map_or(0.0, |c| Samples::value(cv.history(), 0)[c])
                })
                .collect();
            let sub = sys.subsystem_mut(m);
            let n = sub
                .equation_state_count()
                .map_err(|e| sys.module_error(m, t, e))?;
            let mut x = vec![0.0; n];
            let sub = sys.subsystem_mut(m);
            sub.equation_states(&mut x)
                .map_err(|e| sys.module_error(m, t, e))?;
            let nu = u.len();
            let (mut a, mut b) = (vec![0.0; n * n], vec![0.0; n * nu]);
            let (mut plus, mut minus) = (vec![0.0; n], vec![0.0; n]);
            let mut rhs = |x: &[f64], u: &[f64], out: &mut [f64]| {
                let r = sys.subsystem_mut(m).equation_rhs(t, x, u, out);
                r.map_err(|e| sys.module_error(m, t, e))
            };
            for col in 0..n {
                let eta = 1e-6 * (x[col].abs() + 1e-3);
                let mut xp = x.clone();
                xp[col] += eta;
                rhs(&xp, &u, &mut plus)?;
                xp[col] -= 2.0 * eta;
                rhs(&xp, &u, &mut minus)?;
                for r in 0..n {
                    a[r * n + col] = (plus[r] - minus[r]) / (2.0 * eta);
                }
            }
            for col in 0..nu {
                let eta = 1e-6 * (u[col].abs() + 1e-3);
                let mut up = u.clone();
                up[col] += eta;
                rhs(&x, &up, &mut plus)?;
                up[col] -= 2.0 * eta;
                rhs(&x, &up, &mut minus)?;
                for r in 0..n {
                    b[r * nu + col] = (plus[r] - minus[r]) / (2.0 * eta);
                }
            }
            self.linear[m] = (n, a, b);
        }
        Ok(())
    }

    /// Subtracts `∂φ/∂u*` (LOS) from `jacobian` (holding `I`), at the predictor end
    /// (states and consistent outputs of the predictor run, after its update step).
    pub(super) fn subtract_sensitivity(
        &mut self,
        sys: &mut CoupledSystem,
        cv: &CouplingVariables,
        (t, h, k): (f64, f64, usize),
        jacobian: &mut [f64],
    ) -> Result<(), MasterError> {
        let n_c = cv.len();
        let w = basis_weights(cv.history(), k, h);
        let t_end = t + h;
        let nominal = cv.updated().to_vec();
        for m in (0..sys.n_modules()).filter(|&m| cv.is_dynamic(m)) {
            let (n, a, b) = &self.linear[m];
            let (n, a, b) = (*n, a.clone(), b.clone());
            let ins = sys.graph().input_range(m);
            let nu = ins.len();
            for (local, i) in ins.clone().enumerate() {
                let Some(j) = self.coupling_of_input[i] else {
                    continue;
                };
                // s = (w0 I + w1 A + w2 A²) b
                let bj: Vec<f64> = (0..n).map(|r| b[r * nu + local]).collect();
                let ab = mat_vec(&a, &bj, n);
                let aab = mat_vec(&a, &ab, n);
                let s: Vec<f64> = (0..n)
                    .map(|r| w[0] * bj[r] + w[1] * ab[r] + w[2] * aab[r])
                    .collect();
                let scale = s.iter().fold(0.0f64, |acc, v| acc.max(v.abs()));
                if scale == 0.0 {
                    continue;
                }
                // Directional difference of the update step along s.
                let eta = 1e-7 / scale;
                let phi = self.replay(sys, cv, t_end, m, &s, eta)?;
                for c in 0..n_c {
                    jacobian[c * n_c + j] -= (phi[c] - nominal[c]) / eta;
                }
            }
        }
        Ok(())
    }

    /// The update step at `t_end` with module `m`'s end state moved by `eta·s`: consistent
    /// coupling variables, computed from the current outputs and the modules' equations.
    pub(super) fn replay(
        &mut self,
        sys: &mut CoupledSystem,
        cv: &CouplingVariables,
        t_end: f64,
        moved: usize,
        s: &[f64],
        eta: f64,
    ) -> Result<Vec<f64>, MasterError> {
        self.outputs.clear();
        self.outputs.extend_from_slice(sys.outputs());
        for p in 0..sys.graph().propagation_order().len() {
            match sys.graph().propagation_order()[p] {
                Port::Input(i) => {
                    self.inputs[i] = self.outputs[sys.graph().source_of_input(i)];
                }
                Port::Output(o) => {
                    let m = sys.graph().output_module(o);
                    if !(self.feedthrough[o] || m == moved) {
                        continue;
                    }
                    let (ins, outs) = (sys.graph().input_range(m), sys.graph().output_range(m));
                    let sub = sys.subsystem_mut(m);
                    let n = sub
                        .equation_state_count()
                        .map_err(|e| sys.module_error(m, t_end, e))?;
                    self.x.resize(n, 0.0);
                    self.y.resize(outs.len(), 0.0);
                    let sub = sys.subsystem_mut(m);
                    sub.equation_states(&mut self.x)
                        .map_err(|e| sys.module_error(m, t_end, e))?;
                    if m == moved {
                        for (x, d) in self.x.iter_mut().zip(s) {
                            *x += eta * d;
                        }
                    }
                    let sub = sys.subsystem_mut(m);
                    let r = sub.equation_outputs(t_end, &self.x, &self.inputs[ins], &mut self.y);
                    r.map_err(|e| sys.module_error(m, t_end, e))?;
                    self.outputs[o] = self.y[o - outs.start];
                }
            }
        }
        let g = sys.graph();
        Ok(cv
            .input_indices()
            .iter()
            .map(|&i| self.outputs[g.source_of_input(i)])
            .collect())
    }
}

/// `w_i = ∫ (T_{N+1} − τ)^i / i!·ℓ(τ) dτ`, `i = 0, 1, 2`, for the basis function of the new
/// point of the degree-`k` interpolation through `T_{N+1}` and the newest `k` points.
fn basis_weights<S: Samples + ?Sized>(history: &S, k: usize, h: f64) -> [f64; 3] {
    let t_n = history.time(0);
    let t_end = t_n + h;
    let mut w = [0.0; 3];
    for (s, weight) in GAUSS_8 {
        let tau = t_n + s * h;
        let l: f64 = (0..k)
            .map(|j| (tau - history.time(j)) / (t_end - history.time(j)))
            .product();
        let r = t_end - tau;
        w[0] += weight * l * h;
        w[1] += weight * l * r * h;
        w[2] += weight * l * r * r / 2.0 * h;
    }
    w
}

fn mat_vec(a: &[f64], x: &[f64], n: usize) -> Vec<f64> {
    (0..n)
        .map(|r| (0..n).map(|c| a[r * n + c] * x[c]).sum())
        .collect()
}
