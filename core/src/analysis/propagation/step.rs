//! [`StepOperator`]: one macro-step of the co-simulation of exactly solved linear blocks as
//! a linear map `z_n → z_{n+1}` on the information vector (docs/methods.md
//! §9.1). It mirrors the time-domain master step for step:
//!
//! - **Inputs** (`master::ExplicitCoupling`): each input is the Taylor polynomial at `T_n`
//!   of the polynomial through the last `p + 1` output samples; in Gauss-Seidel an input
//!   whose source module already stepped uses the polynomial through the new sample
//!   `y_{n+1}` and `y_n … y_{n−p+1}` instead. With scaled derivatives `a_k = ΔT^k ũ^(k)`:
//!   `x_{n+1} = A_d x_n + Σ_k (B_dk/ΔT^k) a_k` (eqn 38) and the end-of-step feedthrough
//!   `y_{n+1} = C x_{n+1} + D ũ(T_{n+1})`, `ũ(T_{n+1}) = Σ_k a_k/k!` (docs/methods.md §3.1).
//! - **Corrector** (Jacobi only): `δu` enters only the constant term `a_0`;
//!   `ȳ_{n+1} = (I − G_p L)⁻¹(y_{n+1} − G_p L P_ext(T_{n+1}) − G_0 δu_n)` (eqns 16/18/19,
//!   general order p in §8.3) and `δu_{n+1} = (1−α) δu_n + α c_p L ∇^{p+1}ȳ_{n+1}`
//!   (eqns 24/25, §8.4). The history holds the corrected ȳ (docs/methods.md §8.6).

use super::method::{Layout, PropagationMethod};
use crate::analysis::LinearBlock;
use crate::error::MasterError;
use crate::master::correction_tables::{
    backward_difference_weights, extrapolated_end_weights, true_input_shape,
    STATE_CORRECTION_WEIGHTS,
};
use crate::master::{Extrapolation, Scheme, TaylorWeights, MAX_ORDER};
use crate::solvers::{balance, discretize, one_norm, Discretization};
use alloc::format;
use alloc::vec;
use alloc::vec::Vec;
use core::ops::Range;
use nalgebra::DMatrix;

/// One block's exact discretisation and where its variables sit in the stacked vectors.
#[derive(Clone, Debug)]
struct BlockStep {
    ad: DMatrix<f64>,
    /// `Γ'_k = B_dk / ΔT^k`, `k = 0..=p`: multiplies the scaled derivative `a_k`.
    gamma: Vec<DMatrix<f64>>,
    c: DMatrix<f64>,
    d: DMatrix<f64>,
    x: Range<usize>,
    u: Range<usize>,
    y: Range<usize>,
}

/// The corrector's constant matrices for one macro-step size.
#[derive(Clone, Debug)]
struct Corrector {
    /// `S = (I − G_p L)⁻¹`.
    s: DMatrix<f64>,
    /// `G_p L`.
    gp_l: DMatrix<f64>,
    /// `G_0 = C B_d0 + D`.
    g0: DMatrix<f64>,
    alpha: f64,
    /// `c_p`.
    cp: f64,
    /// 1-norm condition number of `I − G_p L` after balancing.
    condition: f64,
}

/// The linear step `z_n → z_{n+1}`.
#[derive(Clone, Debug)]
pub(super) struct StepOperator {
    layout: Layout,
    blocks: Vec<BlockStep>,
    /// Nonzero entries `(output, weight)` of each row of `L`.
    l_rows: Vec<Vec<(usize, f64)>>,
    l: DMatrix<f64>,
    sequence: Vec<usize>,
    gauss_seidel: bool,
    output_block: Vec<usize>,
    /// Extrapolation: `a_k = Σ_j extrapolation[k][j] y_{n−j}`.
    extrapolation: [[f64; MAX_ORDER + 1]; MAX_ORDER + 1],
    /// Interpolation (Gauss-Seidel): weights on `y_{n+1}, y_n, …, y_{n−p+1}`.
    interpolation: TaylorWeights,
    corrector: Option<Corrector>,
}

