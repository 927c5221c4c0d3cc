//! [`MpiExecutor`]: the driver's `Executor` seam across MPI processes. Every rank holds the
//! whole coupled system and runs the same driver; in each Jacobi sweep a rank steps only
//! the modules its [`ExchangePlan`] gives it, then
//!
//! 1. one all-reduce (minimum over ranks) agrees on the step's outcome: the lowest module
//!    that failed, discarded the step, asked for what a distributed sweep cannot do (early
//!    return, Event Mode) or asked to terminate, so every rank takes the same decision;
//! 2. each rank sends the outputs its neighbours read to them, point to point, and
//!    receives the ones it reads (for a chain: the coupling bodies and the cut forces);
//! 3. the recorded outputs are gathered on rank 0 (`MPI_Gatherv`), which writes the CSV.
//!
//! Under an error-controlled master ([`Sharing::Everyone`]) steps 2 and 3 are one
//! all-gather (`MPI_Allgatherv`) of the coupling bodies and recorded outputs instead: every
//! rank then evaluates every cut in the update step and the error norm over all coupling
//! variables in the order of one process, so the step-control decisions (accept or reject,
//! next H, next degree) agree on every rank without a reduction of floating-point partial
//! sums, whose order would change the bits. The monitored states of the state estimators
//! are shared the same way ([`Executor::complete`]).
//!
//! A module's arithmetic does not depend on who steps it, and the values travel as they
//! are (f64 bits), so rank 0 records the numbers of a single-process run.

use super::plan::{chain_owners, shared_outputs, ExchangePlan, Topology};
use ::mpi::collective::SystemOperation;
use ::mpi::datatype::PartitionMut;
use ::mpi::topology::SimpleCommunicator;
use ::mpi::traits::*;
use ::mpi::Count;
use cosim_core::error::MasterError;
use cosim_core::master::{Executor, Sweep};
use cosim_core::module::StepReport;
use std::ops::Range;
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Traffic one rank caused, counted as it goes (for docs/benchmarks.md).
#[derive(Clone, Copy, Debug, Default)]
pub struct Traffic {
    /// Sweeps stepped.
    pub sweeps: u64,
    /// All-reduces (the outcome of each sweep).
    pub reductions: u64,
    /// All-gathers (error-controlled masters: outputs after each sweep, states).
    pub all_gathers: u64,
    /// Bytes this rank contributed to them.
    pub shared_bytes: u64,
    /// Point-to-point messages sent.
    pub messages: u64,
    /// Bytes in them.
    pub bytes: u64,
    /// Bytes this rank contributed to the gathers on rank 0.
    pub gathered_bytes: u64,
    /// CPU time of the process in µs, filled in at the end of the run.
    pub cpu_us: u64,
    /// Peak resident set in KiB, filled in at the end of the run.
    pub peak_resident_kb: u64,
    /// Wall time stepping this rank's modules, in µs.
    pub stepping_us: u64,
    /// Wall time in the all-reduce, the exchange and the gather (waiting for the slowest
    /// rank included), in µs.
    pub communication_us: u64,
}

/// The outcome codes reduced after each sweep; `n` (the module count) means none.
const FAILED: usize = 0;
const DISCARDED: usize = 1;
const UNSUPPORTED: usize = 2;
const TERMINATES: usize = 3;

/// Who receives the outputs of a sweep.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sharing {
    /// The neighbours that read them; rank 0 the recorded ones (fixed-step Jacobi).
    Neighbours,
    /// Every rank, everything an input reads or rank 0 records (error-controlled masters).
    Everyone,
}

/// Steps this rank's modules of each sweep and exchanges what the others need.
pub struct MpiExecutor {
    rank: usize,
    size: usize,
    segments: usize,
    sharing: Sharing,
    /// The plotted outputs by name, resolved on the first sweep.
    recorded: Vec<String>,
    plan: Option<ExchangePlan>,
    topology: Option<Topology>,
    /// The recorded outputs' stacked indices, filled with the plan.
    recorded_outputs: Vec<usize>,
    /// `selected` of the last [`Sharing::Everyone`] sweep and its [`shared_outputs`].
    shared: Option<(Vec<bool>, Vec<Vec<usize>>)>,
    /// `(module, offset in its outputs)` of every stacked output, filled with the plan.
    location: Vec<(usize, usize)>,
    traffic: Arc<Mutex<Traffic>>,
}

