//! [`PropagationMatrix`]: `z_{n+1} = Φ z_n` for linear blocks solved exactly (see
//! docs/methods.md §9.1 paper eqn 26), built column by column from the linear step (`Φ e_j = step(e_j)`,
//! §9.1), and the padded reference matrix `Φ*` (§10.1, paper eqn 37).

use super::method::{Layout, PropagationMethod};
use super::step::{check_shapes, StepOperator};
use crate::analysis::{LinearBlock, MonolithicReference};
use crate::error::MasterError;
use crate::solvers::{expm, Discretization};
use alloc::format;
use nalgebra::{DMatrix, DVector};

/// Φ of one method, coupling and macro-step, with the step it was built from.
#[derive(Clone, Debug)]
pub struct PropagationMatrix {
    op: StepOperator,
    phi: DMatrix<f64>,
    h: f64,
}

impl PropagationMatrix {
    /// Discretises every block exactly over `h` (augmented exponential, no `A⁻¹`; docs/methods.md
    /// §3.2) and assembles Φ. `l`: rows are the stacked inputs, columns the stacked
    /// outputs, blocks stacked in slice order. Errors: shapes that do not fit, an order
    /// above 4, a bad Gauss-Seidel sequence, correction with Gauss-Seidel, a non-positive
    /// `h`, a failed exponential ([`MasterError::InvalidSettings`]) or a singular
    /// `I − G_p L` ([`MasterError::SingularMatrix`]).
    pub fn build(
        blocks: &[LinearBlock],
        l: &DMatrix<f64>,
        method: &PropagationMethod,
        h: f64,
    ) -> Result<PropagationMatrix, MasterError> {
        Self::build_reusing(blocks, l, method, h, &[])
    }

    /// [`build`](Self::build), taking `known[i]` as block `i`'s discretisation when it was
    /// made for `h` and the method's order (a map whose point changes one block discretises
    /// only that one). The caller vouches that `known[i]` belongs to `blocks[i]`.
    pub fn build_reusing(
        blocks: &[LinearBlock],
        l: &DMatrix<f64>,
        method: &PropagationMethod,
        h: f64,
        known: &[Option<&Discretization>],
    ) -> Result<PropagationMatrix, MasterError> {
        let op = StepOperator::new(blocks, l, method, h, known)?;
        let dim = op.layout().dim();
        // Column j of Φ is step(e_j); the step takes all unit vectors in one pass.
        let phi = op.apply(&DMatrix::identity(dim, dim));
        Ok(PropagationMatrix { op, phi, h })
    }

    /// Φ (`layout().dim()` square).
    pub fn phi(&self) -> &DMatrix<f64> {
        &self.phi
    }

    /// Where x, the output history and δu sit in z.
    pub fn layout(&self) -> Layout {
        self.op.layout()
    }

    /// The macro-step ΔT in s.
    pub fn macro_step(&self) -> f64 {
        self.h
    }

    /// One macro-step evaluated directly (not through Φ); equals `Φ z` to rounding.
    pub fn step(&self, z: &DVector<f64>) -> DVector<f64> {
        let z = DMatrix::from_column_slice(z.len(), 1, z.as_slice());
        DVector::from_column_slice(self.op.apply(&z).as_slice())
    }

    /// 1-norm condition number of the balanced `I − G_p L` (1 without correction; balancing
    /// removes the unit scaling between metres and newtons): large values mean
    /// the corrected outputs, and so Φ, carry amplified rounding.
    pub fn corrector_condition(&self) -> f64 {
        self.op.corrector_condition()
    }

    /// z for the state `x` and the output history `history[j] = y_{n−j}` (newest first,
    /// `order + 1` entries), δu = 0. `None` if the lengths do not fit the layout.
    pub fn initial_vector(
        &self,
        x: &DVector<f64>,
        history: &[DVector<f64>],
    ) -> Option<DVector<f64>> {
        let lay = self.layout();
        if x.len() != lay.n_x
            || history.len() != lay.order + 1
            || history.iter().any(|y| y.len() != lay.n_y)
        {
            return None;
        }
        let mut z = DVector::zeros(lay.dim());
        z.rows_mut(0, lay.n_x).copy_from(x);
        for (j, y) in history.iter().enumerate() {
            z.rows_mut(lay.y(j).start, lay.n_y).copy_from(y);
        }
        Some(z)
    }
}

/// The padded reference matrix `Φ*` for `layout`: `x ← A*_d x`, `y_{n+1} ← C* A*_d x`
/// (eqn 37) and zeros everywhere else (history and δu rows/columns; only the current
/// outputs enter the error metrics, docs/methods.md §10.1).
pub fn reference_matrix(
    blocks: &[LinearBlock],
    l: &DMatrix<f64>,
    layout: &Layout,
    h: f64,
) -> Result<DMatrix<f64>, MasterError> {
    let (n_x, n_u, n_y) = check_shapes(blocks, l)?;
    if (n_x, n_u, n_y) != (layout.n_x, layout.n_u, layout.n_y) {
        return Err(MasterError::InvalidSettings(format!(
            "reference matrix: layout ({}, {}, {}) does not fit the blocks ({n_x}, {n_u}, {n_y})",
            layout.n_x, layout.n_u, layout.n_y
        )));
    }
    let r = MonolithicReference::new(blocks, l)?;
    let ad = expm(&(r.a_star() * h)).ok_or_else(|| {
        MasterError::InvalidSettings(format!(
            "reference matrix: exponential failed at ΔT = {h} s"
        ))
    })?;
    let mut phi = DMatrix::zeros(layout.dim(), layout.dim());
    phi.view_mut((0, 0), (n_x, n_x)).copy_from(&ad);
    phi.view_mut((layout.y(0).start, 0), (n_y, n_x))
        .copy_from(&(r.c_star() * &ad));
    Ok(phi)
}
