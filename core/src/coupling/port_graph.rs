//! [`PortGraph`]: every port of a coupled system as one directed graph, stored compressed
//! (an offset per port, a target per edge), and its topological order by an iterative
//! depth-first search: O(ports + edges) time and memory, no recursion.

use super::Port;
use alloc::vec;
use alloc::vec::Vec;

/// Nodes `0..n_y` are the global outputs, `n_y..n_y + n_u` the global inputs. Edges run
/// from an output to the inputs it feeds (ascending) and from an input to the outputs of
/// the same module that depend on it directly (feedthrough, ascending).
pub(super) struct PortGraph {
    n_y: usize,
    /// The successors of node `v` are `targets[offsets[v]..offsets[v + 1]]`.
    offsets: Vec<usize>,
    targets: Vec<usize>,
}

impl PortGraph {
    /// `source[i]` is the output feeding input `i`; `feedthrough` holds the (input, output)
    /// pairs with direct feedthrough, sorted and without repeats.
    pub(super) fn new(n_y: usize, source: &[usize], feedthrough: &[(usize, usize)]) -> PortGraph {
        let n = n_y + source.len();
        let mut offsets = vec![0; n + 1];
        for &o in source {
            offsets[o + 1] += 1;
        }
        for &(i, _) in feedthrough {
            offsets[n_y + i + 1] += 1;
        }
        for v in 0..n {
            offsets[v + 1] += offsets[v];
        }
        let mut targets = vec![0; offsets[n]];
        // Inputs in ascending order, so each output's list is ascending.
        let mut next = offsets[..n_y].to_vec();
        for (i, &o) in source.iter().enumerate() {
            targets[next[o]] = n_y + i;
            next[o] += 1;
        }
        // Sorted by input, then output: the inputs' lists follow one another in order.
        let start = offsets[n_y];
        for (k, &(_, o)) in feedthrough.iter().enumerate() {
            targets[start + k] = o;
        }
        PortGraph {
            n_y,
            offsets,
            targets,
        }
    }

    fn successors(&self, node: usize) -> &[usize] {
        &self.targets[self.offsets[node]..self.offsets[node + 1]]
    }

    /// The port of node `node`.
    pub(super) fn port(&self, node: usize) -> Port {
        if node < self.n_y {
            Port::Output(node)
        } else {
            Port::Input(node - self.n_y)
        }
    }

    /// Reverse post-order of a depth-first search started from every node in index order
    /// (each successor list in its stored order), or the first cycle met as nodes (closed:
    /// the first node repeated at the end). The order decides the order of the initial
    /// value propagation, so it must not change.
    pub(super) fn order(&self) -> Result<Vec<Port>, Vec<usize>> {
        let n = self.offsets.len() - 1;
        let order = depth_first_order(n, |v| self.successors(v))?;
        Ok(order.into_iter().map(|v| self.port(v)).collect())
    }
}

/// Reverse post-order of an iterative depth-first search over nodes `0..n` started from
/// every node in index order (the successors of `v` in the order `successors(v)` gives
/// them), or the first cycle met (closed: its first node repeated at the end).
pub(super) fn depth_first_order<'a>(
    n: usize,
    successors: impl Fn(usize) -> &'a [usize],
) -> Result<Vec<usize>, Vec<usize>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        Open,
        Done,
    }
    let mut mark = vec![Mark::New; n];
    let mut post = Vec::with_capacity(n);
    // Explicit stack of (node, next successor position): no recursion depth limit.
    let mut stack: Vec<(usize, usize)> = Vec::new();
    for root in 0..n {
        if mark[root] != Mark::New {
            continue;
        }
        mark[root] = Mark::Open;
        stack.push((root, 0));
        while let Some(&mut (node, ref mut next)) = stack.last_mut() {
            if let Some(&s) = successors(node).get(*next) {
                *next += 1;
                match mark[s] {
                    Mark::New => {
                        mark[s] = Mark::Open;
                        stack.push((s, 0));
                    }
                    Mark::Open => {
                        // Open nodes are exactly the stack, so `s` is on it.
                        let start = stack.iter().position(|&(v, _)| v == s).unwrap_or(0);
                        let mut cycle: Vec<usize> =
                            stack[start..].iter().map(|&(v, _)| v).collect();
                        cycle.push(s);
                        return Err(cycle);
                    }
                    Mark::Done => {}
                }
            } else {
                mark[node] = Mark::Done;
                post.push(node);
                stack.pop();
            }
        }
    }
    post.reverse();
    Ok(post)
}