impl MpiExecutor {
    /// The executor of `rank` among `size` for a chain of `segments` segments whose
    /// `recorded` outputs rank 0 writes.
    pub fn new(
        rank: usize,
        size: usize,
        segments: usize,
        sharing: Sharing,
        recorded: Vec<String>,
    ) -> Self {
        MpiExecutor {
            rank,
            size,
            segments,
            sharing,
            recorded,
            plan: None,
            topology: None,
            recorded_outputs: Vec::new(),
            shared: None,
            location: Vec::new(),
            traffic: Arc::default(),
        }
    }

    /// This executor's traffic counters, to read after the run.
    pub fn traffic(&self) -> Arc<Mutex<Traffic>> {
        Arc::clone(&self.traffic)
    }

    fn plan_for(&mut self, sweep: &Sweep<'_, '_>) -> Result<(), MasterError> {
        if self.plan.is_some() {
            return Ok(());
        }
        let graph = sweep.sys.graph();
        let owner = chain_owners(self.segments, self.size).map_err(MasterError::InvalidSettings)?;
        if owner.len() != graph.n_modules() {
            return Err(MasterError::InvalidSettings(format!(
                "--mpi expects the {} modules of a chain of {} segments, found {}",
                owner.len(),
                self.segments,
                graph.n_modules()
            )));
        }
        let recorded: Vec<usize> = self
            .recorded
            .iter()
            .filter_map(|name| graph.output_index(name))
            .collect();
        let topology = Topology::of(graph);
        for (m, range) in topology.outputs.iter().enumerate() {
            self.location
                .extend(range.clone().map(|o| (m, o - range.start)));
        }
        self.plan = Some(ExchangePlan::new(&topology, owner, self.rank, &recorded));
        self.topology = Some(topology);
        self.recorded_outputs = recorded;
        Ok(())
    }

    /// Finds the outputs each rank shares after a [`Sharing::Everyone`] sweep of `selected`
    /// (once per selection: every sweep of an explicit error-controlled master selects the
    /// dynamic modules).
    fn share_for(&mut self, selected: &[bool]) -> Result<(), MasterError> {
        let (Some(plan), Some(topology)) = (&self.plan, &self.topology) else {
            return Err(MasterError::InvalidSettings("no MPI plan".into()));
        };
        if self.shared.as_ref().is_none_or(|(s, _)| s != selected) {
            let shared = shared_outputs(topology, &plan.owner, selected, &self.recorded_outputs);
            self.shared = Some((selected.to_vec(), shared));
        }
        Ok(())
    }
}

