//! `ReferenceFMU.Feedthrough`: every output equals its input, at once (direct feedthrough,
//! `dependenciesKind = constant`; Reference FMUs `Feedthrough/model.c`).
//!
//! Only the Float64 part is modelled: `Float64_continuous_input → Float64_continuous_output`
//! and `Float64_discrete_input → Float64_discrete_output`, plus the two Float64 parameters
//! (fixed and tunable, start 0) that have no effect on the outputs, as in the original.
//! The Float32, Int8…UInt64, Boolean, String, Binary and Enumeration pairs of the
//! Reference FMU are omitted: the module interface carries Float64 only. Value references
//! are the Reference FMU's, so the omitted ones leave gaps.
//!
//! Two Feedthroughs connected in a ring form an algebraic loop with loop gain 1 (singular
//! `I − D·L`); the coupling graph refuses such a scenario at validation.
//!
//! Value references: time 0, Float64_fixed_parameter 5, Float64_tunable_parameter 6,
//! Float64_continuous_input 7, Float64_continuous_output 8, Float64_discrete_input 9,
//! Float64_discrete_output 10.

use super::engine::RefModel;
use super::{base_capabilities, VarRow};
use crate::module::{Capabilities, Causality::*, Variability::*};

const CONTINUOUS_IN: usize = 3;
const CONTINUOUS_OUT: usize = 4;
const DISCRETE_IN: usize = 5;
const DISCRETE_OUT: usize = 6;

/// The Feedthrough model.
pub(super) struct Feedthrough;

impl RefModel for Feedthrough {
    const FIXED_SOLVER_STEP: f64 = 0.1;

    const MODEL_NAME: &'static str = super::FEEDTHROUGH_ID;
    const EXPOSES_EQUATIONS: bool = true;
    #[rustfmt::skip] // a table: one variable a row
    const VARIABLES: &'static [VarRow] = &[
        ("Float64_fixed_parameter",   5,  Parameter, Fixed,      Some(0.0), "", "fixed parameter (no effect)"),
        ("Float64_tunable_parameter", 6,  Parameter, Tunable,    Some(0.0), "", "tunable parameter (no effect)"),
        ("Float64_continuous_input",  7,  Input,     Continuous, Some(0.0), "", "continuous input"),
        ("Float64_continuous_output", 8,  Output,    Continuous, None,      "", "equals the continuous input"),
        ("Float64_discrete_input",    9,  Input,     Discrete,   Some(0.0), "", "discrete input"),
        ("Float64_discrete_output",   10, Output,    Discrete,   None,      "", "equals the discrete input"),
    ];
    const FEEDTHROUGH: &'static [(u32, u32)] = &[(8, 7), (10, 9)];

    fn capabilities() -> Capabilities {
        Capabilities {
            has_event_mode: true,
            ..base_capabilities(Self::FIXED_SOLVER_STEP)
        }
    }

    fn calculate(v: &mut [f64]) {
        v[CONTINUOUS_OUT] = v[CONTINUOUS_IN];
        v[DISCRETE_OUT] = v[DISCRETE_IN];
    }
}
