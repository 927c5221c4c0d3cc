//! [`ExchangePlan`]: which rank steps which module of a chain, and which outputs each rank
//! sends to which other after a sweep. Plain data computed the same way on every rank from
//! the coupling graph, so sender and receiver agree on every message without telling each
//! other; no MPI here (unit-tested in the default build).

use std::collections::BTreeSet;
use std::ops::Range;

/// What the plan needs of the coupled system: per module its outputs (a range of the
/// stacked output vector) and the outputs its inputs read.
#[derive(Clone, Debug, PartialEq)]
pub struct Topology {
    /// `outputs[m]`: module `m`'s outputs in the stacked vector.
    pub outputs: Vec<Range<usize>>,
    /// `sources[m]`: the stacked outputs module `m`'s inputs are connected to.
    pub sources: Vec<Vec<usize>>,
}

impl Topology {
    /// The topology of a coupling graph.
    pub fn of(graph: &cosim_core::coupling::CouplingGraph) -> Self {
        let n = graph.n_modules();
        Topology {
            outputs: (0..n).map(|m| graph.output_range(m)).collect(),
            sources: (0..n)
                .map(|m| {
                    let inputs = graph.input_range(m);
                    inputs.map(|i| graph.source_of_input(i)).collect()
                })
                .collect(),
        }
    }

    fn output_module(&self, o: usize) -> usize {
        self.outputs.partition_point(|r| r.end <= o)
    }
}

/// The outputs one rank exchanges with one other, in increasing stacked order.
#[derive(Clone, Debug, PartialEq)]
pub struct Transfer {
    /// The other rank.
    pub peer: usize,
    /// Stacked output indices, sorted.
    pub outputs: Vec<usize>,
}

/// One rank's part of a chain run across `size` ranks.
#[derive(Clone, Debug, PartialEq)]
pub struct ExchangePlan {
    /// This rank.
    pub rank: usize,
    /// `owner[m]`: the rank that steps module `m`.
    pub owner: Vec<usize>,
    /// What this rank sends after each sweep, one entry per neighbour that reads it.
    pub sends: Vec<Transfer>,
    /// What this rank receives after each sweep, one entry per neighbour it reads.
    pub receives: Vec<Transfer>,
    /// `gathered[k]`: the recorded outputs rank `k` owns, gathered on rank 0 after each
    /// sweep in this order (rank 0's own entry is empty: it has them).
    pub gathered: Vec<Vec<usize>>,
}

/// Which rank steps each module of a chain of `segments` segments (modules `0..r` are the
/// segments `s1…sr`, `r..2r−1` the cuts `c1…c(r−1)`, as `ChainSpec::expand` writes them):
/// the segments in contiguous blocks whose sizes differ by at most one, the first
/// `r mod size` blocks one larger; cut `ci` with segment `si`, on its left.
pub fn chain_owners(segments: usize, size: usize) -> Result<Vec<usize>, String> {
    if segments < size {
        return Err(format!(
            "--mpi on {size} ranks needs at least {size} subsystems; the chain has {segments} \
             (run fewer ranks or split the chain further)"
        ));
    }
    let (q, extra) = (segments / size, segments % size);
    let mut owner = Vec::with_capacity(2 * segments - 1);
    for rank in 0..size {
        let n = q + usize::from(rank < extra);
        owner.extend(std::iter::repeat_n(rank, n));
    }
    for c in 0..segments - 1 {
        owner.push(owner[c]);
    }
    Ok(owner)
}

impl ExchangePlan {
    /// The plan of `rank` for modules stepped by `owner`, recording `recorded` (stacked
    /// output indices) on rank 0.
    pub fn new(topology: &Topology, owner: Vec<usize>, rank: usize, recorded: &[usize]) -> Self {
        let size = owner.iter().copied().max().map_or(1, |r| r + 1);
        let owner_of_output = |o: usize| owner[topology.output_module(o)];
        // needs[k]: outputs rank k reads but another rank writes.
        let mut needs: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); size];
        for (m, sources) in topology.sources.iter().enumerate() {
            for &o in sources {
                if owner_of_output(o) != owner[m] {
                    needs[owner[m]].insert(o);
                }
            }
        }
        let transfers = |reader: usize, writer: usize| -> Vec<usize> {
            let wanted = needs[reader].iter().copied();
            wanted.filter(|&o| owner_of_output(o) == writer).collect()
        };
        let mut sends = Vec::new();
        let mut receives = Vec::new();
        for peer in (0..size).filter(|&p| p != rank) {
            let out = transfers(peer, rank);
            if !out.is_empty() {
                sends.push(Transfer { peer, outputs: out });
            }
            let inc = transfers(rank, peer);
            if !inc.is_empty() {
                receives.push(Transfer { peer, outputs: inc });
            }
        }
        let mut recorded: Vec<usize> = recorded.to_vec();
        recorded.sort_unstable();
        recorded.dedup();
        let gathered = (0..size)
            .map(|k| match k {
                0 => Vec::new(),
                _ => recorded
                    .iter()
                    .copied()
                    .filter(|&o| owner_of_output(o) == k)
                    .collect(),
            })
            .collect();
        ExchangePlan {
            rank,
            owner,
            sends,
            receives,
            gathered,
        }
    }

    /// Whether this rank steps module `m`.
    pub fn owns(&self, m: usize) -> bool {
        self.owner[m] == self.rank
    }
}