impl Executor for MpiExecutor {
    fn sweep(&mut self, s: Sweep<'_, '_>) -> Result<(), MasterError> {
        self.plan_for(&s)?;
        if self.sharing == Sharing::Everyone {
            self.share_for(s.selected)?;
        }
        let Some(plan) = self.plan.as_ref() else {
            return Err(MasterError::InvalidSettings("no MPI plan".into()));
        };
        let world = SimpleCommunicator::world();
        let n = s.sys.n_modules();
        // Own modules, in index order as in a sequential sweep.
        let mut codes = [n as u64; 4];
        let mut own_error = None;
        let mut t_end = f64::NAN;
        let started = Instant::now();
        for mut slot in s.sys.slots() {
            let m = slot.index;
            if !s.selected[m] || !plan.owns(m) {
                continue;
            }
            match (s.task)(&mut slot) {
                Ok(Some(report)) => {
                    t_end = report.last_successful_time;
                    if report.early_return || report.event_handling_needed {
                        codes[UNSUPPORTED] = codes[UNSUPPORTED].min(m as u64);
                    }
                    if report.terminate_simulation {
                        codes[TERMINATES] = codes[TERMINATES].min(m as u64);
                    }
                    s.reports[m] = Some(report);
                }
                Ok(None) => {
                    codes[DISCARDED] = codes[DISCARDED].min(m as u64);
                    s.reports[m] = None;
                }
                Err(e) => {
                    codes[FAILED] = m as u64;
                    own_error = Some(e);
                    break;
                }
            }
        }
        let stepped = Instant::now();
        let mut agreed = [0u64; 4];
        world.all_reduce_into(&codes[..], &mut agreed[..], SystemOperation::min());
        if agreed[FAILED] < n as u64 {
            return Err(failure(
                &world,
                plan,
                agreed[FAILED] as usize,
                own_error,
                s.sys.name(agreed[FAILED] as usize),
            ));
        }
        if agreed[UNSUPPORTED] < n as u64 {
            return Err(MasterError::InvalidSettings(format!(
                "module `{}` returned early or needs Event Mode; `run --mpi` steps neither",
                s.sys.name(agreed[UNSUPPORTED] as usize)
            )));
        }
        // The other ranks' modules: what their owners reported, as far as the driver reads it.
        for m in (0..n).filter(|&m| s.selected[m] && !plan.owns(m)) {
            s.reports[m] = match agreed[DISCARDED] == m as u64 {
                true => None,
                false => Some(StepReport {
                    terminate_simulation: agreed[TERMINATES] == m as u64,
                    ..StepReport::completed(t_end)
                }),
            };
        }
        let mut traffic = self
            .traffic
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        traffic.reductions += 1;
        let outputs = s.sys.outputs();
        let (places, values): (Vec<usize>, Vec<f64>) = match &self.shared {
            Some((_, shared)) if self.sharing == Sharing::Everyone => {
                let mine: Vec<f64> = shared[self.rank].iter().map(|&o| outputs[o]).collect();
                let all = all_gather(&world, shared, &mine, &mut traffic);
                (shared.iter().flatten().copied().collect(), all)
            }
            _ => {
                let received = exchange(&world, plan, outputs, &mut traffic);
                let gathered = gather(&world, plan, outputs, &mut traffic);
                let incoming = plan.receives.iter().flat_map(|r| r.outputs.iter());
                let from_ranks = plan.gathered.iter().flat_map(|g| g.iter());
                let places = incoming.chain(from_ranks).copied().collect();
                (places, received.into_iter().chain(gathered).collect())
            }
        };
        traffic.sweeps += 1;
        traffic.stepping_us += (stepped - started).as_micros() as u64;
        traffic.communication_us += stepped.elapsed().as_micros() as u64;
        for (o, value) in places.into_iter().zip(values) {
            let (m, k) = self.location[o];
            s.sys.slot(m).outputs_mut()[k] = value;
        }
        // They stepped, elsewhere: a rejection restores them here too, as one process would
        // (and counts them alike in the summary).
        for m in (0..n).filter(|&m| s.selected[m] && !plan.owns(m)) {
            s.sys.mark_changed(m);
        }
        Ok(())
    }

    fn complete(&mut self, blocks: &[Range<usize>], values: &mut [f64]) -> Result<(), MasterError> {
        let Some(plan) = self.plan.as_ref() else {
            return Err(MasterError::InvalidSettings(
                "MPI: states read before the first sweep".into(),
            ));
        };
        let started = Instant::now();
        // Per rank, its modules' blocks in module order.
        let mut by_rank: Vec<Vec<usize>> = vec![Vec::new(); self.size];
        for (m, block) in blocks.iter().enumerate() {
            by_rank[plan.owner[m]].extend(block.clone());
        }
        let mine: Vec<f64> = by_rank[self.rank].iter().map(|&i| values[i]).collect();
        let world = SimpleCommunicator::world();
        let mut traffic = self
            .traffic
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let all = all_gather(&world, &by_rank, &mine, &mut traffic);
        for (i, value) in by_rank.iter().flatten().zip(all) {
            values[*i] = value;
        }
        traffic.communication_us += started.elapsed().as_micros() as u64;
        Ok(())
    }
}

/// Every rank's `mine` (rank `k`'s as long as `parts[k]`) on every rank, in rank order.
fn all_gather(
    world: &SimpleCommunicator,
    parts: &[Vec<usize>],
    mine: &[f64],
    traffic: &mut Traffic,
) -> Vec<f64> {
    let counts: Vec<Count> = parts.iter().map(|p| p.len() as Count).collect();
    let displs = displacements(&counts);
    let mut all = vec![0.0; counts.iter().sum::<Count>() as usize];
    let mut partition = PartitionMut::new(&mut all[..], counts, &displs[..]);
    world.all_gather_varcount_into(mine, &mut partition);
    traffic.all_gathers += 1;
    traffic.shared_bytes += 8 * mine.len() as u64;
    all
}

