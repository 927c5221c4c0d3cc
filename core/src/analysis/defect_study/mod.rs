//! The experiments E1–E6 of seed 003 on the rotational two-mass oscillator
//! (docs/methods.md §15, "Experiments"): the defect master ([`DefectJacobi`]) with fixed
//! steps or the PI defect controller ([`DefectControl`]), Euler or exact slaves, either
//! initialisation; per run the run-wide RMS output and connection defects, the RMS error
//! against the exact solution, the mean step and the Theorem-1 bound; per sweep the fitted
//! log–log slopes.
//!
//! | id | steps | horizon | orders | varied |
//! |---|---|---|---|---|
//! | E1 | fixed h = 1 | [0, 50] | m = n = 0 | (response) |
//! | E2 | PI, h0 = 1, tol = 0.005 | [0, 50] | m = n = 0 | (response) |
//! | E3 | fixed h = 10^(−3+0.2j), j = 0..15 | [0, 1] | m = n | h |
//! | E4 | as E3 | [0, 1] | m = 0, n | h |
//! | E5 | as E3 | [0, 1] | n = 0, m | h |
//! | E6 | PI, h0 = 1e-4, tol = 10^(−3+0.2j) | [0, 1] | m = n | tol |

mod bound;
mod driver;
mod numerics;
mod system;

#[cfg(test)]
mod tests;

pub use bound::{DefectSizes, Theorem1};
pub use driver::ResponseSample;
pub use numerics::log_log_slope;
pub use system::{coupled_pair, Exact, CONNECTIONS, MODULES};

use crate::error::{CosimError, MasterError};
use crate::master::{
    DefectControl, DefectJacobi, DefectSettings, FixedStep, Initialisation, Monitored,
    StepController,
};
use crate::models::rotational_oscillator::Method;
use crate::time::FixedGrid;
use alloc::boxed::Box;
use alloc::format;
use alloc::vec::Vec;
use driver::{drive, Exchange};

/// How the macro-steps are chosen.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Steps {
    /// A uniform grid of `h` over the horizon (the count rounded to the nearest integer, so
    /// the end may be missed by up to half a step: E3–E5 compare errors on uniform grids of
    /// steps that do not divide the horizon, unlike a scenario, which ends on its stop time).
    Fixed {
        /// Macro-step in s.
        h: f64,
    },
    /// The PI defect controller from `h0`, holding `ε_k` near `tol`.
    Defect {
        /// First step in s.
        h0: f64,
        /// Tolerance on the controlled defect.
        tol: f64,
    },
}

/// One run of the study.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Case {
    /// How the slaves integrate.
    pub slaves: Method,
    /// How the first step's derivative slots are filled.
    pub initialisation: Initialisation,
    /// Input polynomial order `m`.
    pub input_order: usize,
    /// Output polynomial order `n`.
    pub output_order: usize,
    /// End time in s (the start is 0).
    pub t_end: f64,
    /// Macro-steps.
    pub steps: Steps,
}

/// What one run measured. Ports are in the coupled system's order: outputs
/// `[t2o.omega, o2t.tau]`, inputs `[t2o.tau, o2t.omega_in]`.
#[derive(Clone, Debug, PartialEq)]
pub struct CaseResult {
    /// The run.
    pub case: Case,
    /// Accepted macro-steps.
    pub steps: usize,
    /// Time reached in s (RMS values are normalised by it).
    pub t_reached: f64,
    /// Mean macro-step `H̄` in s.
    pub mean_h: f64,
    /// Run-wide RMS output defect estimate per output.
    pub output_defect: Vec<f64>,
    /// Run-wide RMS connection defect per input.
    pub connection_defect: Vec<f64>,
    /// Run-wide RMS error per output: co-simulation output polynomial − exact output.
    pub error: Vec<f64>,
    /// Run-wide RMS of the integration defect `‖δx‖` (0 for exact slaves).
    pub integration_defect: f64,
    /// Largest `ε_k` of any step.
    pub max_eps: f64,
    /// Steps with `ε_k > tol` (0 for fixed steps).
    pub steps_above_tol: usize,
    /// Each accepted macro-step in s, in order.
    pub step_sizes: Vec<f64>,
    /// `ε_k` of each step.
    pub eps: Vec<f64>,
    /// Theorem 1's bound on `RMS‖Δy‖`.
    pub bound: f64,
    /// The measured `RMS‖Δy‖` (Euclidean over the outputs).
    pub measured: f64,
    /// Response samples (E1, E2), empty otherwise.
    pub response: Vec<ResponseSample>,
}

impl CaseResult {
    /// `measured / bound`: Theorem 1 holds when it is ≤ 1.
    pub fn bound_ratio(&self) -> f64 {
        self.measured / self.bound
    }
}

