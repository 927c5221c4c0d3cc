//! The grid-dependent error constants `C^k_pos`, `C^k_vel` of paper eqns (17) and (20) and
//! the Milne factors built from them (docs/methods.md §14.6). With `t = T_N + s·H_N` and
//! `σ_j = (T_N − T_{N−j})/H_N`:
//!
//! ```text
//! L^k(s) = Π_{j=0}^{k−1} (s + σ_j)/(1 + σ_j),   C^k_vel = ∫₀¹ L^k ds,   C^k_pos = ∫₀¹ (1 − s) L^k ds
//! ```
//!
//! The integrands are polynomials of degree `k + 1 ≤ 9`, so 5-point Gauss–Legendre
//! quadrature is exact; recompute them every step, since they change with the grid.

use super::history::Samples;

/// Highest `k` whose constants the quadrature integrates exactly (degree `k + 1 ≤ 9`).
pub const MAX_CONSTANT_DEGREE: usize = 8;

/// 5-point Gauss–Legendre nodes on [−1, 1] (non-negative half) and their weights.
const GL_NODES: [f64; 3] = [0.0, 0.538_469_310_105_683_1, 0.906_179_845_938_664];
const GL_WEIGHTS: [f64; 3] = [
    128.0 / 225.0,
    0.478_628_670_499_366_47,
    0.236_926_885_056_189_08,
];

/// `C^k_pos` and `C^k_vel` of one degree on one grid.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ErrorConstants {
    /// `C^k_pos = ∫₀¹ (1 − s) L^k ds` (paper eqn 17).
    pub pos: f64,
    /// `C^k_vel = ∫₀¹ L^k ds` (paper eqn 20).
    pub vel: f64,
}

impl ErrorConstants {
    /// The constants of degree `k = sigma.len()` for the scaled past times
    /// `σ_j = (T_N − T_{N−j})/H_N` (`σ_0 = 0`); `None` above [`MAX_CONSTANT_DEGREE`].
    pub fn from_sigma(sigma: &[f64]) -> Option<Self> {
        if sigma.len() > MAX_CONSTANT_DEGREE {
            return None;
        }
        let l_k = |s: f64| -> f64 { sigma.iter().map(|&sj| (s + sj) / (1.0 + sj)).product() };
        let (mut pos, mut vel) = (0.0, 0.0);
        for (x, w) in GL_NODES.iter().zip(GL_WEIGHTS) {
            // Node pairs ±x mapped to s = (1 ± x)/2 on [0, 1], weight w/2 each.
            let nodes: &[f64] = if *x == 0.0 {
                &[0.5]
            } else {
                &[0.5 * (1.0 - x), 0.5 * (1.0 + x)]
            };
            for &s in nodes {
                let l = l_k(s);
                vel += 0.5 * w * l;
                pos += 0.5 * w * (1.0 - s) * l;
            }
        }
        Some(ErrorConstants { pos, vel })
    }
}

/// `C^k` and `C^{k+1}` of one step `T_N → T_N + H_N`: everything the Milne estimators need.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StepConstants {
    /// Degree `k` of the step.
    pub k: usize,
    /// `C^k`.
    pub c_k: ErrorConstants,
    /// `C^{k+1}`.
    pub c_k1: ErrorConstants,
}

/// Factors by which a Milne estimator multiplies its state differences.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MilneFactors {
    /// Factor on `|q − q̂|` (ExMilne) or `|q^pre − q|` (ImMilne).
    pub pos: f64,
    /// Factor on `|v − v̂|` (ExMilne) or `|v^pre − v|` (ImMilne).
    pub vel: f64,
}

impl MilneFactors {
    /// Factors 1: ExLocal's plain differences.
    pub const UNIT: MilneFactors = MilneFactors { pos: 1.0, vel: 1.0 };
}

impl StepConstants {
    /// The constants for `σ_j = (T_N − T_{N−j})/H_N`, `j = 0..=k` (`sigma.len() = k + 1`,
    /// `σ_0 = 0`: `C^k` uses the first `k`, `C^{k+1}` all).
    pub fn from_sigma(sigma: &[f64]) -> Option<Self> {
        let k = sigma.len().checked_sub(1)?;
        Some(StepConstants {
            k,
            c_k: ErrorConstants::from_sigma(&sigma[..k])?,
            c_k1: ErrorConstants::from_sigma(sigma)?,
        })
    }

    /// The constants of a step of degree `k` over `h_n` from the newest point of `history`
    /// (`T_N`), which must hold `k + 1` points; `None` otherwise.
    pub fn on_grid<S: Samples + ?Sized>(history: &S, k: usize, h_n: f64) -> Option<Self> {
        if history.len() < k + 1 || k + 1 > MAX_CONSTANT_DEGREE || h_n.is_nan() || h_n <= 0.0 {
            return None;
        }
        let t_n = history.time(0);
        let mut sigma = [0.0; MAX_CONSTANT_DEGREE];
        for (j, s) in sigma.iter_mut().enumerate().take(k + 1) {
            *s = (t_n - history.time(j)) / h_n;
        }
        Self::from_sigma(&sigma[..=k])
    }

    /// ExMilne's factors `C^{k+1}/C^k` (paper eqns 19, 20).
    pub fn explicit_milne(&self) -> MilneFactors {
        MilneFactors {
            pos: self.c_k1.pos / self.c_k.pos,
            vel: self.c_k1.vel / self.c_k.vel,
        }
    }

    /// ImMilne's factors `1 − C^{k+1}/C^k` (paper eqns 22, 23).
    pub fn implicit_milne(&self) -> MilneFactors {
        let ex = self.explicit_milne();
        MilneFactors {
            pos: 1.0 - ex.pos,
            vel: 1.0 - ex.vel,
        }
    }
}
