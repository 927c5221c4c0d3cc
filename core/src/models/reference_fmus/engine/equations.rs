//! `x-exposesEquations` of a [`RefFmu`] whose model is continuous equations only: the
//! model's `calculateValues` and `getDerivatives` run on a scratch copy of the value
//! slots with the point's states and inputs, so the instance is unchanged.

use super::{RefFmu, RefModel};
use crate::module::{Causality, ExposedEquations, ModuleError};

impl<M: RefModel> RefFmu<M> {
    /// The scratch slots at `(x, u)`: a copy of the current values (parameters included)
    /// with the inputs and states replaced, and the calculated slots recomputed.
    fn load_point(&mut self, x: &[f64], u: &[f64]) -> Result<(), ModuleError> {
        let inputs = self
            .desc
            .variables
            .iter()
            .filter(|v| v.causality == Causality::Input)
            .count();
        if x.len() != M::NX || u.len() != inputs {
            return Err(ModuleError::invalid(
                "exposed equations: states or inputs of the wrong length",
            ));
        }
        self.scratch.clone_from(&self.core.values);
        let input_slots = self
            .desc
            .variables
            .iter()
            .enumerate()
            .filter(|(_, v)| v.causality == Causality::Input);
        for ((slot, _), value) in input_slots.zip(u) {
            self.scratch[slot] = *value;
        }
        M::set_states(&mut self.scratch, x);
        M::calculate(&mut self.scratch);
        Ok(())
    }
}

impl<M: RefModel> ExposedEquations for RefFmu<M> {
    fn state_count(&self) -> usize {
        M::NX
    }

    fn current_states(&self, x: &mut [f64]) {
        M::states(&self.core.values, x);
    }

    fn rhs(&mut self, _t: f64, x: &[f64], u: &[f64], dx: &mut [f64]) -> Result<(), ModuleError> {
        if dx.len() != M::NX {
            return Err(ModuleError::invalid(
                "exposed equations: derivatives of the wrong length",
            ));
        }
        self.load_point(x, u)?;
        M::derivatives(&mut self.scratch, dx);
        Ok(())
    }

    fn outputs(&mut self, _t: f64, x: &[f64], u: &[f64], y: &mut [f64]) -> Result<(), ModuleError> {
        let is_output = |v: &crate::module::Variable| v.causality == Causality::Output;
        if self.desc.variables.iter().filter(|v| is_output(v)).count() != y.len() {
            return Err(ModuleError::invalid(
                "exposed equations: outputs of the wrong length",
            ));
        }
        self.load_point(x, u)?;
        let output_slots = self.desc.variables.iter().enumerate();
        let output_slots = output_slots.filter(|(_, v)| is_output(v));
        for ((slot, _), out) in output_slots.zip(y.iter_mut()) {
            *out = self.scratch[slot];
        }
        Ok(())
    }
}
