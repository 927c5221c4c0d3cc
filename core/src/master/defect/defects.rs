//! The defects of one macro-step `[t_k, t_k + h]` (docs/methods.md §15.2–§15.4), on times
//! measured from `t_k` (so the step is `[0, h]`):
//! - [`connection_defect`]: `δu = ũ − ỹ_src`, the input polynomial the module used (anchored
//!   at the step start, used forward) minus the output polynomial its source reported
//!   (anchored at the step end, used backward);
//! - [`output_defect_estimate`]: the Hermite correction through the midpoint sample (eqns
//!   30–32), `δŷ(t) = c (t − h)^{n+1}/(n+1)!`;
//! - [`controlled_defect`]: `ε_k` of eqn 38, the largest per-step RMS of the monitored ones;
//! - [`RunDefects`]: run-wide RMS per port, `sqrt(Σ_k ∫ δ² dt / (t − t_0))`.

use super::taylor::Taylor;
use alloc::vec;
use alloc::vec::Vec;

/// Which defects enter the controlled defect `ε_k` (the authors' `DefectType`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Monitored {
    /// Output defect estimates and connection defects (the experiments' choice).
    #[default]
    Both,
    /// Only the output defect estimates.
    Output,
    /// Only the connection defects.
    Connection,
}

impl Monitored {
    /// Whether output defect estimates are monitored (they need the midpoint samples).
    pub fn outputs(self) -> bool {
        matches!(self, Monitored::Both | Monitored::Output)
    }

    /// Whether connection defects are monitored.
    pub fn connections(self) -> bool {
        matches!(self, Monitored::Both | Monitored::Connection)
    }
}

/// The connection defect on `[0, h]`: `input` (anchored at 0) minus `source_output`
/// (anchored at `h`), expanded at the step start.
pub fn connection_defect(input: &Taylor, source_output: &Taylor) -> Taylor {
    input.minus(source_output)
}

/// The output defect estimate of docs/methods.md §15.3 on `[0, h]`: the output polynomial
/// `output` of order `n` (anchored at `h`) misses the midpoint sample `y_mid` by
/// `Δ = y_mid − ỹ(h/2)`; the Hermite polynomial through both adds
/// `c (t − h)^{n+1}/(n+1)!` with `c = Δ (n+1)! (−2/h)^{n+1}`. The sign is `(−2/h)^{n+1}`
/// (the authors' code has `−(2/h)^{n+1}`, which is wrong for even `n + 1` but gives the
/// same RMS). Returned anchored at `h`: only its derivative `n + 1` is non-zero.
pub fn output_defect_estimate(output: &Taylor, n: usize, h: f64, y_mid: f64) -> Taylor {
    let mismatch = y_mid - output.eval(0.5 * h);
    let factorial: f64 = (1..=n + 1).map(|i| i as f64).product();
    let c = mismatch * factorial * libm::pow(-2.0 / h, (n + 1) as f64);
    let mut estimate = Taylor::zero(output.anchor);
    estimate.set_derivative(n + 1, c);
    estimate
}

/// `ε_k` of eqn 38: the largest per-step RMS among the monitored output estimates and
/// connection defects (0 when nothing is monitored).
pub fn controlled_defect(monitored: Monitored, output_rms: &[f64], connection_rms: &[f64]) -> f64 {
    let outputs = output_rms.iter().filter(|_| monitored.outputs());
    let connections = connection_rms.iter().filter(|_| monitored.connections());
    outputs.chain(connections).fold(0.0, |e, &r| e.max(r))
}

/// Run-wide accumulated defects per port: `Σ_k ∫ δ² dt` over the accepted steps.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunDefects {
    /// Start time of the run in s.
    pub t_start: f64,
    /// Time reached in s (the end of the last accepted step).
    pub t_reached: f64,
    /// Per monitored output (in [`Self::output_names`] order): `Σ ∫ δŷ² dt`.
    pub output_integrals: Vec<f64>,
    /// Per connected input (in [`Self::input_names`] order): `Σ ∫ δu² dt`.
    pub connection_integrals: Vec<f64>,
    /// `module.output` of each monitored output.
    pub output_names: Vec<alloc::string::String>,
    /// `module.input` of each connected input.
    pub input_names: Vec<alloc::string::String>,
    /// Largest controlled defect `ε_k` of any accepted step.
    pub max_controlled: f64,
}

impl RunDefects {
    /// Empty accumulators for these ports, starting at `t_start`.
    pub fn new(
        t_start: f64,
        output_names: Vec<alloc::string::String>,
        input_names: Vec<alloc::string::String>,
    ) -> Self {
        RunDefects {
            t_start,
            t_reached: t_start,
            output_integrals: vec![0.0; output_names.len()],
            connection_integrals: vec![0.0; input_names.len()],
            output_names,
            input_names,
            max_controlled: 0.0,
        }
    }

