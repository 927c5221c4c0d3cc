//! The coupled rotational oscillator of the study and what is known about it exactly: the
//! two slaves (`t2o`, `o2t`) built from the model registry, their linear blocks read through
//! the FMI interface, and the exact coupled solution (docs/methods.md §10.1).

use crate::analysis::{block_diag, LinearBlock, MonolithicReference};
use crate::error::CosimError;
use crate::master::CoupledSystem;
use crate::models::instantiate;
use crate::models::rotational_oscillator::{Method, OMEGA2TAU_ID, TAU2OMEGA_ID};
use crate::module::Module;
use crate::solvers::{expm, SolverSpec};
use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use nalgebra::{DMatrix, DVector};

/// Instance names of slave 1 (`tau2omega`) and slave 2 (`omega2tau`).
pub const MODULES: [&str; 2] = ["t2o", "o2t"];
/// The connections: torque to slave 1, speed to slave 2.
pub const CONNECTIONS: [(&str, &str); 2] = [("o2t.tau", "t2o.tau"), ("t2o.omega", "o2t.omega_in")];

/// The two slaves with default parameters, stepped by `method`, coupled.
pub fn coupled_pair(method: Method) -> Result<CoupledSystem, CosimError> {
    let solver = match method {
        Method::Exact => SolverSpec::Exact,
        Method::Euler => SolverSpec::Euler,
    };
    let params = BTreeMap::new();
    let mut modules: Vec<(String, Box<dyn Module>)> = Vec::with_capacity(2);
    for (name, id) in MODULES.iter().zip([TAU2OMEGA_ID, OMEGA2TAU_ID]) {
        modules.push((name.to_string(), instantiate(id, &params, &solver)?));
    }
    let connections: Vec<(String, String)> = CONNECTIONS
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    CoupledSystem::new(modules, &connections)
}

/// The coupled system's matrices and exact solution.
#[derive(Clone, Debug)]
pub struct Exact {
    /// Stacked block-diagonal `A` of the slaves.
    pub a: DMatrix<f64>,
    /// Stacked `B`.
    pub b: DMatrix<f64>,
    /// Stacked `C`.
    pub c: DMatrix<f64>,
    /// Stacked `D`.
    pub d: DMatrix<f64>,
    /// Coupling `u = L y` (rows: stacked inputs, columns: stacked outputs).
    pub l: DMatrix<f64>,
    /// `x′ = A* x`, `y = C* x` of the closed loop, and its start state.
    pub reference: MonolithicReference,
}

impl Exact {
    /// Reads the blocks of an initialised system (before any input is set in Step Mode).
    pub fn of(sys: &mut CoupledSystem) -> Result<Self, CosimError> {
        let mut blocks = Vec::with_capacity(sys.n_modules());
        for (_, s) in sys.modules_mut() {
            blocks.push(LinearBlock::from_subsystem(s)?);
        }
        let l = sys.graph().coupling_matrix();
        let reference = MonolithicReference::new(&blocks, &l)?;
        Ok(Exact {
            a: block_diag(&blocks, |b| &b.a),
            b: block_diag(&blocks, |b| &b.b),
            c: block_diag(&blocks, |b| &b.c),
            d: block_diag(&blocks, |b| &b.d),
            l,
            reference,
        })
    }

    /// The exact stacked state at `t` after the start, `e^{A* t} x0`.
    pub fn state_at(&self, t: f64) -> Option<DVector<f64>> {
        Some(expm(&(self.reference.a_star() * t))? * self.reference.x0())
    }
}
