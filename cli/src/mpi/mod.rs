//! `cosim run --mpi`: a chain's subsystems across MPI processes
//! (`mpirun -n R cosim run chain.json --mpi`, docs/methods.md §16.6). Built only with the
//! cargo feature `mpi` (rsmpi over the system's Open MPI); the default build parses
//! `--mpi` and says how to get a build that has it.
//!
//! - [`plan`]: who steps which module and who sends what to whom (plain data, no MPI);
//! - `executor`: the driver's executor seam across processes (point-to-point exchange
//!   with neighbours, the step's outcome by an all-reduce, results gathered on rank 0; under
//!   error control one all-gather of the coupling bodies and monitored states instead, so
//!   every rank takes one process's step-control decisions);
//! - `run`: the run loop every rank takes, rank 0 writing the CSV.

// Used by the executor only, which the default build leaves out (the tests still run).
#[cfg_attr(not(feature = "mpi"), allow(dead_code))]
pub mod plan;

#[cfg(feature = "mpi")]
mod executor;
#[cfg(feature = "mpi")]
mod run;

use crate::io::{Failure, Output};
use cosim_core::scenario::{Algorithm, JacobianSpec, StepControlSpec, ValidatedScenario};
use std::path::Path;

/// The number of segments of a scenario `run --mpi` can distribute: a chain on the plain
/// Jacobi master (no model-based correction, defects or energy plan) with fixed macro-steps
/// or under error control, explicit (ExSLocal, ExLocal, ExMilne) or implicit (ImSLocal,
/// ImMilne, with the finite-difference interface Jacobian): the masters that step their
/// modules through the executor seam and whose other work every rank can repeat on shared
/// values (docs/methods.md §16.6).
pub fn distributable(v: &ValidatedScenario) -> Result<usize, String> {
    let s = &v.scenario;
    let Some(chain) = &s.chain else {
        return Err(
            "--mpi runs chain scenarios (docs/methods.md §16); this one has no `chain`".into(),
        );
    };
    match &s.master.step_control {
        Some(StepControlSpec::Defect { .. }) => {
            return Err(
                "--mpi does not run defect control (it decides on the defects of every \
                 module, which the ranks do not share); drop `master.step_control` or run \
                 without --mpi"
                    .into(),
            )
        }
        Some(StepControlSpec::Error(spec)) if s.master.algorithm == Algorithm::Implicit => {
            let jacobian = spec.corrector.as_ref().map(|c| c.jacobian);
            if jacobian.is_some_and(|j| j != JacobianSpec::FiniteDifferences) {
                return Err(
                    "--mpi runs the implicit corrector with the finite-difference interface \
                     Jacobian only: the low-order and directional-derivative Jacobians \
                     linearise every module from its state at T_N, which only the rank that \
                     steps it has. Drop `corrector.jacobian` or run without --mpi"
                        .into(),
                );
            }
        }
        _ => {}
    }
    let plain = s.master.correction.is_none() && s.master.defects.is_none() && v.energy.is_none();
    let implicit = s.master.algorithm == Algorithm::Implicit && error_controlled(v);
    if !(s.master.algorithm == Algorithm::Jacobi || implicit) || !plain {
        return Err(
            "--mpi runs the plain Jacobi master (no correction, defects or energy \
                    settings): its sweeps are the ones that step modules at the same time"
                .into(),
        );
    }
    Ok(chain.subsystems as usize)
}

/// Whether `v` runs under error control (every rank then builds every segment and the ranks
/// share all coupling bodies after each sweep, docs/methods.md §16.6).
pub fn error_controlled(v: &ValidatedScenario) -> bool {
    matches!(
        v.scenario.master.step_control,
        Some(StepControlSpec::Error(_))
    )
}

/// Makes the scenario rank `rank` (not 0) builds at fixed step lighter: each segment that another rank
/// steps and this one does not read (directly, or through a cut it reads) becomes a stand-in of one mass with the same ports (the
/// first or last mass where the segment meets a wall, so the walls and inputs stay). Its
/// numbers are never used here; the outputs keep their places in the stacked vector, which
/// the exchange plan relies on. Memory then grows with the rank's share of the chain, not
/// with the chain. Rank 0 keeps every module: it records the initial outputs of all.
#[cfg_attr(not(feature = "mpi"), allow(dead_code))]
pub fn with_stand_ins(v: &mut ValidatedScenario, owner: &[usize], rank: usize) {
    let s = &mut v.scenario;
    let index = |port: &str| {
        let module = port.split('.').next().unwrap_or("");
        s.modules.iter().position(|m| m.name == module)
    };
    let is_segment = |m: usize| s.modules[m].parameters.contains_key("first");
    let links: Vec<(usize, usize)> = s
        .connections
        .iter()
        .filter_map(|c| Some((index(&c.from)?, index(&c.to)?)))
        .collect();
    // What the rank's modules read, and what feeds a cut among those: a cut's outputs at
    // initialisation come straight from its inputs (a segment's from its own states), and
    // the first step's inputs are predicted from the initial outputs.
    let mut read = vec![false; s.modules.len()];
    for &(from, to) in &links {
        read[from] |= owner.get(to) == Some(&rank);
    }
    for &(from, to) in &links {
        if read[to] && !is_segment(to) {
            read[from] = true;
        }
    }
    for (m, spec) in s.modules.iter_mut().enumerate() {
        let p = &mut spec.parameters;
        let (Some(&first), Some(&n), Some(&total)) = (p.get("first"), p.get("n"), p.get("total"))
        else {
            continue; // a cut: one small element
        };
        if rank == 0 || owner.get(m) == Some(&rank) || read[m] {
            continue;
        }
        let kept = if first + n - 1.0 == total && first > 1.0 {
            total
        } else {
            first
        };
        p.insert("first".into(), kept);
        p.insert("n".into(), 1.0);
        if p.contains_key("watch") {
            p.insert("watch".into(), kept);
        }
    }
}

