//! The run loop of `cosim run --mpi` on every rank. All ranks build the same system and
//! drive it in step (the same chunks of macro-steps); only rank 0 keeps the reference and
//! writes the CSV, progress and summary. Whatever could stop one rank alone (a failing
//! output file, Ctrl-C, a build error) is agreed on by an all-reduce first, so no rank is
//! left waiting in a collective call. Rank 0 says what stopped the job and gives the
//! job's exit status; the other ranks then end quietly with status 0, since `mpirun`
//! aborts the whole job (rank 0 before it speaks) when a rank ends with an error first.

use super::executor::{MpiExecutor, Sharing, Traffic};
use super::plan::chain_owners;
use super::with_stand_ins;
use crate::commands::{interrupted, stop_on_ctrl_c};
use crate::io::{self, Failure, Output};
use ::mpi::collective::SystemOperation;
use ::mpi::topology::SimpleCommunicator;
use ::mpi::traits::*;
use cosim_core::scenario::ValidatedScenario;
use cosim_core::simulation::{self, Simulation};
use std::io::IsTerminal;
use std::path::Path;
use std::time::{Duration, Instant};

/// Macro-steps between agreements on stopping, progress and rows written.
const CHUNK: u32 = 4096;

/// Whether any rank says `yes` (all-reduce, maximum).
fn any_rank(world: &SimpleCommunicator, yes: bool) -> bool {
    let mut any = 0u8;
    world.all_reduce_into(&u8::from(yes), &mut any, SystemOperation::max());
    any == 1
}

/// One rank of `mpirun -n R cosim run SCENARIO.json --mpi`.
pub fn run(v: &ValidatedScenario, file: Option<&Path>, stdout: Output) -> Result<(), Failure> {
    let universe = ::mpi::initialize().ok_or("MPI cannot be initialised twice")?;
    let world = universe.world();
    match (world.rank(), rank_run(&world, v, file, stdout)) {
        (0, result) => result,
        (_, Err(Failure::Message(_))) => Ok(()),
        (_, result) => result,
    }
}

/// A failure rank 0 reports for every rank (the others have the same one, agreed).
fn said_by_rank_0() -> Failure {
    Failure::Message("said by rank 0".into())
}

fn rank_run(
    world: &SimpleCommunicator,
    v: &ValidatedScenario,
    file: Option<&Path>,
    stdout: Output,
) -> Result<(), Failure> {
    let (rank, size) = (world.rank() as usize, world.size() as usize);
    // The same on every rank, so all refuse together; rank 0 says why.
    let segments = super::distributable(v).and_then(|s| chain_owners(s, size).map(|_| s));
    let segments = match (segments, rank) {
        (Ok(s), _) => s,
        (Err(e), 0) => return Err(e.into()),
        (Err(_), _) => return Err(said_by_rank_0()),
    };
    let mut local = v.clone();
    let controlled = super::error_controlled(v);
    if rank != 0 {
        local.scenario.reference = false;
        // Under error control every rank evaluates every cut and the start-up tangent from
        // every segment's equations: no stand-ins there.
        if !controlled {
            with_stand_ins(&mut local, &chain_owners(segments, size)?, rank);
        }
    }
    let sharing = match controlled {
        true => Sharing::Everyone,
        false => Sharing::Neighbours,
    };
    let recorded = v.scenario.plot.clone();
    let executor = MpiExecutor::new(rank, size, segments, sharing, recorded);
    let traffic = executor.traffic();
    let sim = Simulation::with_executor(&local, Some(Box::new(executor)));
    let out = match (rank, &sim) {
        (0, Ok(_)) => Some(match file {
            Some(_) => Output::to(file),
            None => Ok(stdout),
        }),
        _ => None,
    };
    let failed = sim.is_err() || matches!(out, Some(Err(_)));
    if any_rank(world, failed) {
        return match (sim, out) {
            (Err(e), _) if rank == 0 => Err(e.to_string().into()),
            (_, Some(Err(e))) => Err(e),
            _ => Err(said_by_rank_0()),
        };
    }
    let (Ok(mut sim), out) = (sim, out.and_then(Result::ok)) else {
        return Err("internal: a build failure was not agreed on".into());
    };
    stop_on_ctrl_c();
    let outcome = steps(world, &mut sim, &local, out)?;
    let spent = outcome.1;
    outcome.0?;
    let counts = traffic.lock().map(|t| *t).unwrap_or_default();
    let all = gather_traffic(world, counts);
    if rank == 0 {
        io::note(&format!("{}\n", simulation::summary(&sim)));
        io::note(&report(&all, sim.steps_done(), spent));
    }
    Ok(())
}

