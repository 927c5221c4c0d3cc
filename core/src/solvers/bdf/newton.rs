//! The BDF's work arrays ([`BdfWork`]) and its corrector: a finite-difference Jacobian
//! (kept while Newton converges) or the system's analytic banded one, the LU factors of
//! `I − c·J` (nalgebra's dense LU, or [`BandMatrix`]'s in the band), and the
//! simplified Newton iteration with the convergence-rate test of Hairer & Wanner,
//! "Solving ODEs II", §IV.8 (eqn (8.10)–(8.11)), as SciPy's `BDF` uses it.

use super::differences::Differences;
use super::NEWTON_MAX_ITER;
use crate::solvers::ode::OdeSystem;
use crate::solvers::{BandLu, BandMatrix};
use alloc::vec;
use alloc::vec::Vec;
use nalgebra::{DMatrix, DVector, Dyn, LU};

/// √ε: the relative finite-difference step of a forward-difference Jacobian.
const SQRT_EPS: f64 = 1.490_116_119_384_765_6e-8;

/// Everything the BDF keeps between its steps within one `integrate` call.
#[derive(Clone, Debug)]
pub(crate) struct BdfWork {
    pub(super) diff: Differences,
    pub(super) jac: DMatrix<f64>,
    pub(super) lu: Option<LU<f64, Dyn, Dyn>>,
    /// The analytic banded Jacobian and its factors, for a system with a
    /// [`OdeSystem::band`] (then `jac` is 0 × 0 and `lu` unused).
    pub(super) band: Option<(BandMatrix, Option<BandLu>)>,
    pub(super) y_predict: Vec<f64>,
    pub(super) psi: Vec<f64>,
    pub(super) y_new: Vec<f64>,
    /// Correction `d = y_new − y_predict` of the last Newton solve.
    pub(super) corr: Vec<f64>,
    pub(super) f: Vec<f64>,
    /// Error weights `atol_i + rtol·|y_i|`.
    pub(super) scale: Vec<f64>,
    /// The point of the next Jacobian and `f` there.
    pub(super) y_base: Vec<f64>,
    pub(super) f_base: Vec<f64>,
    pub(super) y_pert: Vec<f64>,
    pub(super) f_pert: Vec<f64>,
    pub(super) dy: DVector<f64>,
    /// Accepted steps per order (index = order) over the workspace's life; for tests and
    /// teaching (the order really varies).
    pub(crate) steps_at_order: [u32; super::MAX_ORDER + 1],
    /// Jacobian evaluations over the workspace's life.
    pub(crate) jacobians: u32,
}

/// The factorisation is a function of the other fields; it is not compared.
impl PartialEq for BdfWork {
    fn eq(&self, other: &Self) -> bool {
        self.diff == other.diff
            && self.jac == other.jac
            && self.band.as_ref().map(|b| &b.0) == other.band.as_ref().map(|b| &b.0)
            && self.steps_at_order == other.steps_at_order
            && self.jacobians == other.jacobians
    }
}

impl BdfWork {
    /// Work arrays for `n` states; `band` as [`OdeSystem::band`] reports it.
    pub fn new(n: usize, band: Option<(usize, usize)>) -> Self {
        let dense = if band.is_some() { 0 } else { n };
        BdfWork {
            diff: Differences::new(n),
            jac: DMatrix::zeros(dense, dense),
            lu: None,
            band: band.map(|(kl, ku)| (BandMatrix::zeros(n, kl, ku), None)),
            y_predict: vec![0.0; n],
            psi: vec![0.0; n],
            y_new: vec![0.0; n],
            corr: vec![0.0; n],
            f: vec![0.0; n],
            scale: vec![0.0; n],
            y_base: vec![0.0; n],
            f_base: vec![0.0; n],
            y_pert: vec![0.0; n],
            f_pert: vec![0.0; n],
            dy: DVector::zeros(n),
            steps_at_order: [0; super::MAX_ORDER + 1],
            jacobians: 0,
        }
    }

    /// Whether `I − cJ` is factorised for the current Jacobian.
    pub fn has_factors(&self) -> bool {
        match &self.band {
            Some((_, lu)) => lu.is_some(),
            None => self.lu.is_some(),
        }
    }