/// Runs one case; `record_response` keeps the piecewise output response.
pub fn run_case(case: &Case, record_response: bool) -> Result<CaseResult, CosimError> {
    let max = crate::master::defect::MAX_DEFECT_ORDER as usize;
    if case.input_order > max || case.output_order > max {
        return Err(MasterError::InvalidSettings(format!(
            "defect study: orders must be 0, 1 or 2 (got m = {}, n = {})",
            case.input_order, case.output_order
        ))
        .into());
    }
    let mut controller: Box<dyn StepController> = match case.steps {
        Steps::Fixed { h } => {
            if !(h.is_finite() && h > 0.0) {
                return Err(MasterError::InvalidSettings(format!(
                    "defect study: the step h must be > 0, got {h}"
                ))
                .into());
            }
            Box::new(FixedStep::new(FixedGrid::nearest(0.0, case.t_end, h)))
        }
        Steps::Defect { h0, tol } => Box::new(DefectControl::new(0.0, case.t_end, h0, tol)?),
    };
    let mut sys = coupled_pair(case.slaves)?;
    sys.initialize(0.0, controller.t_stop())?;
    let exact = Exact::of(&mut sys)?;
    let mut algorithm = DefectJacobi::new(DefectSettings {
        input_order: case.input_order,
        output_order: case.output_order,
        monitored: Monitored::Both,
        initialisation: case.initialisation,
    });
    let exchange = Exchange {
        method: case.slaves,
        input_order: case.input_order,
        output_order: case.output_order,
        initialisation: case.initialisation,
    };
    let trace = drive(
        &mut sys,
        &exact,
        &mut algorithm,
        controller.as_mut(),
        &exchange,
        record_response,
    )?;
    let defects = crate::master::MasterAlgorithm::defects(&algorithm)
        .ok_or(MasterError::NotPrepared("DefectJacobi"))?;
    let span = defects.t_reached - defects.t_start;
    let rms = |integral: f64| libm::sqrt(integral / span);
    let output_defect: Vec<f64> = (0..defects.output_names.len())
        .map(|k| defects.output_rms(k))
        .collect();
    let connection_defect: Vec<f64> = (0..defects.input_names.len())
        .map(|k| defects.connection_rms(k))
        .collect();
    let error: Vec<f64> = trace.error_integrals.iter().map(|&e| rms(e)).collect();
    let euclid = |v: &[f64]| libm::sqrt(v.iter().map(|x| x * x).sum::<f64>());
    let sizes = DefectSizes {
        integration: rms(trace.integration_integral),
        output: euclid(&output_defect),
        connection: euclid(&connection_defect),
    };
    let theorem = Theorem1::of(&exact)
        .ok_or_else(|| MasterError::InvalidSettings("I − D L is singular".into()))?;
    let tol = match case.steps {
        Steps::Defect { tol, .. } => tol,
        Steps::Fixed { .. } => f64::INFINITY,
    };
    Ok(CaseResult {
        case: *case,
        steps: trace.steps.len(),
        t_reached: defects.t_reached,
        mean_h: span / trace.steps.len().max(1) as f64,
        measured: euclid(&error),
        bound: theorem.output_error(span, &sizes),
        output_defect,
        connection_defect,
        error,
        integration_defect: sizes.integration,
        max_eps: trace.eps.iter().fold(0.0, |a: f64, &b| a.max(b)),
        steps_above_tol: trace.eps.iter().filter(|&&e| e > tol).count(),
        response: trace.response,
        step_sizes: trace.steps,
        eps: trace.eps,
    })
}

/// The six experiments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Experiment {
    /// Fixed h = 1 on [0, 50], m = n = 0: the response (Fig. 4a).
    E1,
    /// PI control, h0 = 1, tol = 0.005 on [0, 50], m = n = 0: the response (Fig. 4b).
    E2,
    /// Fixed steps h = 10^(−3+0.2j) on [0, 1], m = n: convergence (Figs. 5, 6).
    E3,
    /// As E3 with m = 0 and output order n varied.
    E4,
    /// As E3 with n = 0 and input order m varied (degenerates to m = 0: missing input
    /// derivatives are zero).
    E5,
    /// PI control from h0 = 1e-4 with tol = 10^(−3+0.2j) on [0, 1], m = n (Figs. 7–10).
    E6,
}

impl Experiment {
    /// The id as written (`E1` … `E6`), case-insensitive.
    pub fn parse(text: &str) -> Option<Self> {
        use Experiment::*;
        [E1, E2, E3, E4, E5, E6]
            .into_iter()
            .find(|e| e.id().eq_ignore_ascii_case(text))
    }

