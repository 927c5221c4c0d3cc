//! `cosim run --mpi`: a chain's subsystems across MPI processes
//! (`mpirun -n R cosim run chain.json --mpi`, docs/methods.md §16.6). Built only with the
//! cargo feature `mpi` (rsmpi over the system's Open MPI); the default build parses
//! `--mpi` and says how to get a build that has it.
//!
//! - [`plan`]: who steps which module and who sends what to whom (plain data, no MPI);
//! - `executor`: the driver's executor seam across processes (point-to-point exchange
//!   with neighbours, the step's outcome by an all-reduce, results gathered on rank 0);
//! - `run`: the run loop every rank takes, rank 0 writing the CSV.

// Used by the executor only, which the default build leaves out (the tests still run).
#[cfg_attr(not(feature = "mpi"), allow(dead_code))]
pub mod plan;

#[cfg(feature = "mpi")]
mod executor;
#[cfg(feature = "mpi")]
mod run;

use crate::io::{Failure, Output};
use cosim_core::scenario::{Algorithm, ValidatedScenario};
use std::path::Path;

/// The number of segments of a scenario `run --mpi` can distribute: a chain on the
/// fixed-step Jacobi master without corrector, defects or energy plan (the master that
/// steps its modules through the executor seam).
pub fn distributable(v: &ValidatedScenario) -> Result<usize, String> {
    let s = &v.scenario;
    let Some(chain) = &s.chain else {
        return Err(
            "--mpi runs chain scenarios (docs/methods.md §16); this one has no `chain`".into(),
        );
    };
    if s.master.step_control.is_some() {
        return Err(
            "--mpi runs fixed macro-steps only: error-controlled and defect-controlled \
                    masters step their modules one after the other and decide on norms over \
                    every coupling variable; drop `master.step_control` or run without --mpi"
                .into(),
        );
    }
    let plain = s.master.correction.is_none() && s.master.defects.is_none() && v.energy.is_none();
    if s.master.algorithm != Algorithm::Jacobi || !plain {
        return Err(
            "--mpi runs the plain Jacobi master (no correction, defects or energy \
                    settings): its sweeps are the ones that step modules at the same time"
                .into(),
        );
    }
    Ok(chain.subsystems as usize)
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
