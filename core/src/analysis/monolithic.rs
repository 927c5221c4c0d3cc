//! [`MonolithicReference`]: the exact solution of linear blocks coupled by `u = L y`
//! (docs/methods.md §10.1, paper eqns (34)–(37)), sampled on a macro-step grid, including exact
//! past samples for the `exact_history` start-up (docs/methods.md §4.4).

use super::linear_block::{block_diag, LinearBlock};
use crate::error::MasterError;
use crate::solvers::expm;
use alloc::format;
use alloc::vec::Vec;
use nalgebra::{DMatrix, DVector};

/// Steps between exact restarts of the walk `x_{k+1} = e^{A* h} x_k` (bounds accumulated
/// rounding to this many matrix-vector products; one extra exponential per interval).
const CHECKPOINT_INTERVAL: u32 = 64;

/// `x' = A* x, y = C* x` with `A* = A + B L (I − D L)⁻¹ C`, `C* = (I − D L)⁻¹ C` over the
/// block-diagonal `A, B, C, D` of the blocks (docs/methods.md §10.1, paper eqn (35)).
#[derive(Clone, Debug, PartialEq)]
pub struct MonolithicReference {
    a_star: DMatrix<f64>,
    c_star: DMatrix<f64>,
    x0: DVector<f64>,
}

impl MonolithicReference {
    /// Stacks the blocks (their order defines the stacked x, u and y) and closes the loop
    /// with `L` (rows: stacked inputs, columns: stacked outputs). A singular `I − D L` (an
    /// algebraic loop without a unique solution) is [`MasterError::SingularMatrix`] at t = 0.
    pub fn new(blocks: &[LinearBlock], l: &DMatrix<f64>) -> Result<Self, MasterError> {
        let a = block_diag(blocks, |b| &b.a);
        let b = block_diag(blocks, |b| &b.b);
        let c = block_diag(blocks, |b| &b.c);
        let d = block_diag(blocks, |b| &b.d);
        let consistent = blocks.iter().all(LinearBlock::is_consistent);
        if !consistent || l.shape() != (b.ncols(), c.nrows()) {
            return Err(MasterError::InvalidSettings(format!(
                "monolithic reference: block shapes or coupling matrix ({}×{}) do not fit {} inputs and {} outputs",
                l.nrows(),
                l.ncols(),
                b.ncols(),
                c.nrows()
            )));
        }
        let q = c.nrows();
        let i_dl = DMatrix::identity(q, q) - &d * l;
        let c_star = i_dl
            .lu()
            .solve(&c)
            .filter(|m| m.iter().all(|v| v.is_finite()))
            .ok_or(MasterError::SingularMatrix {
                t: 0.0,
                what: "I - D L",
            })?;
        let a_star = &a + &b * l * &c_star;
        let x0 =
            DVector::from_iterator(a.nrows(), blocks.iter().flat_map(|k| k.x0.iter().copied()));
        Ok(MonolithicReference { a_star, c_star, x0 })
    }

    /// `A*`.
    pub fn a_star(&self) -> &DMatrix<f64> {
        &self.a_star
    }

    /// `C*`.
    pub fn c_star(&self) -> &DMatrix<f64> {
        &self.c_star
    }

    /// Stacked start states.
    pub fn x0(&self) -> &DVector<f64> {
        &self.x0
    }

    /// `y*(t0 + k h) = C* (e^{A* h})^k x0` for `k = 0..=n_steps` (rows of stacked outputs),
    /// by repeated multiplication with `e^{A* h}` (docs/methods.md §10.1, paper eqn (36)), restarted from
    /// `e^{A* k h} x0` every 64 steps so rounding does not grow with the run length.
    pub fn outputs_at_offsets(&self, h: f64, n_steps: u32) -> Result<Vec<Vec<f64>>, MasterError> {
        self.walk(h, n_steps, true)
    }