/// Checks shapes and returns `(n_x, n_u, n_y)`.
pub(super) fn check_shapes(
    blocks: &[LinearBlock],
    l: &DMatrix<f64>,
) -> Result<(usize, usize, usize), MasterError> {
    let consistent = blocks.iter().all(LinearBlock::is_consistent);
    let n_x = blocks.iter().map(|b| b.a.nrows()).sum();
    let n_u = blocks.iter().map(|b| b.b.ncols()).sum();
    let n_y = blocks.iter().map(|b| b.c.nrows()).sum();
    if !consistent || l.shape() != (n_u, n_y) || blocks.is_empty() {
        return Err(MasterError::InvalidSettings(format!(
            "propagation matrix: block shapes or coupling matrix ({}×{}) do not fit {n_u} inputs and {n_y} outputs",
            l.nrows(),
            l.ncols()
        )));
    }
    Ok((n_x, n_u, n_y))
}

fn invalid(msg: &str) -> MasterError {
    MasterError::InvalidSettings(format!("propagation matrix: {msg}"))
}

impl StepOperator {
    /// `known[i]`, when given and made for `h` and this order, is taken as block `i`'s
    /// discretisation instead of computing it (the caller vouches that it is block `i`'s).
    pub(super) fn new(
        blocks: &[LinearBlock],
        l: &DMatrix<f64>,
        method: &PropagationMethod,
        h: f64,
        known: &[Option<&Discretization>],
    ) -> Result<Self, MasterError> {
        let (n_x, n_u, n_y) = check_shapes(blocks, l)?;
        let p = method.order as usize;
        let extrapolation = Extrapolation::new(method.order)
            .ok_or_else(|| {
                invalid(&format!(
                    "extrapolation order {} is not supported (0 to {MAX_ORDER})",
                    method.order
                ))
            })?
            .uniform_rows();
        if !(h.is_finite() && h > 0.0) {
            return Err(invalid(&format!(
                "macro-step {h} s must be finite and positive"
            )));
        }
        let (sequence, gauss_seidel) = match &method.scheme {
            Scheme::Jacobi => ((0..blocks.len()).collect::<Vec<_>>(), false),
            Scheme::GaussSeidel(seq) => {
                let mut sorted = seq.clone();
                sorted.sort_unstable();
                if sorted != (0..blocks.len()).collect::<Vec<_>>() {
                    return Err(invalid(
                        "the Gauss-Seidel sequence must list every block exactly once",
                    ));
                }
                (seq.clone(), true)
            }
        };
        if method.correction.is_some() && gauss_seidel {
            return Err(invalid(
                "the model-based corrector is defined for Jacobi coupling only (seed 000)",
            ));
        }
        let mut steps = Vec::with_capacity(blocks.len());
        let (mut xs, mut us, mut ys) = (0, 0, 0);
        let mut output_block = Vec::with_capacity(n_y);
        for (i, b) in blocks.iter().enumerate() {
            let (n, m, q) = (b.a.nrows(), b.b.ncols(), b.c.nrows());
            let fits = |d: &&Discretization| {
                d.h == h && d.gamma.len() == p + 1 && d.ad.nrows() == n && d.gamma[0].ncols() == m
            };
            let disc = match known.get(i).copied().flatten().filter(fits) {
                Some(d) => d.clone(),
                None => discretize(&b.a, &b.b, h, p).ok_or_else(|| {
                    invalid(&format!(
                        "the matrix exponential of block {i} failed at ΔT = {h} s"
                    ))
                })?,
            };
            let mut hk = 1.0;
            let gamma = disc
                .gamma
                .into_iter()
                .map(|mut g| {
                    g /= hk;
                    hk *= h;
                    g
                })
                .collect();
            steps.push(BlockStep {
                ad: disc.ad,
                gamma,
                c: b.c.clone(),
                d: b.d.clone(),
                x: xs..xs + n,
                u: us..us + m,
                y: ys..ys + q,
            });
            output_block.extend(core::iter::repeat_n(i, q));
            xs += n;
            us += m;
            ys += q;
        }
        let l_rows = (0..n_u)
            .map(|i| {
                (0..n_y)
                    .filter(|&o| l[(i, o)] != 0.0)
                    .map(|o| (o, l[(i, o)]))
                    .collect()
            })
            .collect();
        let times: [f64; MAX_ORDER + 1] = core::array::from_fn(|j| 1.0 - j as f64);
        let interpolation = TaylorWeights::through(&times[..=p], 0.0)
            .ok_or_else(|| invalid("interpolation weights"))?;
        let layout = Layout {
            n_x,
            n_y,
            n_u,
            order: p,
            corrected: method.correction.is_some(),
        };
        let mut op = StepOperator {
            layout,
            blocks: steps,
            l_rows,
            l: l.clone(),
            sequence,
            gauss_seidel,
            output_block,
            extrapolation,
            interpolation,
            corrector: None,
        };
        if let Some(alpha) = method.correction {
            if !alpha.is_finite() {
                return Err(invalid(&format!("correction α = {alpha} must be finite")));
            }
            op.corrector = Some(op.corrector(alpha)?);
        }
        Ok(op)
    }

