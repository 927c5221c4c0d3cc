//! The coupling-variable history `(T_i, u_i)`, newest first, as the Lagrange polynomials
//! and the order controller read it: the [`Samples`] trait, implemented by the run's ring
//! buffer ([`OutputHistory`], allocated once with [`coupling_history`]) and by
//! [`WithNewest`], which puts a point not yet committed in front (the attempt's `u_{N+1}`
//! while the step may still be rejected, or the corrector's unknown `u*_{N+1}`).

use super::settings::HISTORY_CAPACITY;
use crate::master::OutputHistory;

/// Points `(T_j, u_j)`, `j = 0` the newest, with `T_0 > T_1 > …` and `n_c` components each.
pub trait Samples {
    /// Points held.
    fn len(&self) -> usize;
    /// True when there is no point.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Time of point `j` (0 = newest, `j < len`).
    fn time(&self, j: usize) -> f64;
    /// Values of point `j` (0 = newest, `j < len`).
    fn value(&self, j: usize) -> &[f64];
}

impl Samples for OutputHistory {
    fn len(&self) -> usize {
        OutputHistory::len(self)
    }
    fn time(&self, j: usize) -> f64 {
        OutputHistory::time(self, j)
    }
    fn value(&self, j: usize) -> &[f64] {
        self.sample(j)
    }
}

/// A history of `n_c` coupling variables with room for the `k_max + 3` points order
/// control needs at `k_max = 5`; pushing never allocates.
pub fn coupling_history(n_c: usize) -> OutputHistory {
    OutputHistory::new(HISTORY_CAPACITY, n_c)
}

/// `rest` with the point `(t, u)` in front as the newest (`t` after every time of `rest`).
#[derive(Clone, Copy, Debug)]
pub struct WithNewest<'a, S: ?Sized> {
    t: f64,
    u: &'a [f64],
    rest: &'a S,
}

impl<'a, S: Samples + ?Sized> WithNewest<'a, S> {
    /// The view `(t, u), rest[0], rest[1], …`.
    pub fn new(t: f64, u: &'a [f64], rest: &'a S) -> Self {
        WithNewest { t, u, rest }
    }
}

impl<S: Samples + ?Sized> Samples for WithNewest<'_, S> {
    fn len(&self) -> usize {
        self.rest.len() + 1
    }
    fn time(&self, j: usize) -> f64 {
        if j == 0 {
            self.t
        } else {
            self.rest.time(j - 1)
        }
    }
    fn value(&self, j: usize) -> &[f64] {
        if j == 0 {
            self.u
        } else {
            self.rest.value(j - 1)
        }
    }
}

/// The newest `len` points of `rest` (the history without its oldest points: what remains
/// once the tangent start's point before `T_0` is dropped).
#[derive(Clone, Copy, Debug)]
pub struct Newest<'a, S: ?Sized> {
    rest: &'a S,
    len: usize,
}

impl<'a, S: Samples + ?Sized> Newest<'a, S> {
    /// The newest `len` points of `rest` (all of them if it holds fewer).
    pub fn new(rest: &'a S, len: usize) -> Self {
        Newest {
            rest,
            len: len.min(rest.len()),
        }
    }
}

impl<S: Samples + ?Sized> Samples for Newest<'_, S> {
    fn len(&self) -> usize {
        self.len
    }
    fn time(&self, j: usize) -> f64 {
        self.rest.time(j)
    }
    fn value(&self, j: usize) -> &[f64] {
        self.rest.value(j)
    }
}