    /// The Jacobian at `(t, y_base)`: the system's analytic banded one, or forward
    /// differences with `f_base = f(t, y_base)` and the step of component `j`
    /// `√ε · max(|y_j|, typical_j)`. Returns the right-hand-side evaluations.
    pub fn jacobian<S: OdeSystem + ?Sized>(
        &mut self,
        sys: &mut S,
        t: f64,
        typical: impl Fn(usize) -> f64,
    ) -> u32 {
        if let Some((jac, lu)) = &mut self.band {
            jac.clear();
            sys.banded_jacobian(t, &self.y_base, jac);
            *lu = None;
            self.jacobians += 1;
            return 0;
        }
        let BdfWork {
            jac,
            y_base,
            f_base,
            y_pert,
            f_pert,
            ..
        } = self;
        let n = y_base.len();
        y_pert.copy_from_slice(y_base);
        for j in 0..n {
            let yj = y_base[j];
            y_pert[j] = yj + SQRT_EPS * libm::fabs(yj).max(typical(j));
            // The step actually represented in floating point.
            let delta = y_pert[j] - yj;
            sys.rhs(t, y_pert, f_pert);
            for i in 0..n {
                jac[(i, j)] = (f_pert[i] - f_base[i]) / delta;
            }
            y_pert[j] = yj;
        }
        self.jacobians += 1;
        self.lu = None;
        n as u32
    }

    /// Adds the last correction to the difference array (an accepted step at order `k`).
    pub fn accept(&mut self, k: usize) {
        self.diff.accept(k, &self.corr);
    }

    /// Factorises `I − c·J`.
    pub fn factorise(&mut self, c: f64) {
        if let Some((jac, lu)) = &mut self.band {
            *lu = jac.identity_minus(c).factorise();
            return;
        }
        let n = self.jac.nrows();
        let mut m = self.jac.clone();
        m *= -c;
        for i in 0..n {
            m[(i, i)] += 1.0;
        }
        self.lu = Some(LU::new(m));
    }

    /// Solves `y − c f(t, y) − ψ = 0` from the predictor with the current factors:
    /// `(I − cJ) Δ = c f(y) − ψ − d`. Returns (converged, right-hand-side evaluations);
    /// on success `y_new` and `corr` hold the solution and its correction.
    pub fn newton<S: OdeSystem + ?Sized>(
        &mut self,
        sys: &mut S,
        t: f64,
        c: f64,
        tol: f64,
    ) -> (bool, u32) {
        let dense = self.lu.as_ref();
        let banded = self.band.as_ref().and_then(|b| b.1.as_ref());
        if dense.is_none() && banded.is_none() {
            return (false, 0);
        }
        let n = self.y_new.len();
        self.y_new.copy_from_slice(&self.y_predict);
        self.corr.fill(0.0);
        let mut old_norm: Option<f64> = None;
        let mut evals = 0;
        for iter in 0..NEWTON_MAX_ITER {
            sys.rhs(t, &self.y_new, &mut self.f);
            evals += 1;
            if self.f.iter().any(|v| !v.is_finite()) {
                return (false, evals);
            }
            for i in 0..n {
                self.dy[i] = c * self.f[i] - self.psi[i] - self.corr[i];
            }
            let solved = match (banded, dense) {
                (Some(lu), _) => {
                    lu.solve(self.dy.as_mut_slice());
                    true
                }
                (None, Some(lu)) => lu.solve_mut(&mut self.dy),
                (None, None) => false,
            };
            if !solved {
                return (false, evals);
            }
            let norm = rms(self.dy.as_slice(), &self.scale);
            if !norm.is_finite() {
                return (false, evals);
            }
            let rate = old_norm.map(|o| norm / o);
            if let Some(r) = rate {
                let left = (NEWTON_MAX_ITER - iter) as i32;
                if r >= 1.0 || libm::pow(r, left as f64) / (1.0 - r) * norm > tol {
                    return (false, evals);
                }
            }
            for i in 0..n {
                self.y_new[i] += self.dy[i];
                self.corr[i] += self.dy[i];
            }
            if norm == 0.0 || rate.is_some_and(|r| r / (1.0 - r) * norm < tol) {
                return (true, evals);
            }
            old_norm = Some(norm);
        }
        (false, evals)
    }
}

/// Root mean square of `v_i / w_i`.
pub(super) fn rms(v: &[f64], w: &[f64]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    let s: f64 = v.iter().zip(w).map(|(a, b)| (a / b) * (a / b)).sum();
    libm::sqrt(s / v.len() as f64)
}
