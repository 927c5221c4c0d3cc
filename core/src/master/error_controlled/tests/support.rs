//! What the explicit and the implicit error-controlled schemes' tests share: the grids of
//! the exact history, the step sizes and the slope fits of the convergence tests, and the
//! controlled runs of the two-mass oscillator (tolerances, the observer of every point, the
//! error against the exact solution) with the replay of a run's accepted steps through a
//! step controller that proposes a script of steps.

use crate::error::{MasterError, RejectReason};
use crate::master::error_control::{
    ErrorControlSettings, EstimatorKind, GroupTolerance, OrderMode, Tolerances,
};
use crate::master::tests::two_mass_with_reference;
use crate::master::{
    CoupledSystem, MasterAlgorithm, Observer, Run, RunStart, RunStats, StepController,
    StepDecision, StepDiagnostics, StepProposal, SystemView,
};
use crate::solvers::expm;
use alloc::boxed::Box;
use alloc::vec::Vec;
use nalgebra::{DMatrix, DVector};

/// Past step ratios of the exact history: equal steps, and the non-uniform grid.
pub(crate) const UNIFORM: [f64; 8] = [1.0; 8];
pub(crate) const NON_UNIFORM: [f64; 8] = [0.6, 1.3, 0.8, 1.7, 0.5, 1.1, 0.9, 1.4];

/// The exact solution of the two-mass oscillator of [`two_mass_with_reference`].
pub(crate) struct ExactTwoMass {
    a: DMatrix<f64>,
    x0: DVector<f64>,
    c: DMatrix<f64>,
}

impl ExactTwoMass {
    /// The stacked states at `t`: mass 1 (s1, v1), mass 2 (s2, v2).
    pub(crate) fn state(&self, t: f64) -> DVector<f64> {
        expm(&(&self.a * t)).unwrap() * &self.x0
    }

    /// The stacked outputs at `t`.
    pub(crate) fn outputs(&self, t: f64) -> Vec<f64> {
        (&self.c * self.state(t)).iter().copied().collect()
    }
}

/// The two-mass oscillator at `T_N = 0` and `algorithm(settings)` prepared on an exact
/// history of `n` points on `grid` (past steps relative to `h`, newest first), `settings`
/// being `estimator` at fixed degree `k` with no floor on the step; and the exact solution.
pub(crate) fn prepared_on_exact_history<A: MasterAlgorithm>(
    estimator: EstimatorKind,
    k: usize,
    n: usize,
    h: f64,
    grid: &[f64],
    algorithm: impl FnOnce(ErrorControlSettings) -> A,
) -> (CoupledSystem, A, ExactTwoMass) {
    let (mut sys, reference) = two_mass_with_reference(1.0);
    let exact = ExactTwoMass {
        a: reference.a_star().clone(),
        x0: reference.x0().clone(),
        c: reference.c_star().clone(),
    };
    let mut t = 0.0;
    let mut history: Vec<(f64, Vec<f64>)> = Vec::new();
    for s in grid.iter().take(n) {
        t -= s * h;
        history.push((t, exact.outputs(t)));
    }
    history.reverse();
    let settings = ErrorControlSettings {
        estimator,
        order: OrderMode::Fixed(k),
        h_min: 1e-300,
        ..ErrorControlSettings::default()
    };
    let mut alg = algorithm(settings);
    let start = RunStart {
        t_start: 0.0,
        h,
        variable_steps: true,
        history: &history,
    };
    alg.prepare(&mut sys, &start).unwrap();
    (sys, alg, exact)
}

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

/// End of the controlled runs, in s.
pub(crate) const T_END: f64 = 2e-3;