    /// Exact past outputs `y*(t0 − k h)` for `k = p, …, 1` (oldest first), from
    /// `e^{−A* h}`: the history for the `exact_history` start-up.
    pub fn outputs_at_negative_offsets(
        &self,
        h: f64,
        p: u32,
    ) -> Result<Vec<Vec<f64>>, MasterError> {
        let mut rows = self.walk(h, p, false)?;
        rows.remove(0); // k = 0 is not in the past
        rows.reverse();
        Ok(rows)
    }

    /// [`Self::outputs_at_negative_offsets`] with times `t0 − k h` (oldest first), in the
    /// form `master::Run::new` takes as history.
    pub fn history(&self, t0: f64, h: f64, p: u32) -> Result<Vec<(f64, Vec<f64>)>, MasterError> {
        let rows = self.outputs_at_negative_offsets(h, p)?;
        Ok(rows
            .into_iter()
            .enumerate()
            .map(|(i, y)| (t0 - f64::from(p - i as u32) * h, y))
            .collect())
    }

    fn walk(&self, h: f64, n_steps: u32, forward: bool) -> Result<Vec<Vec<f64>>, MasterError> {
        let mut walk = Walk::start(self, h, forward)?;
        let mut y = DVector::zeros(self.c_star.nrows());
        let mut rows = Vec::with_capacity(n_steps as usize + 1);
        for k in 0..=n_steps {
            if k > 0 {
                walk.step(self);
            }
            y.gemv(1.0, &self.c_star, walk.state(), 0.0);
            rows.push(y.as_slice().to_vec());
        }
        Ok(rows)
    }
}

/// The walk `x_{k+1} = e^{±A* h} x_k` from `x0`, restarted from `e^{±A* k h} x0` every
/// [`CHECKPOINT_INTERVAL`] steps so rounding does not accumulate over the run. Shared by
/// the precomputed rows and the sampled reference, so both give the same numbers.
#[derive(Clone, Debug)]
pub(in crate::analysis) struct Walk {
    ad: DMatrix<f64>,
    sign: f64,
    h: f64,
    k: u32,
    x: DVector<f64>,
    next: DVector<f64>,
}

impl Walk {
    /// At `k = 0` (`x = x0`), stepping by `h` forward or backward in time.
    pub(in crate::analysis) fn start(
        r: &MonolithicReference,
        h: f64,
        forward: bool,
    ) -> Result<Self, MasterError> {
        if !(h.is_finite() && h > 0.0) {
            return Err(MasterError::InvalidSettings(format!(
                "monolithic reference: step {h} s must be finite and > 0"
            )));
        }
        let sign = if forward { 1.0 } else { -1.0 };
        let ad = expm(&(&r.a_star * (sign * h))).ok_or_else(|| {
            MasterError::InvalidSettings(format!(
                "monolithic reference: matrix exponential failed for h = {h} s"
            ))
        })?;
        Ok(Walk {
            ad,
            sign,
            h,
            k: 0,
            x: r.x0.clone(),
            next: r.x0.clone(),
        })
    }

    /// Steps taken.
    pub(in crate::analysis) fn steps(&self) -> u32 {
        self.k
    }

    /// `x_k`.
    pub(in crate::analysis) fn state(&self) -> &DVector<f64> {
        &self.x
    }

    /// `x_k → x_{k+1}` (`r` is the reference the walk started from).
    pub(in crate::analysis) fn step(&mut self, r: &MonolithicReference) {
        self.k += 1;
        let k = self.k;
        if k % CHECKPOINT_INTERVAL == 0 {
            // Restart from e^{A* t_k} x0; keep walking if that exponential fails (e.g. a
            // diverging system).
            match expm(&(&r.a_star * (self.sign * f64::from(k) * self.h))) {
                Some(e) => self.next.gemv(1.0, &e, &r.x0, 0.0),
                None => self.next.gemv(1.0, &self.ad, &self.x, 0.0),
            }
        } else {
            self.next.gemv(1.0, &self.ad, &self.x, 0.0);
        }
        core::mem::swap(&mut self.x, &mut self.next);
    }
}
