//! `cosim energy SCENARIO.json`: runs a scenario with power bonds and prints, one
//! `key=value` per line for scripts, the mean residual power, the residual energy at the
//! end and the energy ratio (docs/methods.md §13.8).

use cosim_core::simulation::Simulation;
use std::fmt::Write;

/// The report of a finished run; an error for a scenario without bonds.
pub fn report(sim: &Simulation) -> Result<String, String> {
    let s = sim
        .energy_summary()
        .ok_or("the scenario has no `bonds`: nothing to monitor (docs/methods.md §13)")?;
    let mut out = String::new();
    for (name, mean_dp, de) in &s.bonds {
        let _ = writeln!(out, "bond.{name}.mean_dP={mean_dp:e}");
        let _ = writeln!(out, "bond.{name}.dE_T={de:e}");
    }
    let _ = writeln!(out, "mean_dP={:e}", s.mean_dp);
    let _ = writeln!(out, "dE_T={:e}", s.de_end);
    if s.e0.is_finite() {
        let _ = writeln!(out, "E0={:e}", s.e0);
        let _ = writeln!(out, "E_T={:e}", s.e_end);
        let _ = writeln!(out, "E_T/E0={:e}", s.e_end / s.e0);
        if let Some(e_ref) = s.e_ref_end {
            let _ = writeln!(out, "E_ref_T={e_ref:e}");
            let _ = writeln!(out, "E_ref_T/E0={:e}", e_ref / s.e0);
        }
    }
    Ok(out)
}
