//! Ordering the algebraic definitions (`var`s and `output`s) so each follows what it
//! uses: an iterative depth-first search (no recursion, so long chains cannot overflow
//! the stack) that reports a cycle with the names of its members.

use super::check::Checker;
use super::error::{SourceError, Span};
use super::resolved::{uses, Alg, Sym};
use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

impl Checker<'_> {
    /// Orders `var`s and `output`s so each follows what it uses (iterative depth-first
    /// search); a cycle is an error naming its members. `spans[k]` is where definition
    /// `k` (vars first, then outputs) is written.
    pub(crate) fn algebraic_order(&self, spans: &[Span]) -> Result<Vec<Alg>, SourceError> {
        let m = &self.model;
        let nv = m.vars.len();
        let node = |a: Alg| match a {
            Alg::Var(i) => i,
            Alg::Output(i) => nv + i,
        };
        let alg = |k: usize| {
            if k < nv {
                Alg::Var(k)
            } else {
                Alg::Output(k - nv)
            }
        };
        let n = nv + m.outputs.len();
        let deps: Vec<Vec<usize>> = (0..n)
            .map(|k| {
                let def = match alg(k) {
                    Alg::Var(i) => &m.var_def[i],
                    Alg::Output(i) => &m.out_def[i],
                };
                let mut d = Vec::new();
                uses(def, &mut |s| match s {
                    Sym::Var(i) => d.push(node(Alg::Var(i))),
                    Sym::Output(i) => d.push(node(Alg::Output(i))),
                    _ => {}
                });
                d
            })
            .collect();
        // 0 = unvisited, 1 = on the stack, 2 = done.
        let mut mark = vec![0u8; n];
        let mut order = Vec::with_capacity(n);
        for root in 0..n {
            if mark[root] != 0 {
                continue;
            }
            let mut stack: Vec<(usize, usize)> = vec![(root, 0)];
            mark[root] = 1;
            while let Some(top) = stack.last_mut() {
                let k = top.0;
                let child = deps[k].get(top.1).copied();
                top.1 += 1;
                if let Some(child) = child {
                    match mark[child] {
                        0 => {
                            mark[child] = 1;
                            stack.push((child, 0));
                        }
                        1 => {
                            let from = stack.iter().position(|s| s.0 == child).unwrap_or(0);
                            let cycle: Vec<usize> = stack[from..].iter().map(|s| s.0).collect();
                            return Err(self.cycle_error(&cycle, spans, &alg));
                        }
                        _ => {}
                    }
                } else {
                    mark[k] = 2;
                    order.push(alg(k));
                    stack.pop();
                }
            }
        }
        Ok(order)
    }

    fn cycle_error(
        &self,
        cycle: &[usize],
        spans: &[Span],
        alg: &dyn Fn(usize) -> Alg,
    ) -> SourceError {
        let name = |k: usize| match alg(k) {
            Alg::Var(i) => self.model.vars[i].name.clone(),
            Alg::Output(i) => self.model.outputs[i].name.clone(),
        };
        // Start the listing at the member written first.
        let first = (0..cycle.len())
            .min_by_key(|&i| spans[cycle[i]].start)
            .unwrap_or(0);
        let mut names: Vec<String> = (0..cycle.len())
            .map(|j| format!("`{}`", name(cycle[(first + j) % cycle.len()])))
            .collect();
        names.push(names[0].clone());
        let msg = format!(
            "algebraic cycle: {} (each needs the other's value; break the cycle with a state)",
            names.join(" -> ")
        );
        self.err(spans[cycle[first]], msg)
    }
}
