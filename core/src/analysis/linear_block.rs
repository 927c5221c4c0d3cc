//! [`LinearBlock`]: the matrices `(A, B, C, D)` and current state of one linear(ised)
//! module, read through the FMI interface (seed-000 digest §2.1, eqn (7)).

use crate::module::{ModuleError, ModuleErrorKind, Subsystem, ValueRef};
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
        let states: Vec<(ValueRef, ValueRef)> = desc
            .states()
            .iter()
            .map(|(x, d)| (x.value_ref, d.value_ref))
            .collect();
        let inputs: Vec<ValueRef> = desc.inputs().iter().map(|v| v.value_ref).collect();
        let outputs: Vec<ValueRef> = desc.outputs().iter().map(|v| v.value_ref).collect();
        let (n, m, q) = (states.len(), inputs.len(), outputs.len());
        let unknowns: Vec<ValueRef> = states
            .iter()
            .map(|s| s.1)
            .chain(outputs.iter().copied())
            .collect();
        let knowns: Vec<ValueRef> = states
            .iter()
            .map(|s| s.0)
            .chain(inputs.iter().copied())
            .collect();
        let mut jac = DMatrix::zeros(n + q, n + m);
        let mut seed = vec![0.0; n + m];
        let mut sens = vec![0.0; n + q];
        for j in 0..n + m {
            seed[j] = 1.0;
            sub.directional_derivative(&unknowns, &knowns, &seed, &mut sens)?;
            seed[j] = 0.0;
            jac.column_mut(j).copy_from_slice(&sens);
        }
        let mut x0 = vec![0.0; n];
        let xs: Vec<ValueRef> = states.iter().map(|s| s.0).collect();
        sub.get_float64(&xs, &mut x0)?;
        Ok(LinearBlock {
            a: jac.view((0, 0), (n, n)).into_owned(),
            b: jac.view((0, n), (n, m)).into_owned(),
            c: jac.view((n, 0), (q, n)).into_owned(),
            d: jac.view((n, n), (q, m)).into_owned(),
            x0: DVector::from_vec(x0),
        })
    }
}
