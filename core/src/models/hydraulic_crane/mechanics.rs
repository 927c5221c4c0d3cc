//! The crane's multibody side ℳ: boom 1 (length l₁, uniform mass m₁, pinned at the
//! origin A), the point mass m₂ at its tip Q, the massless link 2 (length l₂) hanging from
//! Q with the load m₃ at its end P, and the cylinder from the ground point C to the boom
//! point D at distance d from A. Angles are from +x, counter-clockwise; gravity along −y.
//!
//! With `s₁₂ = sin(θ₁ − θ₂)`, `c₁₂ = cos(θ₁ − θ₂)`:
//!
//! ```text
//! M₁₁ = m₁ l₁²/3 + (m₂ + m₃) l₁²,  M₁₂ = m₃ l₁ l₂ c₁₂,  M₂₂ = m₃ l₂²
//! M₁₁ θ₁'' + M₁₂ θ₂'' = f ∂s_c/∂θ₁ − (m₁/2 + m₂ + m₃) g l₁ cos θ₁ − m₃ l₁ l₂ s₁₂ θ₂'²
//! M₁₂ θ₁'' + M₂₂ θ₂'' = −m₃ g l₂ cos θ₂ + m₃ l₁ l₂ s₁₂ θ₁'²
//! s_c = |D − C|,  D = d (cos θ₁, sin θ₁),  ṡ_c = (∂s_c/∂θ₁) θ₁'
//! E = ½ M₁₁ θ₁'² + M₁₂ θ₁' θ₂' + ½ M₂₂ θ₂'² + (m₁/2 + m₂) g l₁ sin θ₁ + m₃ g (l₁ sin θ₁ + l₂ sin θ₂)
//! ```

use super::super::layout::PortSpec;
use super::super::ode_module::OdeModel;
use super::super::parameters::{ParameterSet, Range::*, Slot};
use super::super::stepped::{symplectic_euler, OwnMethod, OwnStep};
use super::MECHANICS_ID;
use crate::module::{DependencyKind, Variable};
use alloc::vec;
use alloc::vec::Vec;

/// The multibody side's parameters and start values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Mechanics {
    /// Boom length l₁ in m. Default 3.
    pub l1: f64,
    /// Link length l₂ in m. Default 1.
    pub l2: f64,
    /// Boom mass m₁ in kg (uniform). Default 40.
    pub m1: f64,
    /// Mass m₂ at the boom tip Q in kg. Default 10.
    pub m2: f64,
    /// Load m₃ at P in kg. Default 290.4 (balanced by the valve at γ₀ = 0.45435).
    pub m3: f64,
    /// Distance of the cylinder's boom point D from A in m. Default 2.
    pub d: f64,
    /// Cylinder's ground point C, x in m. Default 0.2.
    pub cx: f64,
    /// Cylinder's ground point C, y in m. Default −1.
    pub cy: f64,
    /// Gravity in m/s². Default 9.81.
    pub g: f64,
    /// Start angle θ₁ in rad. Default π/6.
    pub theta1: f64,
    /// Start angle θ₂ in rad. Default 3π/2 (hanging).
    pub theta2: f64,
    /// Start rate θ₁' in rad/s. Default 0.
    pub omega1: f64,
    /// Start rate θ₂' in rad/s. Default 0.
    pub omega2: f64,
}

impl Default for Mechanics {
    fn default() -> Self {
        Mechanics {
            l1: 3.0,
            l2: 1.0,
            m1: 40.0,
            m2: 10.0,
            m3: 290.4,
            d: 2.0,
            cx: 0.2,
            cy: -1.0,
            g: 9.81,
            theta1: core::f64::consts::FRAC_PI_6,
            theta2: 1.5 * core::f64::consts::PI,
            omega1: 0.0,
            omega2: 0.0,
        }
    }
}

impl ParameterSet for Mechanics {
    const MODEL_ID: &'static str = MECHANICS_ID;
    const PARAMETERS: usize = 9;

