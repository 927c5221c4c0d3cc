//! [`LinearBlock`]: the matrices `(A, B, C, D)` and current state of one linear(ised)
//! module, read through the FMI interface (seed-000 digest §2.1, eqn (7)).

use crate::module::{Causality, ModuleError, ModuleErrorKind, Subsystem, ValueRef};
use alloc::vec;
use alloc::vec::Vec;
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

impl LinearBlock {
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
        // Knowns: states then inputs; unknowns: derivatives then outputs.
        let states = desc.states();
        let (n, m) = (states.len(), desc.with_causality(Causality::Input).count());
        let mut knowns: Vec<ValueRef> = states.iter().map(|(x, _)| x.value_ref).collect();
        knowns.extend(desc.with_causality(Causality::Input).map(|v| v.value_ref));
        let mut unknowns: Vec<ValueRef> = states.iter().map(|(_, d)| d.value_ref).collect();
        unknowns.extend(desc.with_causality(Causality::Output).map(|v| v.value_ref));
        let q = unknowns.len() - n;
        let mut jac = DMatrix::zeros(n + q, n + m);
        let mut seed = vec![0.0; n + m];
        for j in 0..n + m {
            seed[j] = 1.0;
            sub.directional_derivative(
                &unknowns,
                &knowns,
                &seed,
                jac.column_mut(j).as_mut_slice(),
            )?;
            seed[j] = 0.0;
        }
        let mut x0 = DVector::zeros(n);
        sub.get_float64(&knowns[..n], x0.as_mut_slice())?;
        Ok(LinearBlock {
            a: jac.view((0, 0), (n, n)).into_owned(),
            b: jac.view((0, n), (n, m)).into_owned(),
            c: jac.view((n, 0), (q, n)).into_owned(),
            d: jac.view((n, n), (q, m)).into_owned(),
            x0,
        })
    }
}
