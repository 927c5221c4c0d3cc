//! The per-step columns of a run's CSV: a variable-step run ends every row with `H`, the
//! macro-step that ended at the point (0 at the start); a fixed-step run without
//! diagnostics writes no extra column, so its CSV is what it always was.

use cosim_core::master::StepController;
use cosim_core::scenario;
use cosim_core::simulation::Simulation;
use cosim_core::testing::RejectFirstTry;

fn preset(id: &str) -> scenario::ValidatedScenario {
    let p = scenario::presets()
        .into_iter()
        .find(|p| p.id == id)
        .unwrap_or_else(|| panic!("preset {id}"));
    p.scenario.validate().expect("valid preset")
}

#[test]
fn a_variable_step_run_writes_the_step_that_ended_at_each_point() {
    let v = preset("two-mass-oscillator");
    let mut sim = Simulation::with_controller(&v, |grid| {
        Box::new(RejectFirstTry::new(grid, 2.0)) as Box<dyn StepController>
    })
    .expect("built");
    assert_eq!(sim.progress(), 0.0);
    sim.advance(3).expect("three steps");
    let t = *sim.result().time.last().expect("time");
    let expected = t / v.scenario.run.stop;
    assert!(expected > 0.0 && (sim.progress() - expected).abs() < 1e-12);
    sim.run_to_end().expect("ran");
    assert_eq!(sim.progress(), 1.0);
    assert!(sim.variable_steps());
    let csv = sim.to_csv();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().expect("header").split(',').collect();
    assert_eq!(header.last(), Some(&"H"), "{header:?}");
    let rows: Vec<Vec<f64>> = lines
        .map(|l| l.split(',').map(|c| c.parse().expect("number")).collect())
        .collect();
    assert_eq!(rows[0].last(), Some(&0.0));
    for w in rows.windows(2) {
        let h = *w[1].last().expect("H");
        assert!(
            (h - (w[1][0] - w[0][0])).abs() <= 1e-12 * h.abs().max(1e-300),
            "{w:?}"
        );
    }
}

#[test]
fn a_fixed_step_run_writes_no_step_columns() {
    let v = preset("two-mass-oscillator");
    let mut sim = Simulation::new(&v).expect("built");
    sim.run_to_end().expect("ran");
    assert!(!sim.variable_steps());
    assert!(sim.step_columns().names().is_empty());
    let header = sim.to_csv().lines().next().expect("header").to_string();
    assert!(!header.split(',').any(|c| c == "H"), "{header}");
}