    /// `E1` … `E6`.
    pub fn id(self) -> &'static str {
        match self {
            Experiment::E1 => "E1",
            Experiment::E2 => "E2",
            Experiment::E3 => "E3",
            Experiment::E4 => "E4",
            Experiment::E5 => "E5",
            Experiment::E6 => "E6",
        }
    }

    /// Whether the experiment is a sweep (E3–E6) rather than one response (E1, E2).
    pub fn is_sweep(self) -> bool {
        !matches!(self, Experiment::E1 | Experiment::E2)
    }

    /// `(m, n)` for the varied order `k`.
    fn orders(self, k: usize) -> (usize, usize) {
        match self {
            Experiment::E1 | Experiment::E2 => (0, 0),
            Experiment::E4 => (0, k),
            Experiment::E5 => (k, 0),
            _ => (k, k),
        }
    }

    /// The sweep values: `10^(−3 + 0.2 j)`, `j = 0..=15` (h for E3–E5, tol for E6), or
    /// the single setting of E1, E2.
    pub fn axis(self) -> Vec<f64> {
        match self {
            Experiment::E1 => alloc::vec![1.0],
            Experiment::E2 => alloc::vec![0.005],
            _ => (0..16)
                .map(|j| libm::pow(10.0, -3.0 + 0.2 * f64::from(j)))
                .collect(),
        }
    }

    /// The case for sweep value `x` and varied order `k`.
    pub fn case(self, slaves: Method, init: Initialisation, k: usize, x: f64) -> Case {
        let (input_order, output_order) = self.orders(k);
        let (t_end, steps) = match self {
            Experiment::E1 => (50.0, Steps::Fixed { h: x }),
            Experiment::E2 => (50.0, Steps::Defect { h0: 1.0, tol: x }),
            Experiment::E6 => (1.0, Steps::Defect { h0: 1e-4, tol: x }),
            _ => (1.0, Steps::Fixed { h: x }),
        };
        Case {
            slaves,
            initialisation: init,
            input_order,
            output_order,
            t_end,
            steps,
        }
    }
}

/// Runs experiment `e` for each order in `orders` over the values `axis` (all of
/// [`Experiment::axis`] when `None`).
pub fn sweep(
    e: Experiment,
    slaves: Method,
    init: Initialisation,
    orders: &[usize],
    axis: Option<&[f64]>,
) -> Result<Vec<CaseResult>, CosimError> {
    let values = axis.map_or_else(|| e.axis(), |a| a.to_vec());
    let mut out = Vec::with_capacity(orders.len() * values.len());
    for &k in orders {
        for &x in &values {
            out.push(run_case(&e.case(slaves, init, k, x), !e.is_sweep())?);
        }
    }
    Ok(out)
}

/// The sweep value of a result: `h` for fixed steps, `tol` for defect control.
pub fn axis_value(r: &CaseResult) -> f64 {
    match r.case.steps {
        Steps::Fixed { h } => h,
        Steps::Defect { tol, .. } => tol,
    }
}

/// Fitted slopes of one order's series, `None` where fewer than two values are above the
/// rounding floor (e.g. an output defect that is exactly zero).
#[derive(Clone, Debug, PartialEq)]
pub struct Slopes {
    /// The order varied (`m = n`, `n` or `m`).
    pub order: usize,
    /// Per output.
    pub output_defect: Vec<Option<f64>>,
    /// Per input.
    pub connection_defect: Vec<Option<f64>>,
    /// Per output.
    pub error: Vec<Option<f64>>,
    /// Of the mean step against tol (defect control only).
    pub mean_h: Option<f64>,
}

/// Values at or below this count as zero (rounding) when fitting slopes.
pub const SLOPE_FLOOR: f64 = 1e-15;

/// Slopes against the sweep value for each order in `results`, fitted over `range`.
pub fn slopes(e: Experiment, results: &[CaseResult], range: (f64, f64)) -> Vec<Slopes> {
    let mut orders: Vec<usize> = Vec::new();
    for r in results {
        let k = match e {
            Experiment::E5 => r.case.input_order,
            _ => r.case.output_order,
        };
        if !orders.contains(&k) {
            orders.push(k);
        }
    }
    orders
        .into_iter()
        .map(|k| {
            let of = |r: &&CaseResult| match e {
                Experiment::E5 => r.case.input_order == k,
                _ => r.case.output_order == k,
            };
            let rows: Vec<&CaseResult> = results.iter().filter(of).collect();
            let fit = |pick: &dyn Fn(&CaseResult) -> f64| {
                let pts: Vec<(f64, f64)> = rows.iter().map(|r| (axis_value(r), pick(r))).collect();
                log_log_slope(&pts, range, SLOPE_FLOOR)
            };
            let per = |n: usize, pick: &dyn Fn(&CaseResult, usize) -> f64| {
                (0..n).map(|i| fit(&|r| pick(r, i))).collect::<Vec<_>>()
            };
            Slopes {
                order: k,
                output_defect: per(2, &|r, i| r.output_defect[i]),
                connection_defect: per(2, &|r, i| r.connection_defect[i]),
                error: per(2, &|r, i| r.error[i]),
                mean_h: (e == Experiment::E6).then(|| fit(&|r| r.mean_h)).flatten(),
            }
        })
        .collect()
}