    fn with_slots<R>(&mut self, f: impl FnOnce(&mut [Slot<'_>]) -> R) -> R {
        #[rustfmt::skip] // a table: one slot a row
        let mut slots = [
            ("l1",     Positive,    "m",     "boom length l1",                      &mut self.l1),
            ("l2",     Positive,    "m",     "link length l2",                      &mut self.l2),
            ("m1",     NonNegative, "kg",    "boom mass m1 (uniform)",              &mut self.m1),
            ("m2",     NonNegative, "kg",    "mass m2 at the boom tip Q",           &mut self.m2),
            ("m3",     Positive,    "kg",    "load m3 at P",                        &mut self.m3),
            ("d",      Positive,    "m",     "cylinder point D on the boom, from A", &mut self.d),
            ("cx",     Finite,      "m",     "cylinder ground point C, x",          &mut self.cx),
            ("cy",     Finite,      "m",     "cylinder ground point C, y",          &mut self.cy),
            ("g",      NonNegative, "m/s2",  "gravity along -y",                    &mut self.g),
            ("theta1", Finite,      "rad",   "boom angle from +x",                  &mut self.theta1),
            ("theta2", Finite,      "rad",   "link angle from +x",                  &mut self.theta2),
            ("omega1", Finite,      "rad/s", "boom angular velocity",               &mut self.omega1),
            ("omega2", Finite,      "rad/s", "link angular velocity",               &mut self.omega2),
        ];
        f(&mut slots)
    }
}

impl Mechanics {
    /// Cylinder length `s_c` and its lever `∂s_c/∂θ₁` at boom angle `theta1`.
    pub fn cylinder(&self, theta1: f64) -> (f64, f64) {
        let (s, c) = (libm::sin(theta1), libm::cos(theta1));
        let (dx, dy) = (self.d * c - self.cx, self.d * s - self.cy);
        let length = libm::hypot(dx, dy);
        let lever = (dx * (-self.d * s) + dy * (self.d * c)) / length;
        (length, lever)
    }

    /// Mass matrix `(M₁₁, M₁₂, M₂₂)` at `(θ₁, θ₂)`.
    pub fn mass_matrix(&self, theta1: f64, theta2: f64) -> (f64, f64, f64) {
        let l1sq = self.l1 * self.l1;
        (
            self.m1 * l1sq / 3.0 + (self.m2 + self.m3) * l1sq,
            self.m3 * self.l1 * self.l2 * libm::cos(theta1 - theta2),
            self.m3 * self.l2 * self.l2,
        )
    }

    /// Generalised gravity torques `∂V/∂θ`.
    pub fn gravity_torques(&self, theta1: f64, theta2: f64) -> (f64, f64) {
        let arm1 = (0.5 * self.m1 + self.m2 + self.m3) * self.g * self.l1;
        (
            arm1 * libm::cos(theta1),
            self.m3 * self.g * self.l2 * libm::cos(theta2),
        )
    }

    /// Kinetic plus gravity energy of state `x`.
    pub fn energy(&self, x: &[f64]) -> f64 {
        let (m11, m12, m22) = self.mass_matrix(x[0], x[1]);
        let kinetic = 0.5 * m11 * x[2] * x[2] + m12 * x[2] * x[3] + 0.5 * m22 * x[3] * x[3];
        let (s1, s2) = (libm::sin(x[0]), libm::sin(x[1]));
        let potential = (0.5 * self.m1 + self.m2) * self.g * self.l1 * s1
            + self.m3 * self.g * (self.l1 * s1 + self.l2 * s2);
        kinetic + potential
    }
}

impl OdeModel for Mechanics {
    fn inputs(&self) -> Vec<PortSpec> {
        vec![PortSpec::new(
            "f",
            "N",
            0.0,
            "cylinder force, extending positive",
        )]
    }
    fn outputs(&self) -> Vec<PortSpec> {
        vec![
            PortSpec::new("sc", "m", 0.0, "cylinder length"),
            PortSpec::new("vsc", "m/s", 0.0, "cylinder extension rate"),
            PortSpec::new(
                "E",
                "J",
                0.0,
                "kinetic plus gravity energy of the arm and load",
            ),
        ]
    }
    fn feedthrough(&self) -> Vec<(usize, usize, DependencyKind)> {
        Vec::new()
    }
    fn rhs(&self, _t: f64, x: &[f64], u: &[f64], dx: &mut [f64]) {
        let (th1, th2, w1, w2) = (x[0], x[1], x[2], x[3]);
        let (m11, m12, m22) = self.mass_matrix(th1, th2);
        let (_, lever) = self.cylinder(th1);
        let (g1, g2) = self.gravity_torques(th1, th2);
        let coupling = self.m3 * self.l1 * self.l2 * libm::sin(th1 - th2);
        let q1 = u[0] * lever - g1 - coupling * w2 * w2;
        let q2 = -g2 + coupling * w1 * w1;
        let det = m11 * m22 - m12 * m12;
        dx[0] = w1;
        dx[1] = w2;
        dx[2] = (m22 * q1 - m12 * q2) / det;
        dx[3] = (m11 * q2 - m12 * q1) / det;
    }
    fn output(&self, _t: f64, x: &[f64], _u: &[f64], y: &mut [f64]) {
        let (length, lever) = self.cylinder(x[0]);
        y[0] = length;
        y[1] = lever * x[2];
        y[2] = self.energy(x);
    }
}

impl OwnStep for Mechanics {
    const OWN_METHOD: OwnMethod = OwnMethod::SymplecticEuler;
    fn own_step(&self, t: f64, h: f64, x: &mut [f64], u: &[f64]) {
        symplectic_euler(self, t, h, x, u);
    }
}

/// The catalog's variables.
pub(super) fn catalog() -> Vec<Variable> {
    Mechanics::catalog()
}
