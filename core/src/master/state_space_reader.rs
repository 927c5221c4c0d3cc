//! [`StateSpaceReader`]: the one place that reads a module's Jacobians
//! `A = ∂der(x)/∂x`, `B = ∂der(x)/∂u`, `C = ∂y/∂x`, `D = ∂y/∂u` through FMI directional
//! derivatives with unit seeds (docs/methods.md §7.1), into buffers allocated once. The
//! corrector reads gains with it every step; the analysis reads linear blocks with it.

use crate::module::{Causality, ModuleError, Subsystem, ValueRef};
use alloc::vec;
use alloc::vec::Vec;
use nalgebra::DMatrix;

/// Reads `A = ∂der(x)/∂x`, `B = ∂der(x)/∂u`, `C = ∂y/∂x`, `D = ∂y/∂u` of one module with
/// one directional derivative per state and input (unit seeds), into buffers allocated once.
/// Inputs and outputs are in stacking order, so the blocks line up with `G`'s.
#[derive(Clone, Debug)]
pub struct StateSpaceReader {
    unknowns: Vec<ValueRef>,
    knowns: Vec<ValueRef>,
    seed: Vec<f64>,
    sens: Vec<f64>,
    n: usize,
    /// `∂der(x)/∂x`.
    pub a: DMatrix<f64>,
    /// `∂der(x)/∂u`.
    pub b: DMatrix<f64>,
    /// `∂y/∂x`.
    pub c: DMatrix<f64>,
    /// `∂y/∂u`.
    pub d: DMatrix<f64>,
}

impl StateSpaceReader {
    /// Buffers for `sub`: states in [`crate::module::ModuleDescription::states`] order,
    /// inputs and outputs in declaration order (their stacking order in a coupled system).
    pub fn new(sub: &Subsystem) -> Self {
        let desc = sub.description();
        let states: Vec<(ValueRef, ValueRef)> = desc
            .states()
            .iter()
            .map(|(x, d)| (x.value_ref, d.value_ref))
            .collect();
        let inputs: Vec<ValueRef> = desc
            .with_causality(Causality::Input)
            .map(|v| v.value_ref)
            .collect();
        let outputs: Vec<ValueRef> = desc
            .with_causality(Causality::Output)
            .map(|v| v.value_ref)
            .collect();
        let (n, nu, ny) = (states.len(), inputs.len(), outputs.len());
        StateSpaceReader {
            unknowns: states
                .iter()
                .map(|s| s.1)
                .chain(outputs.iter().copied())
                .collect(),
            knowns: states
                .iter()
                .map(|s| s.0)
                .chain(inputs.iter().copied())
                .collect(),
            seed: vec![0.0; n + nu],
            sens: vec![0.0; n + ny],
            n,
            a: DMatrix::zeros(n, n),
            b: DMatrix::zeros(n, nu),
            c: DMatrix::zeros(ny, n),
            d: DMatrix::zeros(ny, nu),
        }
    }

    /// Number of states.
    pub fn states(&self) -> usize {
        self.n
    }

    /// Value references of the states, in the order of the matrices' state rows/columns.
    pub fn state_value_refs(&self) -> &[ValueRef] {
        &self.knowns[..self.n]
    }

    /// Reads the four matrices at the subsystem's current point (Step Mode, no input set
    /// since the last step: FMI forbids reading after a set).
    pub fn read(&mut self, sub: &mut Subsystem) -> Result<(), ModuleError> {
        let n = self.n;
        for j in 0..self.seed.len() {
            self.seed[j] = 1.0;
            let r = sub.directional_derivative(
                &self.unknowns,
                &self.knowns,
                &self.seed,
                &mut self.sens,
            );
            self.seed[j] = 0.0;
            r?;
            for (i, s) in self.sens.iter().enumerate() {
                match (i < n, j < n) {
                    (true, true) => self.a[(i, j)] = *s,
                    (true, false) => self.b[(i, j - n)] = *s,
                    (false, true) => self.c[(i - n, j)] = *s,
                    (false, false) => self.d[(i - n, j - n)] = *s,
                }
            }
        }
        Ok(())
    }
}
