//! One run of the defect master on the rotational pair, driven step by step as
//! [`crate::master::Run`] drives it (propose, step, judge, commit: the same calls in the
//! same order, so the steps and defects are the same), with what only the study needs read
//! between the steps: the output polynomials and the slaves' states. From them it
//! integrates the error against the exact solution and, for Euler slaves, the integration
//! defect (docs/methods.md §15, "Experiments").

use super::numerics::{gauss_points, taylor};
use super::system::Exact;
use crate::error::{CosimError, MasterError};
use crate::master::{
    check_initialized, CoupledSystem, DefectJacobi, Initialisation, MacroStepOutcome,
    MasterAlgorithm, RunStart, StepController, StepDecision, StepDiagnostics,
};
use crate::models::rotational_oscillator::Method;
use crate::module::ValueRef;
use alloc::format;
use alloc::vec;
use alloc::vec::Vec;
use nalgebra::{DMatrix, DVector};

/// The controlled defect `ε_k` the algorithm reported for a step.
fn controlled_defect(d: &StepDiagnostics) -> Option<f64> {
    d.defect
}

/// One sample of the piecewise output response: the co-simulation's output polynomials
/// and the exact outputs at `t` (stacked outputs).
#[derive(Clone, Debug, PartialEq)]
pub struct ResponseSample {
    /// Time in s.
    pub t: f64,
    /// Macro-step this sample lies in, in s.
    pub h: f64,
    /// Co-simulation outputs (the output polynomials of the step).
    pub cosim: Vec<f64>,
    /// Exact outputs.
    pub exact: Vec<f64>,
}

/// What the driver collects besides the algorithm's own run-wide defects.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Trace {
    /// Accepted steps (s), in order.
    pub steps: Vec<f64>,
    /// `ε_k` of each step.
    pub eps: Vec<f64>,
    /// Per stacked output: `Σ_k ∫ (ỹ − y)² dt`.
    pub error_integrals: Vec<f64>,
    /// `Σ_k ∫ ‖δx‖² dt` (Euler slaves; 0 for exact ones).
    pub integration_integral: f64,
    /// Response samples at 0, ¼, ½, ¾ and 1 of each step, if asked for.
    pub response: Vec<ResponseSample>,
}

/// Fractions of a step where the response is sampled.
const RESPONSE_POINTS: [f64; 5] = [0.0, 0.25, 0.5, 0.75, 1.0];

/// The exchange settings the study replays for the integration defect.
pub struct Exchange {
    pub method: Method,
    pub input_order: usize,
    pub output_order: usize,
    pub initialisation: Initialisation,
}

/// Stacked output values and derivatives `1..=n` at the current point: `n + 1` per output.
fn read_samples(sys: &mut CoupledSystem, n: usize, t: f64) -> Result<Vec<f64>, MasterError> {
    let n_out = sys.graph().n_outputs();
    let mut out = vec![0.0; n_out * (n + 1)];
    let orders: Vec<u32> = (1..=n as u32).collect();
    for o in 0..n_out {
        out[o * (n + 1)] = sys.outputs()[o];
        if n == 0 {
            continue;
        }
        let (m, vr) = (
            sys.graph().output_module(o),
            sys.graph().output_value_ref(o),
        );
        let vrs = vec![vr; n];
        let r = sys.subsystem_mut(m).get_output_derivatives(
            &vrs,
            &orders,
            &mut out[o * (n + 1) + 1..(o + 1) * (n + 1)],
        );
        r.map_err(|e| sys.module_error(m, t, e))?;
    }
    Ok(out)
}

