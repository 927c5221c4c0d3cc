//! Tests of the error-control core on constructed grids and signals: the constants against
//! exact fractions, the polynomials against polynomials, and every order and step rule.

mod constants;
mod controller;
mod lagrange;
mod norms;
mod order;
mod signals;
mod step_size;

use crate::master::OutputHistory;

/// A history of `n` components from `(t, u)` points given oldest first.
fn history_of(points: &[(f64, &[f64])]) -> OutputHistory {
    let n = points.first().map_or(0, |p| p.1.len());
    let mut h = OutputHistory::new(points.len().max(1), n);
    for (t, u) in points {
        h.push(*t, u);
    }
    h
}

/// `|a − b| ≤ tol`, with a message naming `what`.
fn assert_close(a: f64, b: f64, tol: f64, what: &str) {
    assert!(
        (a - b).abs() <= tol,
        "{what}: {a} vs {b} (diff {:e})",
        a - b
    );
}
