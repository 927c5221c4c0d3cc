//! What the explicit and the implicit error-controlled schemes' tests share: the grids of
//! the exact history, the step sizes and the slope fits of the convergence tests, and a
//! step controller that proposes a script of steps (for replaying a run's accepted steps).

use crate::error::{MasterError, RejectReason};
use crate::master::{StepController, StepDecision, StepDiagnostics, StepProposal};
use alloc::vec::Vec;

/// Past step ratios of the exact history: equal steps, and the non-uniform grid.
pub(crate) const UNIFORM: [f64; 8] = [1.0; 8];
pub(crate) const NON_UNIFORM: [f64; 8] = [0.6, 1.3, 0.8, 1.7, 0.5, 1.1, 0.9, 1.4];

/// The 2-norm of `v`.
pub(crate) fn norm(v: impl Iterator<Item = f64>) -> f64 {
    libm::sqrt(v.map(|x| x * x).sum())
}

/// Step sizes: `2e-4 s` (ω·H ≈ 0.2 for the fast mode) halved nine times.
pub(crate) fn steps() -> Vec<f64> {
    (0..10).map(|j| 2e-4 / libm::pow(2.0, j as f64)).collect()
}

/// Least-squares slope of `log e` against `log h`.
pub(crate) fn slope(h: &[f64], e: &[f64]) -> f64 {
    let x: Vec<f64> = h.iter().map(|v| libm::log(*v)).collect();
    let y: Vec<f64> = e.iter().map(|v| libm::log(*v)).collect();
    let n = x.len() as f64;
    let (mx, my) = (x.iter().sum::<f64>() / n, y.iter().sum::<f64>() / n);
    let sxy: f64 = x.iter().zip(&y).map(|(a, b)| (a - mx) * (b - my)).sum();
    let sxx: f64 = x.iter().map(|a| (a - mx) * (a - mx)).sum();
    sxy / sxx
}

/// The slope over the finest three points above `floor`, or `None` when f64 cannot
/// resolve the rate (fewer than three).
pub(crate) fn resolved_slope(h: &[f64], e: &[f64], floor: f64) -> Option<f64> {
    let valid: Vec<(f64, f64)> = h
        .iter()
        .zip(e)
        .filter(|(_, e)| **e > floor)
        .map(|(h, e)| (*h, *e))
        .collect();
    if valid.len() < 3 {
        return None;
    }
    let (hs, es): (Vec<f64>, Vec<f64>) = valid[valid.len() - 3..].iter().copied().unzip();
    Some(slope(&hs, &es))
}

/// The slopes `slopes(k, grid)` (`[(measured, expected)]` per column) of `k = 0..=k_top`
/// are within 0.2 of the expected ones for every degree listed in `resolved[column]` (those
/// whose rate f64 resolves), on both grids; the table is printed with `--nocapture`.
pub(crate) fn check_slopes(
    label: &str,
    k_top: usize,
    resolved: &[&[usize]],
    slopes: impl Fn(usize, &[f64]) -> Vec<(Option<f64>, f64)>,
) {
    let mut failures = Vec::new();
    for (name, grid) in [("uniform", &UNIFORM), ("non-uniform", &NON_UNIFORM)] {
        for k in 0..=k_top {
            let measured = slopes(k, grid);
            std::println!("{label} {name} k = {k}: {measured:.2?}");
            for (column, (slope, expected)) in measured.iter().enumerate() {
                if !resolved[column].contains(&k) {
                    continue;
                }
                match slope {
                    Some(s) if (s - expected).abs() <= 0.2 => {}
                    _ => failures.push(alloc::format!(
                        "{name} k = {k} column {column}: slope {slope:.3?}, expected {expected}"
                    )),
                }
            }
        }
    }
    assert!(failures.is_empty(), "{label}: {failures:#?}");
}

/// Proposes exactly the given steps from 0 to `t_stop` and accepts every attempt.
pub(crate) struct Script {
    pub(crate) steps: Vec<f64>,
    pub(crate) done: usize,
    pub(crate) t_stop: f64,
}

impl StepController for Script {
    fn name(&self) -> &'static str {
        "script"
    }
    fn t_start(&self) -> f64 {
        0.0
    }
    fn t_stop(&self) -> f64 {
        self.t_stop
    }
    fn nominal_step(&self) -> f64 {
        self.steps[0]
    }
    fn may_reject(&self) -> bool {
        false
    }
    fn variable_steps(&self) -> bool {
        true
    }
    fn propose(&mut self, t: f64) -> StepProposal {
        let h = self.steps[self.done];
        StepProposal { h, t_end: t + h }
    }
    fn judge(
        &mut self,
        t: f64,
        _p: &StepProposal,
        h_taken: f64,
        _d: &StepDiagnostics,
    ) -> Result<StepDecision, MasterError> {
        self.done += 1;
        Ok(StepDecision::Accept {
            t_next: t + h_taken,
        })
    }
    fn retry(&mut self, _t: f64, _h: f64, _r: &RejectReason) -> Option<f64> {
        None
    }
    fn finished(&self, _t: f64) -> bool {
        self.done == self.steps.len()
    }
}
