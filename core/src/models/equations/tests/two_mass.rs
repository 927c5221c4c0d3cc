//! The two-mass oscillator written as two equation modules, in a scenario JSON with the
//! built-in wiring, gives the built-in modules' results (same integrator and settings)
//! and the same monolithic reference, read through the AD Jacobians.

use super::super::EXAMPLE_SOURCE;
use super::MASS2_SOURCE;
use crate::scenario::{parse, preset, to_json, Scenario, SolverSpec};
use crate::simulation::{Simulation, SimulationResult};

fn run(s: &Scenario) -> (SimulationResult, Option<f64>) {
    let v = s.validate().unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Simulation::new(&v).unwrap_or_else(|e| panic!("{e}"));
    sim.run_to_end().unwrap_or_else(|e| panic!("{e}"));
    (sim.result().clone(), sim.global_nrmse())
}

/// The preset with both halves replaced by equation modules, round-tripped through JSON.
fn as_equations(builtin: &Scenario) -> Scenario {
    let mut s = builtin.clone();
    s.modules[0].model = "Equations".into();
    s.modules[0].source = Some(EXAMPLE_SOURCE.into());
    s.modules[1].model = "Equations".into();
    s.modules[1].source = Some(MASS2_SOURCE.into());
    let json = to_json(&s);
    assert!(json.contains("\"source\""));
    parse(&json).unwrap_or_else(|e| panic!("{e}"))
}

/// Largest difference over all samples, relative to each signal's largest magnitude.
fn max_rel_diff(a: &SimulationResult, b: &SimulationResult, reference: bool) -> f64 {
    assert_eq!(a.time, b.time);
    let mut worst = 0.0f64;
    for (sa, sb) in a.signals.iter().zip(&b.signals) {
        assert_eq!(sa.name, sb.name);
        let (xa, xb) = if reference {
            (
                sa.reference.clone().expect("reference"),
                sb.reference.clone().expect("reference"),
            )
        } else {
            (sa.cosim.clone(), sb.cosim.clone())
        };
        let scale = xb.iter().fold(0.0f64, |m, v| m.max(libm::fabs(*v)));
        for (p, q) in xa.iter().zip(&xb) {
            worst = worst.max(libm::fabs(p - q) / scale);
        }
    }
    worst
}

#[test]
fn equation_modules_reproduce_the_builtin_two_mass_oscillator_with_rk4() {
    // RK4 with the same 1e-5 s micro-step in both, Jacobi with linear extrapolation.
    let builtin = preset("two-mass-rk4").expect("preset");
    let eq = as_equations(&builtin);
    let (a, nrmse_a) = run(&eq);
    let (b, nrmse_b) = run(&builtin);
    let d = max_rel_diff(&a, &b, false);
    assert!(d <= 1e-9, "co-simulation differs by {d:e}");
    // The equation modules are recognised as linear, so the run gets the exact monolithic
    // reference from their AD Jacobians; it equals the one of the exact built-ins.
    let (exact, _) = run(&preset("two-mass-oscillator").expect("preset"));
    let r = max_rel_diff(&a, &exact, true);
    assert!(r <= 1e-12, "reference differs by {r:e}");
    let na = nrmse_a.expect("reference");
    assert!(na < 0.01, "global NRMSE {na} above seed 000's limit");
    // The built-in RK4 modules do not declare linearity: their reference is the coupled
    // equations integrated as one system (tight Dopri45), close to the exact one.
    let ri = max_rel_diff(&b, &exact, true);
    assert!(ri <= 1e-8, "integrated reference differs by {ri:e}");
    let nb = nrmse_b.expect("integrated reference");
    assert!(libm::fabs(nb / na - 1.0) <= 1e-5, "NRMSE {nb} against {na}");
}

#[test]
fn equation_modules_with_tight_dopri45_agree_with_the_exact_builtins_and_the_reference() {
    let mut builtin = preset("two-mass-oscillator").expect("preset");
    builtin.master.start_up = crate::scenario::StartUp::RampUp;
    let mut eq = as_equations(&builtin);
    for m in &mut eq.modules {
        m.solver = SolverSpec::Dopri45 {
            rtol: 1e-12,
            atol: 1e-15,
        };
    }
    let (a, _) = run(&eq);
    let (b, _) = run(&builtin);
    // Exact-per-step built-ins against tightly integrated equations.
    let d = max_rel_diff(&a, &b, false);
    assert!(d <= 1e-9, "co-simulation differs by {d:e}");
    let r = max_rel_diff(&a, &b, true);
    assert!(r <= 1e-12, "reference differs by {r:e}");
}
