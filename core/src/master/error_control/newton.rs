//! [`NewtonPolynomial`]: the coupling polynomial of one macro-step fitted once and then
//! evaluated as often as a subsystem integration needs, for every coupling variable,
//! without allocating after construction (docs/methods.md §14.5).

use super::history::Samples;
use super::lagrange::{divided_differences, newton_derivatives, newton_value, MAX_POINTS};
use alloc::vec;
use alloc::vec::Vec;

/// `P^j` of `n` components in Newton form: nodes `T_0, …, T_{j−1}` and divided differences.
#[derive(Clone, Debug, PartialEq)]
pub struct NewtonPolynomial {
    n: usize,
    degree: usize,
    nodes: [f64; MAX_POINTS],
    /// Component `i`'s divided differences at `i·MAX_POINTS ..`.
    coeffs: Vec<f64>,
}

impl NewtonPolynomial {
    /// Room for `n` components of degree up to `MAX_POINTS − 1`; the constant 0 until fitted.
    pub fn new(n: usize) -> Self {
        NewtonPolynomial {
            n,
            degree: 0,
            nodes: [0.0; MAX_POINTS],
            coeffs: vec![0.0; n * MAX_POINTS],
        }
    }

    /// Fits `P^j` through the newest `j + 1` points of `samples` (`j < samples.len()`,
    /// `j < MAX_POINTS`): the extrapolation on the history, the interpolation on a
    /// [`super::WithNewest`] view.
    pub fn fit<S: Samples + ?Sized>(&mut self, samples: &S, j: usize) {
        self.degree = j;
        for (l, node) in self.nodes.iter_mut().enumerate().take(j + 1) {
            *node = samples.time(l);
        }
        let mut d = [0.0; MAX_POINTS];
        for i in 0..self.n {
            divided_differences(samples, i, j, &mut d);
            self.coeffs[i * MAX_POINTS..(i + 1) * MAX_POINTS].copy_from_slice(&d);
        }
    }

    /// Degree `j` of the last fit.
    pub fn degree(&self) -> usize {
        self.degree
    }

    fn component(&self, i: usize) -> &[f64] {
        &self.coeffs[i * MAX_POINTS..(i + 1) * MAX_POINTS]
    }

    /// Component `i` at `t`.
    #[inline]
    pub fn value_of(&self, i: usize, t: f64) -> f64 {
        newton_value(|l| self.nodes[l], self.component(i), self.degree, t)
    }

    /// Every component at `t` (`out.len()` = components).
    pub fn value(&self, t: f64, out: &mut [f64]) {
        for (i, o) in out.iter_mut().enumerate() {
            *o = self.value_of(i, t);
        }
    }

    /// `out[m] = d^m p_i/dt^m (anchor)`, `m = 0..=degree` (zero above): the Taylor data
    /// modules receive as input value and derivatives at the step start.
    pub fn derivatives(&self, i: usize, anchor: f64, out: &mut [f64; MAX_POINTS]) {
        newton_derivatives(
            |l| self.nodes[l],
            self.component(i),
            self.degree,
            anchor,
            out,
        );
    }
}
