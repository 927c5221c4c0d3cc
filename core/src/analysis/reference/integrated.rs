//! [`IntegratedReference`]: the coupled equations integrated as one system at tight
//! tolerance and sampled at whatever communication points the run records, in increasing
//! order (docs/methods.md §10.7). Each call integrates from the last point reached to the
//! new one, landing on it exactly, so fixed, variable and event-shortened steps are served
//! alike.

use super::{CoupledEquations, ReferenceError, ReferenceIntegrator};
use crate::solvers::OdeSystem;
use alloc::boxed::Box;
use alloc::vec::Vec;

/// The coupled equations with their integrator, the time reached and the states there.
pub struct IntegratedReference {
    equations: CoupledEquations,
    integrator: Box<dyn ReferenceIntegrator>,
    t: f64,
    x: Vec<f64>,
    y: Vec<f64>,
}

impl IntegratedReference {
    /// Starts at the equations' start time and states; the outputs there are evaluated
    /// at once (a failing module is reported here, before any step).
    pub fn new(
        mut equations: CoupledEquations,
        integrator: Box<dyn ReferenceIntegrator>,
    ) -> Result<Self, ReferenceError> {
        let t = equations.start_time();
        let x = equations.start_states().to_vec();
        let y = equations.outputs(t, &x)?.to_vec();
        Ok(IntegratedReference {
            equations,
            integrator,
            t,
            x,
            y,
        })
    }

    /// Integrates on to `t` (not before the time reached) and returns the stacked outputs
    /// `y*(t)`. Asking for the time reached again returns the same values. After an error
    /// the states are those of the failed attempt: do not advance further.
    pub fn advance_to(&mut self, t: f64) -> Result<&[f64], ReferenceError> {
        if t < self.t || t.is_nan() {
            return Err(ReferenceError::TimeBackwards { t, reached: self.t });
        }
        // A system of algebraic modules only has outputs and nothing to integrate.
        if t > self.t && !self.x.is_empty() {
            let mut system = Coupled {
                equations: &mut self.equations,
                failure: None,
            };
            let r = self
                .integrator
                .integrate(&mut system, self.t, t, &mut self.x);
            // A module's own error explains a non-finite derivative better than the
            // integrator's "state became non-finite".
            if let Some(e) = system.failure {
                return Err(e);
            }
            r.map_err(ReferenceError::Integration)?;
        }
        if t > self.t {
            self.t = t;
            self.y.copy_from_slice(self.equations.outputs(t, &self.x)?);
        }
        Ok(&self.y)
    }

    /// Time reached, in s.
    pub fn time(&self) -> f64 {
        self.t
    }

    /// Stacked states at the time reached.
    pub fn states(&self) -> &[f64] {
        &self.x
    }

    /// The integrator, described (method and tolerances).
    pub fn integrator(&self) -> alloc::string::String {
        self.integrator.describe()
    }
}

/// The coupled equations as an [`OdeSystem`]; the first module failure is kept and the
/// derivative made NaN, which stops the integrator.
struct Coupled<'a> {
    equations: &'a mut CoupledEquations,
    failure: Option<ReferenceError>,
}

impl OdeSystem for Coupled<'_> {
    fn dim(&self) -> usize {
        self.equations.n_states()
    }

    fn rhs(&mut self, t: f64, x: &[f64], dx: &mut [f64]) {
        if self.failure.is_some() {
            dx.fill(f64::NAN);
            return;
        }
        if let Err(e) = self.equations.rhs(t, x, dx) {
            self.failure = Some(e);
            dx.fill(f64::NAN);
        }
    }
}
