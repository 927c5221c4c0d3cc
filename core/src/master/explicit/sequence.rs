//! Who steps in which order within one explicit macro-step, and what early return asks
//! of the modules (docs/methods.md, events).
//!
//! Modules are instantiated with `earlyReturnAllowed = mightReturnEarlyFromDoStep`
//! ([`crate::master::CoupledSystem::new`]). A module that may return early forces shortened
//! steps on everyone, so every module must declare `canHandleVariableCommunicationStepSize`
//! (refused before the first step otherwise). Jacobi steps the modules that may return
//! early first, so with a single such module no other module has moved when it returns
//! early and no rollback is needed; Gauss-Seidel avoids it when that module comes first in
//! the sequence. Otherwise an early return rejects the attempt and the driver rolls back.

use crate::error::MasterError;
use crate::master::CoupledSystem;
use alloc::collections::BTreeSet;
use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

/// The stepping order of one run.
#[derive(Clone, Debug)]
pub(super) struct StepOrder {
    /// Module indices in stepping order.
    order: Vec<usize>,
    /// Gauss-Seidel: inputs from modules that already stepped are interpolated.
    pub(super) interpolate: bool,
    /// Whether an early return may come after another module stepped (a rollback).
    may_roll_back: bool,
}

impl StepOrder {
    /// Checks what early return needs and plans the order. `sequence` is the Gauss-Seidel
    /// order (`None` for Jacobi).
    pub(super) fn new(
        sys: &CoupledSystem,
        sequence: Option<&[usize]>,
    ) -> Result<Self, MasterError> {
        let n = sys.n_modules();
        let early: Vec<bool> = (0..n)
            .map(|m| sys.instantiate_options(m).early_return_allowed)
            .collect();
        if let Some(first) = early.iter().position(|&e| e) {
            for m in 0..n {
                if !sys
                    .subsystem(m)
                    .description()
                    .capabilities
                    .can_handle_variable_communication_step_size
                {
                    return Err(MasterError::MissingCapability {
                        module: sys.name(m).into(),
                        capability: "canHandleVariableCommunicationStepSize",
                        needed_by: format!(
                            "early return of module `{}` (every module must stop at its event times)",
                            sys.name(first)
                        ),
                    });
                }
            }
        }
        let count = early.iter().filter(|&&e| e).count();
        let (order, may_roll_back) = match sequence {
            None => {
                let mut order: Vec<usize> = (0..n).filter(|&m| early[m]).collect();
                order.extend((0..n).filter(|&m| !early[m]));
                (order, count >= 2)
            }
            Some(seq) => {
                let later_early = seq
                    .iter()
                    .skip(1)
                    .any(|&m| early.get(m).copied().unwrap_or(false));
                (seq.to_vec(), count >= 2 || later_early)
            }
        };
        Ok(StepOrder {
            order,
            interpolate: sequence.is_some(),
            may_roll_back,
        })
    }

    /// Module indices in stepping order.
    pub(super) fn modules(&self) -> &[usize] {
        &self.order
    }

    /// Whether an attempt may have to be rolled back (the driver then checkpoints).
    pub(super) fn may_roll_back(&self) -> bool {
        self.may_roll_back
    }
}

/// No module index twice (the first repeated one is named).
fn check_distinct(sequence: &[usize]) -> Result<(), MasterError> {
    let mut seen = BTreeSet::new();
    match sequence.iter().find(|&&m| !seen.insert(m)) {
        Some(m) => Err(MasterError::InvalidSettings(format!(
            "Gauss-Seidel sequence lists module index {m} twice"
        ))),
        None => Ok(()),
    }
}

/// Every module exactly once (indices into `names`).
pub(super) fn check_sequence(sequence: &[usize], names: &[String]) -> Result<(), MasterError> {
    check_distinct(sequence)?;
    if let Some(m) = sequence.iter().find(|&&m| m >= names.len()) {
        return Err(MasterError::InvalidSettings(format!(
            "Gauss-Seidel sequence names module index {m}, but there are only {} modules",
            names.len()
        )));
    }
    let mut listed = vec![false; names.len()];
    sequence.iter().for_each(|&m| listed[m] = true);
    if let Some(missing) = listed.iter().position(|&l| !l) {
        return Err(MasterError::InvalidSettings(format!(
            "Gauss-Seidel sequence does not include module `{}`",
            names[missing]
        )));
    }
    Ok(())
}
