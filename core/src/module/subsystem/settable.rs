//! [`StepModeSettable`]: which value references may be set in Step Mode (inputs and
//! tunable parameters), looked up without scanning the variables: the master sets every
//! input of every module at every macro-step. Built once, as descriptions are static.

use crate::module::{ModuleDescription, ValueRef};
use alloc::vec;
use alloc::vec::Vec;

/// Settability by value reference: `None` for a reference the module does not declare.
#[derive(Clone, Debug)]
pub(super) enum StepModeSettable {
    /// Indexed by the value reference (references below a small bound, as the built-in
    /// modules and most FMUs number them).
    Dense(Vec<Option<bool>>),
    /// Sorted by value reference, for references spread far apart.
    Sparse(Vec<(u32, bool)>),
}

impl StepModeSettable {
    /// The table of `desc`; where two variables share a reference, the first one counts
    /// (as [`ModuleDescription::variable_by_ref`] finds it).
    pub(super) fn of(desc: &ModuleDescription) -> Self {
        let vars = &desc.variables;
        let max = vars.iter().map(|v| v.value_ref.0 as usize).max();
        match max {
            Some(max) if max < 4 * vars.len() + 64 => {
                let mut table = vec![None; max + 1];
                for v in vars {
                    let entry = &mut table[v.value_ref.0 as usize];
                    entry.get_or_insert(v.settable_in_step_mode());
                }
                StepModeSettable::Dense(table)
            }
            _ => {
                let mut table: Vec<(u32, bool)> = vars
                    .iter()
                    .map(|v| (v.value_ref.0, v.settable_in_step_mode()))
                    .collect();
                // Stable: the first of equal references stays first and is kept.
                table.sort_by_key(|&(vr, _)| vr);
                table.dedup_by_key(|&mut (vr, _)| vr);
                StepModeSettable::Sparse(table)
            }
        }
    }

    /// Whether `vr` may be set in Step Mode; `None` if no variable has it.
    #[inline]
    pub(super) fn get(&self, vr: ValueRef) -> Option<bool> {
        match self {
            StepModeSettable::Dense(table) => table.get(vr.0 as usize).copied().flatten(),
            StepModeSettable::Sparse(table) => table
                .binary_search_by_key(&vr.0, |&(r, _)| r)
                .ok()
                .map(|i| table[i].1),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::module::{Causality, PortType, Variability, Variable};

    fn var(vr: u32, causality: Causality, variability: Variability) -> Variable {
        Variable {
            name: alloc::format!("v{vr}"),
            value_ref: ValueRef(vr),
            causality,
            variability,
            start: None,
            unit: alloc::string::String::new(),
            description: alloc::string::String::new(),
            port_type: PortType::Float64,
        }
    }

    #[test]
    fn agrees_with_scanning_the_variables_dense_and_sparse() {
        use Causality::*;
        use Variability::*;
        for base in [0, 1 << 30] {
            let variables = vec![
                var(base + 7, Input, Continuous),
                var(base + 2, Parameter, Tunable),
                var(base + 3, Parameter, Fixed),
                var(base + 5, Output, Continuous),
                // A second variable on an input's reference: the first one counts.
                var(base + 7, Output, Continuous),
            ];
            let desc = ModuleDescription {
                model_name: "m".into(),
                variables,
                capabilities: Default::default(),
                output_dependencies: Vec::new(),
            };
            let table = StepModeSettable::of(&desc);
            assert_eq!(matches!(table, StepModeSettable::Dense(_)), base == 0);
            for vr in (base..base + 10).chain([u32::MAX]) {
                let scanned = desc
                    .variable_by_ref(ValueRef(vr))
                    .map(|v| v.settable_in_step_mode());
                assert_eq!(table.get(ValueRef(vr)), scanned, "vr {vr}");
            }
        }
    }
}