/// The stacked states (module order, each module's states in description order).
fn read_states(sys: &mut CoupledSystem, t: f64) -> Result<DVector<f64>, MasterError> {
    let mut x = Vec::new();
    for m in 0..sys.n_modules() {
        let vrs: Vec<ValueRef> = sys
            .subsystem(m)
            .description()
            .states()
            .iter()
            .map(|(s, _)| s.value_ref)
            .collect();
        let mut v = vec![0.0; vrs.len()];
        let r = sys.subsystem_mut(m).get_float64(&vrs, &mut v);
        r.map_err(|e| sys.module_error(m, t, e))?;
        x.extend_from_slice(&v);
    }
    Ok(DVector::from_vec(x))
}

/// Per-step matrices of the exact solution for one step size: `e^{A* s}` at the Gauss
/// nodes and at the response points.
struct Propagators {
    h: f64,
    nodes: Vec<(f64, f64, DMatrix<f64>)>,
    response: Vec<DMatrix<f64>>,
}

impl Propagators {
    fn new(exact: &Exact, h: f64, response: bool) -> Result<Self, MasterError> {
        let e = |s: f64| {
            crate::solvers::expm(&(exact.reference.a_star() * s)).ok_or_else(|| {
                MasterError::InvalidSettings(format!("exact solution: expm failed for {s} s"))
            })
        };
        let mut nodes = Vec::with_capacity(8);
        for (s, w) in gauss_points(h) {
            nodes.push((s, w, e(s)?));
        }
        let mut resp = Vec::new();
        if response {
            for f in RESPONSE_POINTS {
                resp.push(e(f * h)?);
            }
        }
        Ok(Propagators {
            h,
            nodes,
            response: resp,
        })
    }
}

/// Runs `algorithm` under `controller` on the initialised system `sys` to the end.
pub fn drive(
    sys: &mut CoupledSystem,
    exact: &Exact,
    algorithm: &mut DefectJacobi,
    controller: &mut dyn StepController,
    exchange: &Exchange,
    record_response: bool,
) -> Result<Trace, CosimError> {
    let (n, m) = (exchange.output_order, exchange.input_order);
    let t_start = controller.t_start();
    let t_stop = controller.t_stop();
    let start = RunStart {
        t_start,
        h: controller.nominal_step(),
        variable_steps: controller.variable_steps(),
        history: &[],
    };
    check_initialized(sys, &start)?;
    algorithm.prepare(sys, &start)?;
    let n_out = sys.graph().n_outputs();
    let sources: Vec<usize> = (0..sys.graph().n_inputs())
        .map(|i| sys.graph().source_of_input(i))
        .collect();
    let mut samples = read_samples(sys, n, t_start)?;
    if exchange.initialisation == Initialisation::ZeroDerivatives {
        for o in 0..n_out {
            samples[o * (n + 1) + 1..(o + 1) * (n + 1)].fill(0.0);
        }
    }
    let mut x = exact.reference.x0().clone();
    let c_star = exact.reference.c_star();
    let mut trace = Trace {
        error_integrals: vec![0.0; n_out],
        ..Trace::default()
    };
    let mut props: Option<Propagators> = None;
    let mut t = t_start;
    while !controller.finished(t) {
        let mut proposal = controller.propose(t);
        // Clipped at the stop time as `Run` clips it (its full-step tolerance is 1e-12).
        if proposal.t_end > t_stop || t + proposal.h > t_stop + 1e-12 * proposal.h {
            proposal.h = t_stop - t;
            proposal.t_end = t_stop;
        }
        let h = proposal.h;
        let (h_taken, diagnostics) = match algorithm.step(sys, t, h)? {
            MacroStepOutcome::Accepted {
                h_taken,
                diagnostics,
            } => (h_taken, diagnostics),
            _ => {
                return Err(MasterError::InvalidSettings(format!(
                    "defect study: the step from t = {t} s was not accepted"
                ))
                .into())
            }
        };
        let t_next = match controller.judge(t, &proposal, h_taken, &diagnostics)? {
            StepDecision::Accept { t_next } => t_next,
            StepDecision::Reject { .. } => {
                return Err(MasterError::InvalidSettings(
                    "defect study: the controller rejected a step".into(),
                )
                .into())
            }
        };
        algorithm.commit(sys, t + h_taken);
        let next = read_samples(sys, n, t + h_taken)?;
        if props.as_ref().is_none_or(|p| p.h != h_taken) {
            props = Some(Propagators::new(exact, h_taken, record_response)?);
        }
        let p = props
            .as_ref()
            .ok_or(MasterError::NotPrepared("defect study"))?;
        // The exact state at the step start, from the start (no drift over many steps).
        let x_star = exact
            .state_at(t - t_start)
            .ok_or_else(|| MasterError::InvalidSettings("exact solution: expm failed".into()))?;
        for (s, w, e) in &p.nodes {
            let y = c_star * (e * &x_star);
            for o in 0..n_out {
                let poly = taylor(&next[o * (n + 1)..(o + 1) * (n + 1)], s - h_taken);
                trace.error_integrals[o] += w * (poly - y[o]) * (poly - y[o]);
            }
        }
        if record_response {
            for (f, e) in RESPONSE_POINTS.iter().zip(&p.response) {
                let y = c_star * (e * &x_star);
                let s = f * h_taken;
                let cosim = (0..n_out)
                    .map(|o| taylor(&next[o * (n + 1)..(o + 1) * (n + 1)], s - h_taken))
                    .collect();
                trace.response.push(ResponseSample {
                    t: t + s,
                    h: h_taken,
                    cosim,
                    exact: y.iter().copied().collect(),
                });
            }
        }
        if exchange.method == Method::Euler {
            let first = trace.steps.is_empty();
            let inputs = input_polynomials(sys.inputs(), &samples, &sources, exchange, first);
            trace.integration_integral += euler_defect_integral(exact, &x, &inputs, m, h_taken);
            x = read_states(sys, t + h_taken)?;
        }
        trace.steps.push(h_taken);
        trace
            .eps
            .push(controlled_defect(&diagnostics).unwrap_or(0.0));
        samples = next;
        t = t_next;
    }
    Ok(trace)
}

