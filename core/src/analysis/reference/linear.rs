//! [`SampledLinearReference`]: the exact linear reference ([`MonolithicReference`]) at any
//! increasing times. Points of the grid `t0 + k h` come from the same walk as
//! [`MonolithicReference::outputs_at_offsets`], so a fixed-step run gets the very same
//! numbers; a point between grid points (an event, a variable step) is
//! `C* e^{A* (t − t_k)} x_k` from the grid point below it, and leaves the walk unchanged.

use super::ReferenceError;
use crate::analysis::monolithic::Walk;
use crate::analysis::MonolithicReference;
use crate::error::MasterError;
use crate::solvers::expm;
use alloc::format;
use nalgebra::DVector;

/// The exact linear reference, walked along a grid and sampled anywhere on the way.
#[derive(Clone, Debug)]
pub struct SampledLinearReference {
    reference: MonolithicReference,
    walk: Walk,
    t0: f64,
    h: f64,
    /// Time reached (the last point asked for), in s.
    t: f64,
    x_off_grid: DVector<f64>,
    y: DVector<f64>,
}

impl SampledLinearReference {
    /// The walk along `t0 + k h`; the outputs at `t0` are ready.
    pub fn new(reference: MonolithicReference, t0: f64, h: f64) -> Result<Self, ReferenceError> {
        let walk = Walk::start(&reference, h, true).map_err(ReferenceError::Linear)?;
        let mut y = DVector::zeros(reference.c_star().nrows());
        y.gemv(1.0, reference.c_star(), walk.state(), 0.0);
        let x_off_grid = walk.state().clone();
        Ok(SampledLinearReference {
            reference,
            walk,
            t0,
            h,
            t: t0,
            x_off_grid,
            y,
        })
    }

    /// The linear reference it samples.
    pub fn reference(&self) -> &MonolithicReference {
        &self.reference
    }

    /// Grid point `k` (as [`crate::time::FixedGrid::time`] computes it).
    fn grid_time(&self, k: u32) -> f64 {
        self.t0 + f64::from(k) * self.h
    }

    /// The stacked outputs `y*(t)` for `t` not before the last time asked.
    pub fn advance_to(&mut self, t: f64) -> Result<&[f64], ReferenceError> {
        if t < self.t || t.is_nan() {
            return Err(ReferenceError::TimeBackwards { t, reached: self.t });
        }
        if t == self.t {
            return Ok(self.y.as_slice());
        }
        while self.walk.steps() < u32::MAX && self.grid_time(self.walk.steps() + 1) <= t {
            self.walk.step(&self.reference);
        }
        let t_k = self.grid_time(self.walk.steps());
        let x = if t_k == t {
            self.walk.state()
        } else {
            let e = expm(&(self.reference.a_star() * (t - t_k))).ok_or_else(|| {
                ReferenceError::Linear(MasterError::InvalidSettings(format!(
                    "monolithic reference: matrix exponential failed at t = {t} s"
                )))
            })?;
            self.x_off_grid.gemv(1.0, &e, self.walk.state(), 0.0);
            &self.x_off_grid
        };
        self.y.gemv(1.0, self.reference.c_star(), x, 0.0);
        self.t = t;
        Ok(self.y.as_slice())
    }
}
