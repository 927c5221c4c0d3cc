//! `MassChain.Cut`: the cut element between two segments of the mass chain (eqn 38).

use super::spring_damper;
use crate::models::entry::{ModelEntry, ParameterList};
use crate::models::layout::PortSpec;
use crate::models::ode_module::{OdeModel, OdeModule};
use crate::models::parameters::{ParameterSet, Range::*, Slot};
use crate::models::solver_choice::default_only;
use crate::module::{DependencyKind, Module, ModuleError, Variable};
use crate::solvers::{Integrator, Rk4};
use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

/// Model id.
pub const CUT_ID: &str = "MassChain.Cut";

/// The cut element's spring-damper.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cut {
    /// c_c in N/m. Default 1e7.
    pub c: f64,
    /// d_c in N·s/m. Default 1e4.
    pub d: f64,
    /// C_c in N/m³. Default 1e14.
    pub c3: f64,
    /// D_c in N·s³/m³. Default 1e2.
    pub d3: f64,
}

impl Default for Cut {
    fn default() -> Self {
        Cut {
            c: 1e7,
            d: 1e4,
            c3: 1e14,
            d3: 1e2,
        }
    }
}

impl Cut {
    /// λ for the left and right boundary masses (eqn 38).
    pub fn force(&self, x_left: f64, v_left: f64, x_right: f64, v_right: f64) -> f64 {
        spring_damper(
            [self.c, self.d, self.c3, self.d3],
            x_right - x_left,
            v_right - v_left,
        )
    }
}

impl ParameterSet for Cut {
    const MODEL_ID: &'static str = CUT_ID;
    const PARAMETERS: usize = 4;

    fn with_slots<R>(&mut self, f: impl FnOnce(&mut [Slot<'_>]) -> R) -> R {
        #[rustfmt::skip] // a table: one slot a row
        let mut slots = [
            ("cc", Finite, "N/m",     "linear stiffness c_c of the cut",  &mut self.c),
            ("dc", Finite, "N*s/m",   "linear damping d_c of the cut",    &mut self.d),
            ("Cc", Finite, "N/m3",    "cubic stiffness C_c of the cut",   &mut self.c3),
            ("Dc", Finite, "N*s3/m3", "cubic damping D_c of the cut",     &mut self.d3),
        ];
        f(&mut slots)
    }
}

impl OdeModel for Cut {
    fn inputs(&self) -> Vec<PortSpec> {
        vec![
            PortSpec::new(
                "x_left",
                "m",
                0.0,
                "position of the last mass of the left segment",
            ),
            PortSpec::new(
                "v_left",
                "m/s",
                0.0,
                "velocity of the last mass of the left segment",
            ),
            PortSpec::new(
                "x_right",
                "m",
                0.0,
                "position of the first mass of the right segment",
            ),
            PortSpec::new(
                "v_right",
                "m/s",
                0.0,
                "velocity of the first mass of the right segment",
            ),
        ]
    }
    fn outputs(&self) -> Vec<PortSpec> {
        vec![PortSpec::new(
            "lambda",
            "N",
            0.0,
            "cut force (+ on the left, - on the right)",
        )]
    }
    fn feedthrough(&self) -> Vec<(usize, usize, DependencyKind)> {
        (0..4).map(|i| (0, i, DependencyKind::Dependent)).collect()
    }
    fn rhs(&self, _t: f64, _x: &[f64], _u: &[f64], _dx: &mut [f64]) {}
    fn output(&self, _t: f64, _x: &[f64], u: &[f64], y: &mut [f64]) {
        y[0] = self.force(u[0], u[1], u[2], u[3]);
    }
}

/// The cut element from scenario parameters (no states to integrate).
pub fn instantiate(params: &BTreeMap<String, f64>) -> Result<Box<dyn Module>, ModuleError> {
    let p = Cut::from_map(params)?;
    let none = Integrator::Rk4(Rk4 { max_step: f64::MAX });
    Ok(Box::new(OdeModule::new(p, none)?))
}

fn variables() -> Vec<Variable> {
    Cut::catalog()
}

/// Registry entry.
pub(in crate::models) const ENTRY: ModelEntry = ModelEntry {
    id: CUT_ID,
    summary: "Seed 002 Example 2, cut element of the mass chain (eqn 38): lambda = cc*dx + dc*dv \
              + Cc*dx^3 + Dc*dv^3 between the last mass of one segment and the first of the \
              next (algebraic, direct feedthrough).",
    parameters: ParameterList::Fixed(variables),
    solvers: default_only,
    construct: |a| instantiate(a.parameters),
};
