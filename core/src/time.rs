//! Macro-step time grids.
//!
//! On a fixed grid the communication points are computed as `t0 + n·h` from an integer
//! index, never by accumulating `t += h`, so the last point of a long run lands on the
//! stop time to within one rounding of a single multiplication.

/// Most macro-steps one run may take (a bound on memory for the recorded results).
pub const MAX_MACRO_STEPS: u32 = 2_000_000;

/// A fixed macro-step grid `t_n = t_start + n·h`, `n = 0..=steps`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FixedGrid {
    /// Start time in s.
    pub t_start: f64,
    /// Macro-step size in s (> 0).
    pub h: f64,
    /// Number of macro-steps.
    pub steps: u32,
}

impl FixedGrid {
    /// The grid covering `[t_start, t_stop]` with steps of `h`; the count is rounded to the
    /// nearest integer, so a stop time that is a multiple of `h` up to rounding is hit.
    pub fn covering(t_start: f64, t_stop: f64, h: f64) -> Self {
        let steps = libm::round((t_stop - t_start) / h).max(0.0) as u32;
        FixedGrid { t_start, h, steps }
    }

    /// Communication point `n`.
    pub fn time(&self, n: u32) -> f64 {
        self.t_start + f64::from(n) * self.h
    }
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
}