    /// `G_p`, `G_0` and `(I − G_p L)⁻¹` from the blocks' own (exact) Jacobians: perfect
    /// model knowledge, as in the paper's analysis (docs/methods.md §9.2).
    fn corrector(&self, alpha: f64) -> Result<Corrector, MasterError> {
        let Layout {
            n_y, n_u, order: p, ..
        } = self.layout;
        let b = true_input_shape(p);
        let mut gp = DMatrix::zeros(n_y, n_u);
        let mut g0 = DMatrix::zeros(n_y, n_u);
        for blk in &self.blocks {
            let mut sum = DMatrix::zeros(blk.x.len(), blk.u.len());
            let mut fact = 1.0;
            for (k, gk) in blk.gamma.iter().enumerate() {
                if k > 0 {
                    fact *= k as f64;
                }
                if b[k] != 0.0 {
                    sum += gk * (b[k] * fact);
                }
            }
            gp.view_mut((blk.y.start, blk.u.start), (blk.y.len(), blk.u.len()))
                .copy_from(&(&blk.c * sum + &blk.d));
            g0.view_mut((blk.y.start, blk.u.start), (blk.y.len(), blk.u.len()))
                .copy_from(&(&blk.c * &blk.gamma[0] + &blk.d));
        }
        let gp_l = &gp * &self.l;
        let m = DMatrix::identity(n_y, n_y) - &gp_l;
        let singular = MasterError::SingularMatrix {
            t: 0.0,
            what: "I - G_p L",
        };
        // Inverted in balanced units, Mb = D⁻¹ M D, so M⁻¹ = D Mb⁻¹ D⁻¹ (D holds powers of
        // 2: exact). y mixes metres and newtons, so the plain 1-norm condition of I − G_p L
        // would grow with c_k through the units alone.
        let (mb, d) = balance(&m);
        let inv_b = mb.clone().lu().try_inverse().ok_or(singular.clone())?;
        let condition = one_norm(&mb) * one_norm(&inv_b);
        let s = DMatrix::from_fn(n_y, n_y, |i, j| inv_b[(i, j)] * d[i] / d[j]);
        if s.iter().any(|v| !v.is_finite()) {
            return Err(singular);
        }
        Ok(Corrector {
            s,
            gp_l,
            g0,
            alpha,
            cp: STATE_CORRECTION_WEIGHTS[p],
            condition,
        })
    }

    pub(super) fn layout(&self) -> Layout {
        self.layout
    }

    /// Condition number of `I − G_p L` (1 for plain methods).
    pub(super) fn corrector_condition(&self) -> f64 {
        self.corrector.as_ref().map_or(1.0, |c| c.condition)
    }