/// `estimator` at degree `order` with every group's tolerance `rtol`, the absolute ones at
/// the two-mass oscillator's scale.
pub(crate) fn settings(
    estimator: EstimatorKind,
    rtol: f64,
    order: OrderMode,
) -> ErrorControlSettings {
    // Positions ≈ 1e-2 m, velocities ≈ 10 m/s, forces ≈ 1e3 N.
    ErrorControlSettings {
        estimator,
        tolerances: Tolerances {
            positions: GroupTolerance::new(rtol, 1e-2 * rtol),
            velocities: GroupTolerance::new(rtol, 10.0 * rtol),
            coupling: GroupTolerance::new(rtol, 1e3 * rtol),
        },
        order,
        ..ErrorControlSettings::default()
    }
}

/// Every accepted point (time, step, degree, corrector iterations, outputs) and every
/// rejected attempt.
#[derive(Default)]
pub(crate) struct Points {
    pub(crate) time: Vec<f64>,
    pub(crate) h: Vec<f64>,
    pub(crate) k: Vec<Option<u32>>,
    pub(crate) iterations: Vec<u32>,
    pub(crate) outputs: Vec<Vec<f64>>,
    pub(crate) rejections: Vec<(f64, f64, RejectReason)>,
}

impl Observer for Points {
    fn on_initialized(&mut self, _view: &SystemView<'_>) {}
    fn on_macro_step(&mut self, view: &SystemView<'_>) {
        self.time.push(view.t);
        self.h.push(view.h);
        self.k.push(view.diagnostics.order);
        self.iterations.push(view.diagnostics.iterations);
        self.outputs.push(view.system.outputs().to_vec());
    }
    fn on_rejected(&mut self, t: f64, h: f64, reason: &RejectReason) {
        self.rejections.push((t, h, reason.clone()));
    }
}

/// A run of the two-mass oscillator from 0 to [`T_END`] by `algorithm` under `controller`,
/// from a ramp-up start: the points, the counts and each output's largest error relative
/// to its largest exact magnitude.
pub(crate) fn two_mass_run(
    algorithm: Box<dyn MasterAlgorithm>,
    controller: Box<dyn StepController>,
) -> Result<(Points, RunStats, Vec<f64>), MasterError> {
    let (sys, reference) = two_mass_with_reference(T_END);
    let mut run = Run::with_controller(sys, algorithm, controller, None)?;
    let mut points = Points::default();
    run.advance(u32::MAX, &mut points)?;
    let a = reference.a_star().clone();
    let exact: Vec<Vec<f64>> = points
        .time
        .iter()
        .map(|t| {
            let y = reference.c_star() * (expm(&(&a * *t)).unwrap() * reference.x0());
            y.iter().copied().collect()
        })
        .collect();
    let errors = (0..exact[0].len())
        .map(|o| {
            let scale = exact.iter().map(|y| y[o].abs()).fold(0.0, f64::max);
            let worst = exact
                .iter()
                .zip(&points.outputs)
                .map(|(y, c)| (y[o] - c[o]).abs())
                .fold(0.0, f64::max);
            worst / scale
        })
        .collect();
    Ok((points, run.stats(), errors))
}

/// `s` with tolerances no attempt can fail.
pub(crate) fn untested(s: &ErrorControlSettings) -> ErrorControlSettings {
    let mut loose = s.clone();
    loose.tolerances = settings(s.estimator, 1e30, s.order).tolerances;
    loose
}

/// `algorithm` replaying exactly the accepted steps of `points` takes no rejection and
/// reaches the same degrees and outputs: the run's rejected attempts left no trace.
pub(crate) fn assert_replays(algorithm: Box<dyn MasterAlgorithm>, points: &Points, label: &str) {
    let script = Script {
        steps: points.h.clone(),
        done: 0,
        t_stop: T_END,
    };
    let (replay, stats, _) = two_mass_run(algorithm, Box::new(script)).unwrap();
    assert_eq!(stats.rejected, 0);
    assert_eq!(replay.k, points.k, "{label}");
    assert_eq!(
        replay.outputs, points.outputs,
        "{label}: rejected attempts left a trace"
    );
}