/// The input polynomials the master applied on the step (value and derivatives `1..=m`
/// per stacked input): the source's samples at the step start, truncated or zero-padded,
/// with zero derivatives in the first step of the zero-derivative initialisation.
fn input_polynomials(
    applied: &[f64],
    samples: &[f64],
    sources: &[usize],
    ex: &Exchange,
    first: bool,
) -> Vec<Vec<f64>> {
    let (n, m) = (ex.output_order, ex.input_order);
    let zero_start = first && ex.initialisation == Initialisation::ZeroDerivatives;
    applied
        .iter()
        .zip(sources)
        .map(|(&u0, &src)| {
            let mut d = vec![0.0; m + 1];
            d[0] = u0;
            for (j, dj) in d.iter_mut().enumerate().skip(1) {
                if j <= n && !zero_start {
                    *dj = samples[src * (n + 1) + j];
                }
            }
            d
        })
        .collect()
}

/// `∫ ‖δx‖² dt` over one Euler step from `x`: with `k_f = A x + B ũ(0)` the state is
/// `x + s k_f`, so `δx(s) = k_f − A(x + s k_f) − B ũ(s) = −s A k_f − B (ũ(s) − ũ(0))`.
fn euler_defect_integral(
    exact: &Exact,
    x: &DVector<f64>,
    inputs: &[Vec<f64>],
    m: usize,
    h: f64,
) -> f64 {
    let u0 = DVector::from_iterator(inputs.len(), inputs.iter().map(|d| d[0]));
    let k_f = &exact.a * x + &exact.b * &u0;
    let a_kf = &exact.a * &k_f;
    let mut total = 0.0;
    for (s, w) in gauss_points(h) {
        let du = DVector::from_iterator(
            inputs.len(),
            inputs.iter().map(|d| taylor(&d[..=m], s) - d[0]),
        );
        let dx = -(&a_kf * s) - &exact.b * du;
        total += w * dx.norm_squared();
    }
    total
}