    /// `step` applied to every column of `z` (each column one information vector): one
    /// pass of matrix products instead of one per column, so Φ = `apply(I)` costs a few
    /// small products rather than `dim` passes of vector work.
    pub(super) fn apply(&self, z: &DMatrix<f64>) -> DMatrix<f64> {
        let lay = self.layout;
        let p = lay.order;
        let cols = z.ncols();
        let mut out = DMatrix::zeros(z.nrows(), cols);
        let mut stepped = vec![false; self.blocks.len()];
        // a[k]: scaled derivative k of every input, one column per column of z.
        let mut a: Vec<DMatrix<f64>> = (0..=p).map(|_| DMatrix::zeros(lay.n_u, cols)).collect();
        let y_new = lay.y(0);
        for &m in &self.sequence {
            let blk = &self.blocks[m];
            for i in blk.u.clone() {
                for &(o, w) in &self.l_rows[i] {
                    let from_new = self.gauss_seidel && stepped[self.output_block[o]];
                    for (k, ak) in a.iter_mut().enumerate() {
                        for j in 0..=p {
                            let (src, weight) = if from_new {
                                // Samples y_{n+1}, y_n, …, y_{n−p+1}.
                                let row = if j == 0 {
                                    out.row(y_new.start + o)
                                } else {
                                    z.row(lay.y(j - 1).start + o)
                                };
                                (row, self.interpolation.weight(k, j))
                            } else {
                                (z.row(lay.y(j).start + o), self.extrapolation[k][j])
                            };
                            if weight != 0.0 {
                                for c in 0..cols {
                                    ak[(i, c)] += w * weight * src[c];
                                }
                            }
                        }
                    }
                }
                if let Some(du) = lay.du() {
                    // δu only shifts the constant term (docs/methods.md §8.6)
                    for c in 0..cols {
                        a[0][(i, c)] += z[(du.start + i, c)];
                    }
                }
            }
            let (nx, nu) = (blk.x.len(), blk.u.len());
            let mut x_new = &blk.ad * z.rows(blk.x.start, nx);
            let mut u_end = DMatrix::zeros(nu, cols);
            let mut fact = 1.0;
            for (k, (ak, gk)) in a.iter().zip(&blk.gamma).enumerate() {
                if k > 0 {
                    fact *= k as f64;
                }
                let ak = ak.rows(blk.u.start, nu);
                x_new.gemm(1.0, gk, &ak, 1.0);
                u_end.zip_apply(&ak, |e, v| *e += v / fact);
            }
            let mut y = &blk.c * &x_new;
            y.gemm(1.0, &blk.d, &u_end, 1.0);
            out.rows_mut(blk.x.start, nx).copy_from(&x_new);
            out.rows_mut(y_new.start + blk.y.start, blk.y.len())
                .copy_from(&y);
            stepped[m] = true;
        }
        if let (Some(c), Some(du_rows)) = (&self.corrector, lay.du()) {
            let du = z.rows(du_rows.start, du_rows.len());
            let pe = extrapolated_end_weights(p);
            let mut p_ext = DMatrix::zeros(lay.n_y, cols);
            for (j, w) in pe.iter().enumerate().take(p + 1) {
                p_ext.zip_apply(&z.rows(lay.y(j).start, lay.n_y), |e, v| *e += w * v);
            }
            let mut rhs = out.rows(y_new.start, lay.n_y).into_owned();
            rhs.gemm(-1.0, &c.gp_l, &p_ext, 1.0);
            rhs.gemm(-1.0, &c.g0, &du, 1.0);
            let ybar = &c.s * rhs;
            let nb = backward_difference_weights(p);
            let mut nabla = &ybar * nb[0];
            for (j, w) in nb.iter().enumerate().take(p + 2).skip(1) {
                nabla.zip_apply(&z.rows(lay.y(j - 1).start, lay.n_y), |e, v| *e += w * v);
            }
            let mut du_new = du * (1.0 - c.alpha);
            du_new.gemm(c.alpha * c.cp, &self.l, &nabla, 1.0);
            out.rows_mut(y_new.start, lay.n_y).copy_from(&ybar);
            out.rows_mut(du_rows.start, du_rows.len())
                .copy_from(&du_new);
        }
        for j in 1..=p {
            out.rows_mut(lay.y(j).start, lay.n_y)
                .copy_from(&z.rows(lay.y(j - 1).start, lay.n_y));
        }
        out
    }
}