/// `shared[k]`: the outputs of the `selected` modules rank `k` steps that an input reads or
/// rank 0 records (`recorded`), in stacked order. After a sweep of an error-controlled master
/// every rank gathers all of them (docs/methods.md §16.6): the update step re-evaluates every
/// cut from the coupling bodies on every rank, so the coupling variables, the error norm and
/// the step-control decision are those of one process everywhere.
pub fn shared_outputs(
    topology: &Topology,
    owner: &[usize],
    selected: &[bool],
    recorded: &[usize],
) -> Vec<Vec<usize>> {
    let size = owner.iter().copied().max().map_or(1, |r| r + 1);
    let mut wanted = vec![false; topology.outputs.last().map_or(0, |r| r.end)];
    for &o in topology.sources.iter().flatten().chain(recorded) {
        wanted[o] = true;
    }
    let mut shared = vec![Vec::new(); size];
    for (m, range) in topology.outputs.iter().enumerate() {
        if selected[m] {
            shared[owner[m]].extend(range.clone().filter(|&o| wanted[o]));
        }
    }
    shared
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three segments (outputs x_first, v_first, x_last, v_last, x_watch, v_watch; inputs
    /// lambda_left, lambda_right) and two cuts (output lambda; inputs the coupling bodies).
    fn three_segments() -> Topology {
        let seg = |m: usize| 6 * m..6 * m + 6;
        let cut = |c: usize| 18 + c..19 + c;
        Topology {
            outputs: vec![seg(0), seg(1), seg(2), cut(0), cut(1)],
            sources: vec![
                vec![18],     // s1.lambda_right <- c1
                vec![18, 19], // s2 <- c1, c2
                vec![19],     // s3.lambda_left <- c2
                vec![2, 3, 6, 7],
                vec![8, 9, 12, 13],
            ],
        }
    }

    #[test]
    fn segments_split_in_blocks_and_cuts_go_with_their_left_segment() {
        assert_eq!(chain_owners(3, 2).unwrap(), vec![0, 0, 1, 0, 0]);
        assert_eq!(chain_owners(5, 3).unwrap(), vec![0, 0, 1, 1, 2, 0, 0, 1, 1]);
        assert_eq!(chain_owners(4, 4).unwrap(), vec![0, 1, 2, 3, 0, 1, 2]);
        let refused = chain_owners(3, 4).unwrap_err();
        assert!(refused.contains("needs at least 4 subsystems"), "{refused}");
    }

    #[test]
    fn neighbours_exchange_the_coupling_bodies_and_the_cut_force() {
        let t = three_segments();
        let owner = chain_owners(3, 3).unwrap(); // [0, 1, 2, 0, 1]
        let p1 = ExchangePlan::new(&t, owner.clone(), 1, &[]);
        // Rank 1 steps s2 and c2: it reads c1's force from rank 0 and s3's first body from
        // rank 2, and sends s2's first body to rank 0 (for c1) and c2's force to rank 2.
        assert_eq!(
            p1.receives,
            vec![
                Transfer {
                    peer: 0,
                    outputs: vec![18]
                },
                Transfer {
                    peer: 2,
                    outputs: vec![12, 13]
                },
            ]
        );
        assert_eq!(
            p1.sends,
            vec![
                Transfer {
                    peer: 0,
                    outputs: vec![6, 7]
                },
                Transfer {
                    peer: 2,
                    outputs: vec![19]
                },
            ]
        );
        // Every send is the peer's receive, output for output.
        for rank in 0..3 {
            let p = ExchangePlan::new(&t, owner.clone(), rank, &[]);
            for s in &p.sends {
                let q = ExchangePlan::new(&t, owner.clone(), s.peer, &[]);
                let r = q.receives.iter().find(|r| r.peer == rank).unwrap();
                assert_eq!(r.outputs, s.outputs);
            }
        }
    }

    #[test]
    fn an_error_controlled_sweep_shares_the_coupling_bodies_and_the_recorded_outputs() {
        let t = three_segments();
        let owner = chain_owners(3, 2).unwrap(); // [0, 0, 1, 0, 0]
        let segments = [true, true, true, false, false];
        // The cuts read x_last, v_last of the left and x_first, v_first of the right segment;
        // s3's watched mass (16) is recorded, s1's (4, 5) is not.
        let shared = shared_outputs(&t, &owner, &segments, &[16, 19]);
        assert_eq!(shared, vec![vec![2, 3, 6, 7, 8, 9], vec![12, 13, 16]]);
    }

    #[test]
    fn recorded_outputs_are_gathered_from_the_rank_that_writes_them() {
        let t = three_segments();
        let p = ExchangePlan::new(&t, chain_owners(3, 2).unwrap(), 0, &[16, 4, 19, 4]);
        assert_eq!(p.gathered, vec![vec![], vec![16]]);
        assert!(p.owns(0) && p.owns(1) && !p.owns(2) && p.owns(4));
    }
}
