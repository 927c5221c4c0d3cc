//! [`Rod`]: one point mass on a massless rod pinned at a pivot, in the Cartesian
//! coordinates `(x, y, vx, vy)` of its tip with the rod length as a constraint: its
//! index-1 equations, its constrained symplectic Euler step and its energy.

use crate::models::layout::PortSpec;
use alloc::format;
use alloc::vec::Vec;

/// A pendulum: tip mass, rod length, pivot, start angle and gravity.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rod {
    /// Tip mass in kg. Default 1.
    pub m: f64,
    /// Rod length in m. Default 1.
    pub l: f64,
    /// Pivot x in m. Default 0.
    pub px: f64,
    /// Pivot y in m. Default 0.
    pub py: f64,
    /// Start angle from the −y axis in rad (counter-clockwise positive). Default 0.
    pub theta0: f64,
    /// Start angular velocity in rad/s. Default 0.
    pub omega0: f64,
    /// Gravity along −y in m/s². Default 9.81.
    pub g: f64,
}

impl Default for Rod {
    fn default() -> Self {
        Rod {
            m: 1.0,
            l: 1.0,
            px: 0.0,
            py: 0.0,
            theta0: 0.0,
            omega0: 0.0,
            g: 9.81,
        }
    }
}

impl Rod {
    /// The tip state `(x, y, vx, vy)` at the start angle and angular velocity.
    pub fn start(&self) -> [f64; 4] {
        let (s, c) = (libm::sin(self.theta0), libm::cos(self.theta0));
        let speed = self.l * self.omega0;
        [
            self.px + self.l * s,
            self.py - self.l * c,
            speed * c,
            speed * s,
        ]
    }

    /// The tip states as ports with their start values; `which` names the pendulum.
    pub(super) fn state_ports(&self, which: &str) -> Vec<PortSpec> {
        let s = self.start();
        let text = |what: &str| format!("tip {which}, {what}");
        Vec::from([
            PortSpec::new("x", "m", s[0], &text("x")),
            PortSpec::new("y", "m", s[1], &text("y")),
            PortSpec::new("vx", "m/s", s[2], &text("velocity x")),
            PortSpec::new("vy", "m/s", s[3], &text("velocity y")),
        ])
    }

    /// Applied force on the tip: gravity plus `f`.
    fn applied(&self, f: [f64; 2]) -> [f64; 2] {
        [f[0], f[1] - self.m * self.g]
    }

    /// `dx` of the index-1 equations under the external force `f` on the tip: the rod
    /// force `−λ d` with `λ = (d·Q + m |v|²)/|d|²` keeps `Φ̈ = 0`.
    pub fn rhs(&self, x: &[f64], f: [f64; 2], dx: &mut [f64]) {
        let d = [x[0] - self.px, x[1] - self.py];
        let q = self.applied(f);
        let v2 = x[2] * x[2] + x[3] * x[3];
        let lambda = (d[0] * q[0] + d[1] * q[1] + self.m * v2) / (d[0] * d[0] + d[1] * d[1]);
        dx[0] = x[2];
        dx[1] = x[3];
        dx[2] = (q[0] - lambda * d[0]) / self.m;
        dx[3] = (q[1] - lambda * d[1]) / self.m;
    }

    /// One constrained symplectic Euler step of size `h` under `f` (held): the rod force
    /// `−λ d_k` with λ the root nearest 0 of `|r_k + h v_k + h² (Q − λ d_k)/m − p| = l`.
    pub fn constrained_step(&self, h: f64, x: &mut [f64], f: [f64; 2]) {
        let d = [x[0] - self.px, x[1] - self.py];
        let q = self.applied(f);
        let h2m = h * h / self.m;
        // Unconstrained new position relative to the pivot, and its change per unit λ.
        let free = [d[0] + h * x[2] + h2m * q[0], d[1] + h * x[3] + h2m * q[1]];
        let per_lambda = [h2m * d[0], h2m * d[1]];
        // |free − λ·per_lambda|² = l²: a λ² − 2 b λ + c = 0.
        let a = per_lambda[0] * per_lambda[0] + per_lambda[1] * per_lambda[1];
        let b = free[0] * per_lambda[0] + free[1] * per_lambda[1];
        let c = free[0] * free[0] + free[1] * free[1] - self.l * self.l;
        // Root nearest 0 in the form that avoids cancellation (b > 0 near the circle).
        let lambda = c / (b + libm::sqrt(b * b - a * c));
        x[2] += h * (q[0] - lambda * d[0]) / self.m;
        x[3] += h * (q[1] - lambda * d[1]) / self.m;
        x[0] += h * x[2];
        x[1] += h * x[3];
    }

    /// Kinetic plus gravity energy, the height counted from the rod's lowest point
    /// `py − l` (so E ≥ 0 and E/E₀ reads as a fraction).
    pub fn energy(&self, x: &[f64]) -> f64 {
        let height = x[1] - (self.py - self.l);
        0.5 * self.m * (x[2] * x[2] + x[3] * x[3]) + self.m * self.g * height
    }

    /// `|r − p| − l`: how far the tip is off its circle.
    pub fn constraint_error(&self, x: &[f64]) -> f64 {
        libm::hypot(x[0] - self.px, x[1] - self.py) - self.l
    }
}