/// Where each part starts when parts of `counts` follow each other.
fn displacements(counts: &[Count]) -> Vec<Count> {
    counts
        .iter()
        .scan(0, |at, &c| {
            let start = *at;
            *at += c;
            Some(start)
        })
        .collect()
}

/// The error of the lowest failing module, on every rank: its owner sends the message to
/// all (`MPI_Bcast`, length first), so rank 0 prints what went wrong where.
fn failure(
    world: &SimpleCommunicator,
    plan: &ExchangePlan,
    module: usize,
    own_error: Option<MasterError>,
    name: &str,
) -> MasterError {
    let owner = plan.owner[module];
    let root = world.process_at_rank(owner as i32);
    let mut text = match (&own_error, owner == plan.rank) {
        (Some(e), true) => e.to_string().into_bytes(),
        _ => Vec::new(),
    };
    let mut len = text.len() as u64;
    root.broadcast_into(&mut len);
    text.resize(len as usize, 0);
    root.broadcast_into(&mut text[..]);
    match own_error {
        Some(e) if owner == plan.rank => e,
        // The variant whose message is the text alone.
        _ => MasterError::InvalidSettings(format!(
            "{} (module `{name}`, MPI rank {owner})",
            String::from_utf8_lossy(&text)
        )),
    }
}

/// Sends the outputs each neighbour reads and receives the ones this rank reads; returns
/// the received values in the order of `plan.receives`.
fn exchange(
    world: &SimpleCommunicator,
    plan: &ExchangePlan,
    outputs: &[f64],
    traffic: &mut Traffic,
) -> Vec<f64> {
    let sent: Vec<Vec<f64>> = plan
        .sends
        .iter()
        .map(|t| t.outputs.iter().map(|&o| outputs[o]).collect())
        .collect();
    let mut received: Vec<Vec<f64>> = plan
        .receives
        .iter()
        .map(|t| vec![0.0; t.outputs.len()])
        .collect();
    let requests = plan.sends.len() + plan.receives.len();
    ::mpi::request::multiple_scope(requests, |scope, requests| {
        for (t, buf) in plan.receives.iter().zip(received.iter_mut()) {
            let from = world.process_at_rank(t.peer as i32);
            requests.add(from.immediate_receive_into(scope, &mut buf[..]));
        }
        for (t, buf) in plan.sends.iter().zip(sent.iter()) {
            let to = world.process_at_rank(t.peer as i32);
            requests.add(to.immediate_send(scope, &buf[..]));
        }
        let mut done = Vec::with_capacity(requests.incomplete());
        requests.wait_all(&mut done);
    });
    traffic.messages += sent.len() as u64;
    traffic.bytes += sent.iter().map(|b| 8 * b.len() as u64).sum::<u64>();
    received.concat()
}

/// Gathers the recorded outputs of every rank on rank 0; returns them there (in the order
/// of `plan.gathered`), nothing elsewhere.
fn gather(
    world: &SimpleCommunicator,
    plan: &ExchangePlan,
    outputs: &[f64],
    traffic: &mut Traffic,
) -> Vec<f64> {
    let root = world.process_at_rank(0);
    let mine: Vec<f64> = plan.gathered[plan.rank]
        .iter()
        .map(|&o| outputs[o])
        .collect();
    if plan.rank != 0 {
        traffic.gathered_bytes += 8 * mine.len() as u64;
        root.gather_varcount_into(&mine[..]);
        return Vec::new();
    }
    let counts: Vec<Count> = plan.gathered.iter().map(|g| g.len() as Count).collect();
    let displs = displacements(&counts);
    let mut all = vec![0.0; counts.iter().sum::<Count>() as usize];
    let mut partition = PartitionMut::new(&mut all[..], counts, &displs[..]);
    root.gather_varcount_into_root(&mine[..], &mut partition);
    all
}
