//! [`LinearBlock`]: the matrices `(A, B, C, D)` and current state of one linear(ised)
//! module, read through the FMI interface (docs/methods.md §2.3, paper eqn (7)) by the master's
//! [`StateSpaceReader`], the same reader the model-based corrector uses.

use crate::master::StateSpaceReader;
use crate::module::{ModuleError, ModuleErrorKind, Subsystem};
use nalgebra::{DMatrix, DVector};

/// `x' = A x + B u, y = C x + D u` with the state `x0` at which it was read.
#[derive(Clone, Debug, PartialEq)]
pub struct LinearBlock {
    /// n × n.
    pub a: DMatrix<f64>,
    /// n × m.
    pub b: DMatrix<f64>,
    /// q × n.
    pub c: DMatrix<f64>,
    /// q × m.
    pub d: DMatrix<f64>,
    /// Current states (n).
    pub x0: DVector<f64>,
}

/// The block-diagonal stack of one matrix of every block (`pick`), in block order: the
/// stacked `A`, `B`, `C` or `D` of the coupled system.
pub fn block_diag(
    blocks: &[LinearBlock],
    pick: impl Fn(&LinearBlock) -> &DMatrix<f64>,
) -> DMatrix<f64> {
    let rows = blocks.iter().map(|b| pick(b).nrows()).sum();
    let cols = blocks.iter().map(|b| pick(b).ncols()).sum();
    let mut out = DMatrix::zeros(rows, cols);
    let (mut r, mut c) = (0, 0);
    for b in blocks {
        let m = pick(b);
        out.view_mut((r, c), m.shape()).copy_from(m);
        r += m.nrows();
        c += m.ncols();
    }
    out
}

impl LinearBlock {
    /// Whether the shapes fit: `A` n × n, `B` n × m, `C` q × n, `D` q × m, `x0` n.
    pub fn is_consistent(&self) -> bool {
        let (n, m, q) = (self.a.nrows(), self.b.ncols(), self.c.nrows());
        self.a.ncols() == n
            && self.b.nrows() == n
            && self.c.ncols() == n
            && self.d.shape() == (q, m)
            && self.x0.len() == n
    }

    /// The block without states, inputs or outputs (a placeholder; allocates nothing).
    pub fn empty() -> Self {
        LinearBlock {
            a: DMatrix::zeros(0, 0),
            b: DMatrix::zeros(0, 0),
            c: DMatrix::zeros(0, 0),
            d: DMatrix::zeros(0, 0),
            x0: DVector::zeros(0),
        }
    }

    /// Reads the Jacobians by directional derivatives with unit seeds (one call per state
    /// and input) and the states by `get_float64`. Needs `x-exposesStates` and
    /// `providesDirectionalDerivatives`; the subsystem must be in Initialization or Step
    /// Mode (FMI allows directional derivatives there). Inputs and outputs are in
    /// declaration order, states in [`crate::module::ModuleDescription::states`] order.
    /// In Step Mode call it before setting inputs (FMI forbids a get after a set).
    pub fn from_subsystem(sub: &mut Subsystem) -> Result<LinearBlock, ModuleError> {
        let desc = sub.description();
        let caps = &desc.capabilities;
        if !caps.x_exposes_states {
            return Err(ModuleError::error(ModuleErrorKind::Unsupported(
                "x-exposesStates",
            )));
        }
        if !caps.provides_directional_derivatives {
            return Err(ModuleError::error(ModuleErrorKind::Unsupported(
                "providesDirectionalDerivatives",
            )));
        }
        let mut reader = StateSpaceReader::new(sub);
        reader.read(sub)?;
        let mut x0 = DVector::zeros(reader.states());
        sub.get_float64(reader.state_value_refs(), x0.as_mut_slice())?;
        Ok(LinearBlock {
            a: reader.a,
            b: reader.b,
            c: reader.c,
            d: reader.d,
            x0,
        })
    }
}
