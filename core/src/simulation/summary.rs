//! The one-line summary of a finished run (CLI and logs): steps, the global error when a
//! reference exists, events and rejections, and what variable-step and defect-measuring
//! masters add (step range, degrees and corrector iterations; run-wide defects).

use super::Simulation;
use crate::master::RunDefects;
use alloc::format;
use alloc::string::String;
use core::fmt::Write;

/// A one-line summary of a finished run (CLI and logs).
pub fn summary(sim: &Simulation) -> String {
    let mut line = match sim.global_nrmse() {
        Some(e) => format!("{} macro-steps, global NRMSE {e:.3e}", sim.steps_done()),
        None => match sim.reference_note() {
            Some(why) => format!("{} macro-steps, no reference: {why}", sim.steps_done()),
            None => format!("{} macro-steps, no reference", sim.steps_done()),
        },
    };
    if let Some(e) = coupling_body_error(sim) {
        line.push_str(&format!(
            "; global error (seed 002 eqn 36) on the coupling-body states {e:.3e}"
        ));
    }
    let stats = sim.stats();
    if sim.variable_steps() {
        line.push_str(&step_size_summary(sim));
    }
    line.push_str(&format!(
        "; {} off-grid event points; {} rejected attempts rolled back ({} module states restored)",
        stats.events, stats.rejected, stats.modules_restored
    ));
    if let Some((t, module)) = sim.terminated_early() {
        line.push_str(&format!("; module `{module}` ended the run at t = {t} s"));
    }
    if let Some(d) = sim.run_defects() {
        line.push_str(&defect_summary(d));
    }
    line
}

/// Accepted steps, their range and, with order control, the degrees used.
fn step_size_summary(sim: &Simulation) -> String {
    let r = sim.result();
    let steps = r.step_sizes.iter().copied().filter(|h| *h > 0.0);
    let (lo, hi) = steps.fold((f64::INFINITY, 0.0_f64), |(a, b), h| (a.min(h), b.max(h)));
    let mut out = format!(
        "; {} accepted, H from {lo:.3e} to {hi:.3e} s",
        sim.stats().accepted
    );
    let orders = r.diagnostics.iter().filter_map(|d| d.order);
    if let (Some(k_lo), Some(k_hi)) = (orders.clone().min(), orders.max()) {
        let _ = write!(out, ", k from {k_lo} to {k_hi}");
    }
    // Implicit coupling: corrector runs of the accepted steps (rejected ones not counted).
    let iterations: u64 = r.diagnostics.iter().map(|d| u64::from(d.iterations)).sum();
    if iterations > 0 {
        let _ = write!(out, ", {iterations} corrector iterations in accepted steps");
    }
    out
}

/// Run-wide RMS defects per port and the largest controlled defect, for the summary.
fn defect_summary(d: &RunDefects) -> String {
    let mut out = format!("; largest controlled defect {:.3e}", d.max_controlled);
    for (k, name) in d.output_names.iter().enumerate() {
        let _ = write!(out, "; RMS output defect {name} {:.3e}", d.output_rms(k));
    }
    for (k, name) in d.input_names.iter().enumerate() {
        let _ = write!(
            out,
            "; RMS connection defect {name} {:.3e}",
            d.connection_rms(k)
        );
    }
    out
}

/// Seed 002's global error (eqn 36) over the recorded coupling-body states of a `chain`
/// run: per state the RMS deviation from the reference over the points after the start,
/// normalised by the reference's own RMS deviation from its mean, then the 2-norm over the
/// states. `None` for other runs, without a reference, or for a constant reference.
pub fn coupling_body_error(sim: &Simulation) -> Option<f64> {
    let r = sim.result();
    if r.recorded.is_empty() || r.time.len() < 2 {
        return None;
    }
    let ends = ["x_first", "v_first", "x_last", "v_last"];
    let mut sum = 0.0;
    let mut states = 0;
    for s in &r.signals {
        if !ends.iter().any(|e| s.name.ends_with(e)) {
            continue;
        }
        let reference = &s.reference.as_ref()?[1..];
        let cosim = &s.cosim[1..];
        if reference.iter().any(|v| v.is_nan()) {
            return None;
        }
        let mean = reference.iter().sum::<f64>() / reference.len() as f64;
        let spread: f64 = reference.iter().map(|z| (z - mean) * (z - mean)).sum();
        let deviation: f64 = reference
            .iter()
            .zip(cosim)
            .map(|(a, b)| (a - b) * (a - b))
            .sum();
        if spread == 0.0 {
            return None;
        }
        sum += deviation / spread;
        states += 1;
    }
    (states > 0).then(|| libm::sqrt(sum))
}
