//! [`ModelBasedCorrection`]: the model-based corrector (MBCorr) of seed 000 in the time
//! domain, for Jacobi coupling with polynomial extrapolation of order `p = 0..=4`
//! (docs/methods.md §8, runtime pseudo-code §8.5).
//!
//! After every macro-step the master
//! 1. collects the raw outputs `y_{n+1}` of all modules (all stepped in parallel on
//!    extrapolated inputs);
//! 2. gets the gains `G_q` and `G_0` ([`super::jacobians`]: directional derivatives at
//!    `T_{n+1}` or finite differences of the step map with rollback);
//! 3. corrects the outputs (docs/methods.md §8.3):
//!    `ȳ_{n+1} = (I − G_q L)⁻¹ (y_{n+1} − G_q L P_ext(T_{n+1}) − G_0 δu_n)`,
//!    where `P_ext(T_{n+1})` is the extrapolation polynomial at the step end;
//! 4. updates the constant input offset (docs/methods.md §8.4, general order):
//!    `δu_{n+1} = (1 − α) δu_n + α c_q L ∇^{q+1} ȳ_{n+1}`;
//! 5. exchanges `ȳ` (so observers record it) and, once the driver accepts the step, keeps
//!    `ȳ`, never the raw `y`, in the extrapolation history (docs/methods.md §8.6).
//!
//! The next step's inputs are the polynomial through the `ȳ` history, with `δu` added to
//! the constant term only (docs/methods.md §8.6). During a ramp-up start the order used in a
//! step is `q = min(p, samples − 1)`, and the gains, `P_ext`, `∇` and `c_q` of that `q`
//! are used, so every step is corrected for the polynomial it actually extrapolated with.
//!
//! The time grid must be uniform (the [`super::Run`] driver's fixed grid, and an exact
//! start-up history at `t_start − k ΔT`). Buffers are allocated in `prepare`; with only
//! linear time-invariant modules read by directional derivatives the gains and the
//! factorisations of `I − G_q L` are computed once, so the macro-step loop does not
//! allocate. Nonlinear modules need a new matrix exponential and factorisation per step,
//! and rollback allocates the saved state, as FMI's `fmi3GetFMUState` does.

use super::algorithm::require_whole_step;
use super::correction_tables::hold_weights;
use super::jacobians::{
    gain_block, select_methods, summarize, JacobianRequest, JacobianSource, ModuleMethod,
};
use super::predictor::{extrapolation, HistoryGrid, InputPredictor, TaylorWeights, MAX_ORDER};
use super::{CoupledSystem, MacroStepOutcome, MasterAlgorithm, RunStart};
use super::{StateSpaceReader, StepSensitivity};
use crate::error::MasterError;
use crate::module::ModuleError;
use crate::solvers::discretize;
use alloc::format;
use alloc::vec;
use alloc::vec::Vec;
use nalgebra::{DMatrix, DVector, Dyn, LU};
use output_correction::{factorize, singular};

mod output_correction;
mod step_sensitivity;
#[cfg(test)]
mod tests;

const N: usize = MAX_ORDER + 1;

/// Jacobi coupling with extrapolation order `p` and the model-based corrector with
/// offset fraction `α` (eqn 21; 1 is the common choice, 0 disables the state correction).
#[derive(Debug)]
pub struct ModelBasedCorrection {
    order: u32,
    alpha: f64,
    request: JacobianRequest,
    source: Option<JacobianSource>,
    work: Option<Work>,
}

impl ModelBasedCorrection {
    /// Order `extrapolation_order` (0..=4), offset fraction `alpha`, Jacobians from `request`.
    pub fn new(extrapolation_order: u32, alpha: f64, request: JacobianRequest) -> Self {
        ModelBasedCorrection {
            order: extrapolation_order,
            alpha,
            request,
            source: None,
            work: None,
        }
    }

    /// The extrapolation order `p`.
    pub fn extrapolation_order(&self) -> u32 {
        self.order
    }

    /// The offset fraction `α`.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// The Jacobian source in use, once `prepare` succeeded.
    pub fn jacobian_source(&self) -> Option<JacobianSource> {
        self.source
    }
}