/// Takes every macro-step in chunks; rank 0 streams the rows. Returns the outcome and the
/// wall time of the stepping.
fn steps(
    world: &SimpleCommunicator,
    sim: &mut Simulation,
    v: &ValidatedScenario,
    mut out: Option<Output>,
) -> Result<(Result<(), Failure>, Duration), Failure> {
    let root = out.is_some();
    let columns = Simulation::streaming_columns(v);
    let mut write_error = None;
    if let (Some(o), Some(c)) = (out.as_mut(), columns) {
        write_error = o.write(&sim.csv_header(c)).err();
    }
    let progress = root && std::io::stderr().is_terminal();
    let started = Instant::now();
    let mut last_report = started;
    let mut written = 0;
    let outcome = loop {
        if any_rank(world, interrupted() || write_error.is_some()) {
            break Err(match write_error.take() {
                Some(e) => e,
                None if root => format!(
                    "interrupted at t = {} s; the CSV holds the {} points computed",
                    sim.result().time.last().copied().unwrap_or(f64::NAN),
                    sim.result().time.len()
                )
                .into(),
                None => said_by_rank_0(),
            });
        }
        let step = sim.advance(CHUNK);
        if let (Some(o), Some(c)) = (out.as_mut(), columns) {
            let n = sim.result().time.len();
            if write_error.is_none() {
                write_error = o.write(&sim.csv_rows(c, written..n)).err();
            }
            written = n;
        }
        match step {
            Ok(true) => break Ok(()),
            Ok(false) => {}
            // Every rank has the same error; rank 0 says it.
            Err(e) if root => break Err(e.to_string().into()),
            Err(_) => break Err(said_by_rank_0()),
        }
        if progress && last_report.elapsed() > Duration::from_secs(1) {
            last_report = Instant::now();
            io::note(&format!(
                "\r{:5.1} % of the run, {} macro-steps, {:.0} s",
                100.0 * sim.progress(),
                sim.steps_done(),
                started.elapsed().as_secs_f64()
            ));
        }
    };
    let spent = started.elapsed();
    if progress && last_report != started {
        io::note("\n");
    }
    if let Some(mut o) = out {
        if columns.is_none() && write_error.is_none() {
            write_error = o.write(&sim.to_csv()).err();
        }
        let finished = o.finish();
        if let Some(e) = write_error {
            return Ok((Err(e), spent));
        }
        finished?;
    }
    Ok((outcome, spent))
}

/// Every rank's traffic on rank 0 (empty elsewhere).
fn gather_traffic(world: &SimpleCommunicator, t: Traffic) -> Vec<Traffic> {
    let mine = [
        t.sweeps,
        t.reductions,
        t.all_gathers,
        t.shared_bytes,
        t.messages,
        t.bytes,
        t.gathered_bytes,
        peak_resident_kb(),
        t.stepping_us,
        t.communication_us,
        cpu_us(),
    ];
    let root = world.process_at_rank(0);
    if world.rank() != 0 {
        root.gather_into(&mine[..]);
        return Vec::new();
    }
    let mut all = vec![0u64; mine.len() * world.size() as usize];
    root.gather_into_root(&mine[..], &mut all[..]);
    all.chunks(mine.len())
        .map(|c| Traffic {
            sweeps: c[0],
            reductions: c[1],
            all_gathers: c[2],
            shared_bytes: c[3],
            messages: c[4],
            bytes: c[5],
            gathered_bytes: c[6],
            peak_resident_kb: c[7],
            stepping_us: c[8],
            communication_us: c[9],
            cpu_us: c[10],
        })
        .collect()
}

/// CPU time this process used so far in µs (Linux `schedstat`; 0 where unknown). Open MPI
/// polls while it waits, so a waiting rank counts as busy.
fn cpu_us() -> u64 {
    let stat = std::fs::read_to_string("/proc/self/schedstat").unwrap_or_default();
    let ns: u64 = stat
        .split_whitespace()
        .next()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    ns / 1000
}

/// This process's peak resident set in KiB (Linux `VmHWM`; 0 where unknown).
fn peak_resident_kb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let line = status.lines().find(|l| l.starts_with("VmHWM:"));
    let kb = line.and_then(|l| l.split_whitespace().nth(1));
    kb.and_then(|v| v.parse().ok()).unwrap_or(0)
}

/// The timing and communication volume per accepted macro-step, for docs/benchmarks.md.
fn report(all: &[Traffic], steps: u32, spent: Duration) -> String {
    let per = |x: u64| x as f64 / f64::from(steps.max(1));
    let sweeps = all.first().map_or(0, |t| t.sweeps);
    let mut text = format!(
        "mpi: {} ranks, {steps} macro-steps in {:.3} s, {:.2} sweeps per macro-step; per \
         macro-step and rank:\n",
        all.len(),
        spent.as_secs_f64(),
        per(sweeps)
    );
    for (rank, t) in all.iter().enumerate() {
        text.push_str(&format!(
            "  rank {rank}: {:.1} all-reduces, {:.1} all-gathers of {:.0} B from this rank, \
             {:.1} messages of {:.0} B to neighbours, {:.0} B to the gather on rank 0; \
             stepping {:.3} ms, communication {:.3} ms; CPU {:.2} s in all, peak resident \
             {:.1} MB\n",
            per(t.reductions),
            per(t.all_gathers),
            per(t.shared_bytes),
            per(t.messages),
            per(t.bytes),
            per(t.gathered_bytes),
            per(t.stepping_us) / 1000.0,
            per(t.communication_us) / 1000.0,
            t.cpu_us as f64 / 1e6,
            t.peak_resident_kb as f64 / 1024.0
        ));
    }
    text
}
