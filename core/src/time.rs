//! Macro-step time grids.
//!
//! On a fixed grid the communication points are computed as `t0 + n·h` from an integer
//! index, never by accumulating `t += h`, so the last point of a long run lands on the
//! stop time to within one rounding of a single multiplication. A stop time that is not
//! a whole number of steps is reached exactly by a last, shorter step.

/// Most macro-steps one run may take (a bound on memory for the recorded results).
pub const MAX_MACRO_STEPS: u32 = 2_000_000;

/// A step count within this fraction of a whole number counts as whole: the grid then
/// ends on `t0 + n·h` with no sliver of a step (e.g. `h = 10^-3.5` times 1000).
pub const WHOLE_STEP_TOLERANCE: f64 = 1e-9;

/// A macro-step grid `t_n = t_start + n·h`, `n = 0..steps`, ending at `t_stop`: either
/// `t_start + steps·h` (uniform) or, when the interval is not a whole number of steps, a
/// point less than `h` after `t_{steps−1}` (the last step is shorter).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FixedGrid {
    /// Start time in s.
    pub t_start: f64,
    /// Macro-step size in s (> 0).
    pub h: f64,
    /// Number of macro-steps, the shorter last one included.
    pub steps: u32,
    /// The last communication point in s.
    pub t_stop: f64,
}

impl FixedGrid {
    /// The uniform grid of `steps` steps of `h` from `t_start`.
    pub const fn uniform(t_start: f64, h: f64, steps: u32) -> Self {
        FixedGrid {
            t_start,
            h,
            steps,
            t_stop: t_start + steps as f64 * h,
        }
    }

    /// The grid from `t_start` to exactly `t_stop` with steps of `h`: uniform when the
    /// interval is a whole number of steps (within [`WHOLE_STEP_TOLERANCE`]), otherwise
    /// with a last, shorter step that ends at `t_stop`.
    pub fn covering(t_start: f64, t_stop: f64, h: f64) -> Self {
        let count = step_count(t_start, t_stop, h);
        match whole(count) {
            Some(n) => Self::uniform(t_start, h, n as u32),
            None => FixedGrid {
                t_start,
                h,
                steps: libm::ceil(count) as u32,
                t_stop,
            },
        }
    }

    /// The uniform grid whose end is nearest to `t_stop` (the step count rounded): for
    /// analyses of a uniform grid, which may end up to half a step from `t_stop`.
    pub fn nearest(t_start: f64, t_stop: f64, h: f64) -> Self {
        let count = libm::round(step_count(t_start, t_stop, h));
        Self::uniform(t_start, h, count as u32)
    }

    /// Whether every step is `h` (no shorter last step).
    pub fn is_uniform(&self) -> bool {
        self.t_stop == self.t_start + f64::from(self.steps) * self.h
    }

    /// Communication point `n` (`t_stop` for `n ≥ steps`).
    pub fn time(&self, n: u32) -> f64 {
        if n >= self.steps {
            self.t_stop
        } else {
            self.t_start + f64::from(n) * self.h
        }
    }

    /// The step from communication point `n` to `n + 1`: `h`, or the shorter last step.
    pub fn step(&self, n: u32) -> f64 {
        if n + 1 >= self.steps && !self.is_uniform() {
            self.t_stop - self.time(n)
        } else {
            self.h
        }
    }

    /// The stop times nearest to `t_stop` that are whole numbers of steps, below (if at
    /// least one step) and above: the ends a method needing a uniform grid can reach.
    pub fn whole_step_stops(t_start: f64, t_stop: f64, h: f64) -> (Option<f64>, f64) {
        let count = step_count(t_start, t_stop, h);
        let below = libm::floor(count);
        let at = |n: f64| Self::uniform(t_start, h, n as u32).t_stop;
        ((below >= 1.0).then(|| at(below)), at(below + 1.0))
    }
}

/// `(t_stop − t_start)/h`, not below 0.
fn step_count(t_start: f64, t_stop: f64, h: f64) -> f64 {
    ((t_stop - t_start) / h).max(0.0)
}

/// The whole number `count` is within [`WHOLE_STEP_TOLERANCE`] of (relative), if any.
fn whole(count: f64) -> Option<f64> {
    let n = libm::round(count);
    ((count - n).abs() <= WHOLE_STEP_TOLERANCE * n.max(1.0)).then_some(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_hits_stop_time_without_drift() {
        let g = FixedGrid::covering(0.0, 0.3, 1e-5);
        assert_eq!(g.steps, 30_000);
        assert!((g.time(g.steps) - 0.3).abs() <= 1e-16);
        let mut acc = 0.0;
        for _ in 0..g.steps {
            acc += g.h;
        }
        // The accumulated sum drifts by far more than the indexed grid.
        assert!((acc - 0.3).abs() > (g.time(g.steps) - 0.3).abs());
    }

    #[test]
    fn a_stop_between_grid_points_ends_with_a_shorter_step() {
        let g = FixedGrid::covering(0.0, 2.995, 0.01);
        assert_eq!((g.steps, g.t_stop), (300, 2.995));
        assert!(!g.is_uniform());
        assert_eq!(g.time(299), 299.0 * 0.01);
        assert_eq!(g.step(298), 0.01);
        assert!((g.step(299) - 0.005).abs() < 1e-12);
        assert_eq!(g.time(300), 2.995);
    }

    #[test]
    fn a_whole_step_count_up_to_rounding_gets_no_sliver_step() {
        let h = libm::pow(10.0, -3.5);
        let g = FixedGrid::covering(0.0, 1000.0 * h * (1.0 + 1e-12), h);
        assert_eq!(g, FixedGrid::uniform(0.0, h, 1000));
        assert_eq!(g.step(999), h);
        // 0.3 / 1e-5 is 29999.999999999996 in floating point: still 30000 whole steps.
        assert!(FixedGrid::covering(0.0, 0.3, 1e-5).is_uniform());
    }

    #[test]
    fn nearest_whole_step_stops_bracket_the_stop_time() {
        let (below, above) = FixedGrid::whole_step_stops(0.0, 2.995, 0.01);
        assert_eq!(below, Some(299.0 * 0.01));
        assert_eq!(above, 300.0 * 0.01);
        assert_eq!(FixedGrid::whole_step_stops(0.0, 0.5, 1.0), (None, 1.0));
        assert_eq!(FixedGrid::nearest(0.0, 2.995, 0.01).steps, 300);
    }
}