/// Work buffers and gains, allocated in `prepare`.
#[derive(Debug)]
struct Work {
    p: usize,
    h: f64,
    alpha: f64,
    methods: Vec<ModuleMethod>,
    readers: Vec<Option<StateSpaceReader>>,
    /// The ȳ history and the predicted inputs.
    predictor: InputPredictor,
    /// Uniform-grid weights per order q: `ΔT^k ũ^(k) = Σ_j w[k][j] ȳ_{n−j}`.
    weights: [TaylorWeights; N],
    l: DMatrix<f64>,
    /// `G_q` for `q = 0..=p` (stacked outputs × stacked inputs, block diagonal).
    g: Vec<DMatrix<f64>>,
    /// Factorisations of `I − G_q L` when every gain is constant.
    lu: Vec<LU<f64, Dyn, Dyn>>,
    constant: bool,
    /// Raw outputs, then the right-hand side, then ȳ_{n+1}.
    y: DVector<f64>,
    /// `P_ext(T_{n+1})`, then `∇^{q+1} ȳ_{n+1}` (stacked outputs).
    pe: Vec<f64>,
    /// `L P_ext` (stacked inputs).
    lp: DVector<f64>,
    delta_u: DVector<f64>,
    gl: DMatrix<f64>,
    fd: StepSensitivity,
    /// Extrapolation order used by the attempt awaiting commit.
    pending_q: usize,
}

impl MasterAlgorithm for ModelBasedCorrection {
    fn name(&self) -> &'static str {
        "jacobi_model_based_correction"
    }

    fn prepare(
        &mut self,
        sys: &mut CoupledSystem,
        start: &RunStart<'_>,
    ) -> Result<(), MasterError> {
        extrapolation(self.order)?;
        if start.variable_steps {
            return Err(MasterError::InvalidSettings(
                "model-based correction needs a fixed macro-step (its gains and difference tables are \
                 for one step size); use the fixed step controller"
                    .into(),
            ));
        }
        if !(self.alpha.is_finite() && (0.0..=2.0).contains(&self.alpha)) {
            return Err(MasterError::InvalidSettings(format!(
                "model-based correction: α must be from 0 to 2, got {}",
                self.alpha
            )));
        }
        let predictor = InputPredictor::new(sys, self.order)?;
        let methods = select_methods(sys, self.request)?;
        let mut work = Work::new(sys, predictor, start.h, self.alpha, methods);
        work.start_history(sys, start)?;
        work.constant_gains(sys, start.t_start)?;
        self.source = Some(summarize(&work.methods));
        self.work = Some(work);
        Ok(())
    }

    fn step(
        &mut self,
        sys: &mut CoupledSystem,
        t: f64,
        h: f64,
    ) -> Result<MacroStepOutcome, MasterError> {
        // Not `ok_or`: that builds (and drops) the error at every step.
        let Some(work) = self.work.as_mut() else {
            return Err(MasterError::NotPrepared("ModelBasedCorrection"));
        };
        if (h - work.h).abs() > 1e-12 * work.h {
            return Err(MasterError::InvalidSettings(format!(
                "model-based correction needs a fixed macro-step ({} s), got {h} s at t = {t} s",
                work.h
            )));
        }
        let q = work.predictor.effective_order();
        work.fill_inputs(q);
        for m in 0..sys.n_modules() {
            work.advance_module(sys, m, t, q)?;
        }
        work.predictor.record(sys);
        work.correct(sys, t + h, q)?;
        Ok(MacroStepOutcome::accepted(h))
    }

    fn commit(&mut self, _sys: &CoupledSystem, t_end: f64) {
        if let Some(work) = self.work.as_mut() {
            work.commit(t_end);
        }
    }
}

impl Work {
    fn new(
        sys: &CoupledSystem,
        predictor: InputPredictor,
        h: f64,
        alpha: f64,
        methods: Vec<ModuleMethod>,
    ) -> Self {
        let g = sys.graph();
        let (n_u, n_y, p) = (g.n_inputs(), g.n_outputs(), predictor.order());
        let readers = (0..sys.n_modules())
            .map(|m| {
                matches!(
                    methods[m],
                    ModuleMethod::Constant | ModuleMethod::Directional
                )
                .then(|| StateSpaceReader::new(sys.subsystem(m)))
            })
            .collect();
        let weights = core::array::from_fn(|q| {
            TaylorWeights::uniform(q, h).unwrap_or_else(TaylorWeights::hold)
        });
        let max_in = (0..sys.n_modules())
            .map(|m| g.input_range(m).len())
            .max()
            .unwrap_or(0);
        let max_out = (0..sys.n_modules())
            .map(|m| g.output_range(m).len())
            .max()
            .unwrap_or(0);
        let constant = methods
            .iter()
            .all(|m| matches!(m, ModuleMethod::Constant | ModuleMethod::NoInputs));
        Work {
            p,
            h,
            alpha,
            methods,
            readers,
            predictor,
            weights,
            l: g.coupling_matrix(),
            g: vec![DMatrix::zeros(n_y, n_u); p + 1],
            lu: Vec::new(),
            constant,
            y: DVector::zeros(n_y),
            pe: vec![0.0; n_y],
            lp: DVector::zeros(n_u),
            delta_u: DVector::zeros(n_u),
            gl: DMatrix::zeros(n_y, n_y),
            fd: StepSensitivity::new(max_in, max_out, p),
            pending_q: 0,
        }
    }