    /// Adds one accepted step ending at `t_end` with these squared-defect integrals.
    pub fn add_step(&mut self, t_end: f64, outputs: &[f64], connections: &[f64], eps: f64) {
        for (acc, v) in self.output_integrals.iter_mut().zip(outputs) {
            *acc += v;
        }
        for (acc, v) in self.connection_integrals.iter_mut().zip(connections) {
            *acc += v;
        }
        self.t_reached = t_end;
        self.max_controlled = self.max_controlled.max(eps);
    }

    fn rms(&self, integral: f64) -> f64 {
        let span = self.t_reached - self.t_start;
        if span > 0.0 {
            libm::sqrt(integral / span)
        } else {
            0.0
        }
    }

    /// Run-wide RMS output defect estimate of monitored output `k`, normalised by the
    /// time reached.
    pub fn output_rms(&self, k: usize) -> f64 {
        self.rms(self.output_integrals[k])
    }

    /// Run-wide RMS connection defect of connected input `k`.
    pub fn connection_rms(&self, k: usize) -> f64 {
        self.rms(self.connection_integrals[k])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hermite_estimate_rms_is_the_midpoint_mismatch_times_the_closed_factor() {
        // RMS of δŷ over the step = |Δ| 2^{n+1}/sqrt(2n+3): 1.155, 1.789, 3.024 for n = 0, 1, 2.
        let h = 0.37;
        for n in 0..=2usize {
            let output = Taylor::new(h, &[0.4, -1.3, 2.2][..=n]);
            let mismatch = 0.013;
            let y_mid = output.eval(0.5 * h) + mismatch;
            let estimate = output_defect_estimate(&output, n, h, y_mid);
            let factor = libm::pow(2.0, (n + 1) as f64) / libm::sqrt((2 * n + 3) as f64);
            let rms = estimate.rms(0.0, h);
            assert!(
                libm::fabs(rms - mismatch * factor) < 1e-14,
                "n = {n}: {rms} vs {}",
                mismatch * factor
            );
            // The Hermite polynomial ỹ + δŷ passes through the midpoint sample and keeps
            // every sample at the step end (the (−2/h)^{n+1} sign, pitfall P9).
            let hermite = |t: f64| output.eval(t) + estimate.eval(t);
            assert!(libm::fabs(hermite(0.5 * h) - y_mid) < 1e-14, "n = {n}");
            for j in 0..=n {
                assert_eq!(estimate.derivative(j), 0.0);
            }
        }
        let factors = [1.1547, 1.7889, 3.0237];
        for (n, f) in factors.iter().enumerate() {
            let closed = libm::pow(2.0, (n + 1) as f64) / libm::sqrt((2 * n + 3) as f64);
            assert!(libm::fabs(closed - f) < 1e-4);
        }
    }

    #[test]
    fn connection_defect_of_a_parabola_seen_with_first_order_polynomials() {
        // p(t) = 1 + 2t − t²/2 near t_k = 0: input 1 + 2s (forward from 0), source output
        // p(h) + p'(h)(s − h) (backward from h); δu = c h (h − 2s), c = −1/2, RMS |c| h²/√3.
        let h = 0.1;
        let p = |t: f64| 1.0 + 2.0 * t - 0.5 * t * t;
        let dp = |t: f64| 2.0 - t;
        let input = Taylor::new(0.0, &[p(0.0), dp(0.0)]);
        let output = Taylor::new(h, &[p(h), dp(h)]);
        let d = connection_defect(&input, &output);
        assert!(libm::fabs(d.rms(0.0, h) - 0.5 * h * h / libm::sqrt(3.0)) < 1e-15);
        // With second derivatives both polynomials are p itself.
        let input = Taylor::new(0.0, &[p(0.0), dp(0.0), -1.0]);
        let output = Taylor::new(h, &[p(h), dp(h), -1.0]);
        assert!(connection_defect(&input, &output).rms(0.0, h) < 1e-15);
    }

    #[test]
    fn controlled_defect_takes_the_largest_monitored_rms() {
        let (outputs, connections) = ([0.1, 0.3], [0.2, 0.5]);
        assert_eq!(
            controlled_defect(Monitored::Both, &outputs, &connections),
            0.5
        );
        assert_eq!(
            controlled_defect(Monitored::Output, &outputs, &connections),
            0.3
        );
        assert_eq!(
            controlled_defect(Monitored::Connection, &outputs, &connections),
            0.5
        );
        assert_eq!(controlled_defect(Monitored::Output, &[], &connections), 0.0);
    }

    #[test]
    fn run_wide_rms_is_normalised_by_the_time_reached() {
        let mut run = RunDefects::new(1.0, vec!["a.y".into()], vec!["b.u".into()]);
        assert_eq!(run.output_rms(0), 0.0);
        run.add_step(1.5, &[0.02], &[0.08], 0.3);
        run.add_step(3.0, &[0.06], &[0.0], 0.1);
        // sqrt(0.08 / 2) and sqrt(0.08 / 2).
        assert!(libm::fabs(run.output_rms(0) - 0.2) < 1e-15);
        assert!(libm::fabs(run.connection_rms(0) - 0.2) < 1e-15);
        assert_eq!(run.max_controlled, 0.3);
    }
}