/// Runs `v` as one rank of an MPI job; rank 0 writes the CSV to `file` or `stdout`.
pub fn run(v: &ValidatedScenario, file: Option<&Path>, stdout: Output) -> Result<(), Failure> {
    #[cfg(feature = "mpi")]
    return run::run(v, file, stdout);
    #[cfg(not(feature = "mpi"))]
    {
        let _ = (file, stdout);
        distributable(v)?;
        Err(
            "this cosim was built without MPI: build it with `cargo build -p cosim-cli \
             --release --features mpi` (Open MPI and libclang first: `cargo xtask setup`), \
             then `mpirun -n R target/release/cosim run SCENARIO.json --mpi`"
                .into(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cosim_core::scenario::parse;
    use cosim_core::simulation::Simulation;

    fn chain(extra: &str) -> ValidatedScenario {
        chain_on("jacobi", extra)
    }

    fn chain_on(algorithm: &str, extra: &str) -> ValidatedScenario {
        let text = format!(
            r#"{{"schema_version": 1,
                "chain": {{"masses": 50, "subsystems": 5, "watch": [3, 48]}},
                "master": {{"algorithm": "{algorithm}", "macro_step": 1e-8{extra}}},
                "run": {{"stop": 1e-7}}}}"#
        );
        parse(&text)
            .and_then(|s| s.validate())
            .expect("a valid chain")
    }

    fn segment(v: &ValidatedScenario, m: usize) -> (f64, f64, Option<f64>) {
        let p = &v.scenario.modules[m].parameters;
        (p["first"], p["n"], p.get("watch").copied())
    }

    #[test]
    fn fixed_step_and_error_controlled_chains_are_distributed() {
        assert_eq!(distributable(&chain("")), Ok(5));
        assert!(!error_controlled(&chain("")));
        for estimator in ["ex_s_local", "ex_local", "ex_milne"] {
            let controlled = chain(&format!(
                r#", "step_control": {{"method": "error", "estimator": "{estimator}", "rtol": 1e-3}}"#
            ));
            assert_eq!(distributable(&controlled), Ok(5), "{estimator}");
            assert!(error_controlled(&controlled));
        }
        for estimator in ["im_s_local", "im_milne"] {
            let implicit = chain_on(
                "implicit",
                &format!(
                    r#", "step_control": {{"method": "error", "estimator": "{estimator}", "rtol": 1e-3}}"#
                ),
            );
            assert_eq!(distributable(&implicit), Ok(5), "{estimator}");
        }
        let low_order = chain_on(
            "implicit",
            r#", "step_control": {"method": "error", "estimator": "im_s_local", "rtol": 1e-3,
                                  "corrector": {"jacobian": "low_order"}}"#,
        );
        let refused = distributable(&low_order).unwrap_err();
        assert!(
            refused.contains("finite-difference interface Jacobian only"),
            "{refused}"
        );
        let mut seidel = chain("");
        seidel.scenario.master.algorithm = Algorithm::GaussSeidel;
        assert!(distributable(&seidel).unwrap_err().contains("plain Jacobi"));
    }

    #[test]
    fn a_rank_builds_one_mass_for_each_segment_it_neither_steps_nor_reads() {
        let owner = plan::chain_owners(5, 3).expect("5 segments on 3 ranks");
        // Segments s1 s2 | s3 s4 | s5: rank 1 steps s3, s4 and reads s5's first mass.
        let mut v = chain("");
        with_stand_ins(&mut v, &owner, 1);
        assert_eq!(
            segment(&v, 0),
            (1.0, 1.0, Some(1.0)),
            "left wall kept, watch moved"
        );
        assert_eq!(
            segment(&v, 1),
            (11.0, 10.0, None),
            "feeds c2, which s3 reads"
        );
        assert_eq!(segment(&v, 2), (21.0, 10.0, None), "own");
        assert_eq!(segment(&v, 3), (31.0, 10.0, None), "own");
        assert_eq!(segment(&v, 4), (41.0, 10.0, Some(48.0)), "read");
        let mut last = chain("");
        with_stand_ins(&mut last, &owner, 0);
        assert_eq!(
            segment(&last, 4),
            (41.0, 10.0, Some(48.0)),
            "rank 0 keeps all"
        );
        let mut first = chain("");
        with_stand_ins(&mut first, &owner, 2);
        assert_eq!(segment(&first, 4), (41.0, 10.0, Some(48.0)), "own");
        assert_eq!(segment(&first, 2), (21.0, 1.0, None));
        assert_eq!(
            segment(&first, 3),
            (31.0, 10.0, None),
            "feeds c4, which s5 reads"
        );
        // An owner map with the right end on another rank: its stand-in keeps the last mass.
        let mut right = chain("");
        with_stand_ins(&mut right, &[1, 1, 1, 0, 0, 1, 1, 1, 0], 1);
        assert_eq!(
            segment(&right, 4),
            (50.0, 1.0, Some(50.0)),
            "right wall kept"
        );
        // Stand-ins keep every port: the system builds and the recorded outputs (the
        // watched masses, every cut and its coupling bodies) keep their stacked places.
        let full = Simulation::new(&chain("")).expect("builds");
        let light = Simulation::new(&first).expect("builds");
        assert_eq!(full.result().recorded, light.result().recorded);
        assert_eq!(full.result().recorded.len(), 4 + 4 * 5);
    }
}
