//! Theorem 1 on the linear example: an upper bound on the run-wide RMS output error from
//! the run-wide RMS integration, output and connection defects, with Lipschitz constants
//! computed from the model (docs/methods.md §15, "Experiments").
//!
//! With `x̃′ = A x̃ + B ũ + δx`, `ỹ = C x̃ + D ũ + δy`, `ũ = L ỹ + δu` (stacked) and the errors
//! `Δ = ~ − exact`, `M = (I − D L)⁻¹`:
//!
//! ```text
//! Δy = M C Δx + M D δu + M δy,      Δx′ = A* Δx + r,   Δx(0) = 0,
//! r  = δx + B (I + L M D) δu + B L M δy
//! ```
//!
//! Grönwall with the Lipschitz constant `K = ‖A*‖` and Cauchy–Schwarz give, on `[0, T]`,
//! `‖Δx(t)‖ ≤ sqrt(T (e^{2KT} − 1)/(2K)) · RMS‖r‖`, and by Minkowski
//! `RMS‖r‖ ≤ RMS‖δx‖ + ‖B(I + LMD)‖ RMS‖δu‖ + ‖BLM‖ RMS‖δy‖`, so
//!
//! ```text
//! RMS‖Δy‖ ≤ ‖MC‖ sup‖Δx‖ + ‖MD‖ RMS‖δu‖ + ‖M‖ RMS‖δy‖
//! ```
//!
//! Norms of vectors are Euclidean over the stacked ports (`RMS‖δu‖² = Σ_i RMS(δu_i)²`);
//! matrix norms are Frobenius norms, each an upper bound of the operator 2-norm, so every
//! constant is a valid Lipschitz constant.

use super::system::Exact;
use nalgebra::DMatrix;

/// The constants of the bound.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Theorem1 {
    /// `K = ‖A*‖`: Lipschitz constant of the closed-loop state equation.
    pub k: f64,
    /// `‖B (I + L M D)‖`: how a connection defect drives the state.
    pub state_from_connection: f64,
    /// `‖B L M‖`: how an output defect drives the state.
    pub state_from_output: f64,
    /// `‖M C‖`: Lipschitz constant of the outputs in the state.
    pub output_from_state: f64,
    /// `‖M D‖`: direct effect of a connection defect on the outputs.
    pub output_from_connection: f64,
    /// `‖M‖`: direct effect of an output defect on the outputs.
    pub output_from_output: f64,
}

/// Run-wide RMS defects (Euclidean over the stacked ports).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DefectSizes {
    /// `RMS‖δx‖` (0 for exact slaves).
    pub integration: f64,
    /// `RMS‖δy‖` (the output defect estimates).
    pub output: f64,
    /// `RMS‖δu‖`.
    pub connection: f64,
}

impl Theorem1 {
    /// The constants of the coupled system; `None` if `I − D L` is singular.
    pub fn of(e: &Exact) -> Option<Self> {
        let q = e.c.nrows();
        let m = (DMatrix::identity(q, q) - &e.d * &e.l).try_inverse()?;
        let p = e.b.ncols();
        let lmd = DMatrix::identity(p, p) + &e.l * &m * &e.d;
        Some(Theorem1 {
            k: e.reference.a_star().norm(),
            state_from_connection: (&e.b * lmd).norm(),
            state_from_output: (&e.b * &e.l * &m).norm(),
            output_from_state: (&m * &e.c).norm(),
            output_from_connection: (&m * &e.d).norm(),
            output_from_output: m.norm(),
        })
    }

    /// The bound on `sup ‖Δx‖` over a run of length `span` (s).
    pub fn state_error(&self, span: f64, d: &DefectSizes) -> f64 {
        let r = d.integration
            + self.state_from_connection * d.connection
            + self.state_from_output * d.output;
        let growth = if self.k > 0.0 {
            (libm::exp(2.0 * self.k * span) - 1.0) / (2.0 * self.k)
        } else {
            span
        };
        libm::sqrt(span * growth) * r
    }

    /// The bound on the run-wide `RMS‖Δy‖` over a run of length `span` (s).
    pub fn output_error(&self, span: f64, d: &DefectSizes) -> f64 {
        self.output_from_state * self.state_error(span, d)
            + self.output_from_connection * d.connection
            + self.output_from_output * d.output
    }
}
