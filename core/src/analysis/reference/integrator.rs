//! [`ReferenceIntegrator`]: how the reference integrates the coupled equations, a seam so
//! a stiff method (variable-step BDF) can replace the default [`TightDopri45`] for stiff
//! scenarios without touching the rest.

use crate::solvers::{Bdf, Dopri45, OdeSystem, SolverError, Workspace};

/// Relative tolerance of the default reference integrator.
pub const REFERENCE_RTOL: f64 = 1e-10;
/// Absolute tolerance of the default reference integrator.
pub const REFERENCE_ATOL: f64 = 1e-12;

/// An integrator that keeps its own state between calls (work vectors, adaptive step).
pub trait ReferenceIntegrator: Send {
    /// Advances `x` from `t0` to `t1 > t0` under `system`, landing exactly on `t1`.
    fn integrate(
        &mut self,
        system: &mut dyn OdeSystem,
        t0: f64,
        t1: f64,
        x: &mut [f64],
    ) -> Result<(), SolverError>;

    /// What it is, for reports (e.g. `dopri45 rtol 1e-10 atol 1e-12`).
    fn describe(&self) -> alloc::string::String;
}

/// Dormand–Prince 5(4) at tight tolerances: the default for non-stiff scenarios. Its
/// adaptive step carries over from one call to the next.
#[derive(Clone, Debug)]
pub struct TightDopri45 {
    method: Dopri45,
    ws: Workspace,
}

impl TightDopri45 {
    /// For `n` stacked states at [`REFERENCE_RTOL`] and [`REFERENCE_ATOL`].
    pub fn new(n: usize) -> Self {
        Self::with_tolerances(n, REFERENCE_RTOL, REFERENCE_ATOL)
    }

    /// For `n` stacked states at the given tolerances.
    pub fn with_tolerances(n: usize, rtol: f64, atol: f64) -> Self {
        TightDopri45 {
            method: Dopri45 { rtol, atol },
            ws: Workspace::new(n),
        }
    }
}

impl ReferenceIntegrator for TightDopri45 {
    fn integrate(
        &mut self,
        system: &mut dyn OdeSystem,
        t0: f64,
        t1: f64,
        x: &mut [f64],
    ) -> Result<(), SolverError> {
        self.method
            .integrate(system, t0, t1, x, &mut self.ws)
            .map(|_| ())
    }

    fn describe(&self) -> alloc::string::String {
        alloc::format!(
            "dopri45 rtol {:e} atol {:e}",
            self.method.rtol,
            self.method.atol
        )
    }
}

/// Relative tolerance of the stiff reference integrator (BDF's cost grows fast below it).
pub const STIFF_REFERENCE_RTOL: f64 = 1e-9;

/// The variable-order BDF at tight tolerances, for scenarios with stiff modules (those
/// that integrate with BDF themselves, docs/methods.md §14.13), where an explicit method
/// would need steps of the stiffest time scale.
#[derive(Clone, Debug)]
pub struct TightBdf {
    method: Bdf,
    ws: Workspace,
}

impl TightBdf {
    /// For `n` stacked states at [`STIFF_REFERENCE_RTOL`] and [`REFERENCE_ATOL`].
    pub fn new(n: usize) -> Self {
        TightBdf {
            method: Bdf {
                rtol: STIFF_REFERENCE_RTOL,
                atol: alloc::vec![REFERENCE_ATOL],
            },
            ws: Workspace::new(n),
        }
    }
}

impl ReferenceIntegrator for TightBdf {
    fn integrate(
        &mut self,
        system: &mut dyn OdeSystem,
        t0: f64,
        t1: f64,
        x: &mut [f64],
    ) -> Result<(), SolverError> {
        self.method
            .integrate(system, t0, t1, x, &mut self.ws)
            .map(|_| ())
    }

    fn describe(&self) -> alloc::string::String {
        alloc::format!("bdf rtol {:e} atol {:e}", self.method.rtol, REFERENCE_ATOL)
    }
}