    /// Exact past samples on the uniform grid `t_start − k ΔT` (checked), then `y(t_start)`.
    fn start_history(
        &mut self,
        sys: &CoupledSystem,
        start: &RunStart<'_>,
    ) -> Result<(), MasterError> {
        self.predictor.start(sys, start, HistoryGrid::Uniform)
    }

    /// Gains of linear time-invariant modules, read once; the factorisations of `I − G_q L`
    /// too when every gain is constant.
    fn constant_gains(&mut self, sys: &mut CoupledSystem, t: f64) -> Result<(), MasterError> {
        for m in 0..sys.n_modules() {
            if self.methods[m] == ModuleMethod::Constant {
                for q in 0..=self.p {
                    self.directional_gain(sys, m, t, q, self.p)?;
                }
            }
        }
        if self.constant {
            for q in 0..=self.p {
                let lu = factorize(&mut self.gl, &self.g[q], &self.l);
                if !lu.is_invertible() {
                    return Err(singular(t));
                }
                self.lu.push(lu);
            }
        }
        Ok(())
    }

    /// Reads module `m`'s `A, B, C, D` and writes its block of `G_q` (and `G_0`, needed for
    /// δu, when `q > 0` and `also_zero`). `order` is the discretisation order (≥ q).
    fn directional_gain(
        &mut self,
        sys: &mut CoupledSystem,
        m: usize,
        t: f64,
        q: usize,
        order: usize,
    ) -> Result<(), MasterError> {
        let Some(reader) = self.readers[m].as_mut() else {
            return Ok(());
        };
        reader
            .read(sys.subsystem_mut(m))
            .map_err(|e| sys.module_error(m, t, e))?;
        let disc = discretize(&reader.a, &reader.b, self.h, order).ok_or_else(|| {
            sys.module_error(
                m,
                t,
                ModuleError::numerical("matrix exponential of the Jacobian failed"),
            )
        })?;
        let (rows, cols) = (sys.graph().output_range(m), sys.graph().input_range(m));
        for &target in targets(q) {
            let w = hold_weights(target, self.h);
            let block = gain_block(&reader.c, &reader.d, &disc.gamma, &w[..=target]);
            self.g[target]
                .view_mut((rows.start, cols.start), (rows.len(), cols.len()))
                .copy_from(&block);
        }
        Ok(())
    }

    /// Inputs of the step from `T_n`: the order-`q` polynomial through ȳ_n … ȳ_{n−q},
    /// anchored at `T_n`, plus δu in the value only (docs/methods.md §8.6).
    fn fill_inputs(&mut self, q: usize) {
        for i in 0..self.delta_u.len() {
            let offset = Some(self.delta_u[i]);
            self.predictor
                .predict_input(i, &self.weights[q], None, offset);
        }
    }

    /// Steps module `m` from `t` (finite-difference gains first, from a saved state), reads
    /// its raw outputs and, for directional derivatives, its gains at `T_{n+1}`.
    fn advance_module(
        &mut self,
        sys: &mut CoupledSystem,
        m: usize,
        t: f64,
        q: usize,
    ) -> Result<(), MasterError> {
        let h = self.h;
        let rollback = self.methods[m] == ModuleMethod::FiniteDifferences;
        if rollback {
            let saved = sys
                .subsystem_mut(m)
                .get_state()
                .map_err(|e| sys.module_error(m, t, e))?;
            self.finite_difference_gains(sys, m, t, q, &saved)?;
            sys.subsystem_mut(m)
                .set_state(&saved)
                .map_err(|e| sys.module_error(m, t, e))?;
        }
        self.predictor.apply(&mut sys.slot(m), t)?;
        let report = sys.do_step(m, t, h, !rollback)?;
        // Only full, successful steps: the gains are for one step size.
        require_whole_step(sys.name(m), t, h, &report, CORRECTOR)?;
        sys.read_outputs(m, t + h)?;
        if self.methods[m] == ModuleMethod::Directional {
            self.directional_gain(sys, m, t + h, q, q)?;
        }
        Ok(())
    }
}

/// The corrector as its errors name it.
const CORRECTOR: &str = "the model-based corrector";

/// The gains a step of order `q` needs: `G_q`, and `G_0` for the offset when `q > 0`.
fn targets(q: usize) -> &'static [usize] {
    static ALL: [[usize; 2]; N] = [[0, 0], [1, 0], [2, 0], [3, 0], [4, 0]];
    if q == 0 {
        &ALL[0][..1]
    } else {
        &ALL[q.min(MAX_ORDER)]
    }
}
