//! The crane's hydraulic side ℋ: a double-acting cylinder with equal areas a_p whose
//! chambers are fed by a valve with spool position γ(t) (seed eqs. 25–33):
//!
//! ```text
//! f   = a_p (p₂ − p₁) − c ṡ_c
//! ṗ₁ = β(p₁)/(a_p l₄) [ a_p ṡ_c + a_i k √(p_P − p₁)⁺ − a_o k √(p₁ − p_T)⁺ ]
//! ṗ₂ = β(p₂)/(a_p l₅) [ −a_p ṡ_c + a_o k √(p_P − p₂)⁺ − a_i k √(p₂ − p_T)⁺ ]
//! β(p) = (1 + a p + b p²)/(a + 2 b p),  k = c_d √(2/ρ),  √(·)⁺ = √max(0, ·)
//! l₄ = ½ l₃ + s_c⁰ − s_c,  l₅ = ½ l₃ + s_c − s_c⁰  (each at least 1 % of l₃)
//! a_i = A_v γ,  a_o = A_v (1 − γ),  γ = γ₀ (1 − A(t) sin(2π ω t))
//! ```
//!
//! with `A(t)` = 0.1 t up to 1 s, 0.1 to 8 s, 0.1 (9 − t) to 9 s, then 0, and ω = 2 taken
//! literally (a 2 Hz spool motion; the seed's "2 rad/s" inside 2πωt is ambiguous). The
//! pressures start at the valve's equilibrium for γ₀ with the cylinder at rest.

use super::super::layout::PortSpec;
use super::super::ode_module::OdeModel;
use super::super::parameters::{ParameterSet, Range::*, Slot};
use super::super::stepped::{forward_euler, OwnMethod, OwnStep};
use super::HYDRAULICS_ID;
use crate::module::{DependencyKind, Variable};
use alloc::vec;
use alloc::vec::Vec;

/// The hydraulic side's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hydraulics {
    /// Piston area a_p in m². Default 0.028.
    pub ap: f64,
    /// Cylinder dissipation c in N·s/m. Default 2000.
    pub c: f64,
    /// Cylinder length l₃ in m (both chambers together). Default 0.8.
    pub l3: f64,
    /// Cylinder length s_c⁰ at the start in m (chambers equal). Default: the mechanics'
    /// defaults at θ₁ = π/6.
    pub sc0: f64,
    /// Pump pressure p_P in Pa. Default 2.1e6.
    pub p_pump: f64,
    /// Tank pressure p_T in Pa. Default 0.
    pub p_tank: f64,
    /// Oil density ρ in kg/m³. Default 850.
    pub rho: f64,
    /// Discharge coefficient c_d. Default 0.6.
    pub cd: f64,
    /// Bulk-modulus constant a in 1/Pa. Default 6.6e-10 (β ≈ 1.5 GPa at 0 Pa).
    pub a: f64,
    /// Bulk-modulus constant b in 1/Pa². Default −1e-18.
    pub b: f64,
    /// Spool position γ₀ at equilibrium. Default 0.45435.
    pub gamma0: f64,
    /// Manoeuvre frequency ω in sin(2π ω t). Default 2.
    pub omega: f64,
    /// Valve area at full opening A_v in m². Default 5e-4.
    pub valve: f64,
}

/// The mechanics' default cylinder length at θ₁ = π/6 (so both sides start consistent).
pub const DEFAULT_SC0: f64 = 2.519_360_965_993_648_4;

impl Default for Hydraulics {
    fn default() -> Self {
        Hydraulics {
            ap: 0.028,
            c: 2000.0,
            l3: 0.8,
            sc0: DEFAULT_SC0,
            p_pump: 2.1e6,
            p_tank: 0.0,
            rho: 850.0,
            cd: 0.6,
            a: 6.6e-10,
            b: -1e-18,
            gamma0: 0.45435,
            omega: 2.0,
            valve: 5e-4,
        }
    }
}

impl ParameterSet for Hydraulics {
    const MODEL_ID: &'static str = HYDRAULICS_ID;
    const PARAMETERS: usize = 13;

    fn with_slots<R>(&mut self, f: impl FnOnce(&mut [Slot<'_>]) -> R) -> R {
        #[rustfmt::skip] // a table: one slot a row
        let mut slots = [
            ("ap",     Positive,    "m2",    "piston area a_p",                         &mut self.ap),
            ("c",      NonNegative, "N*s/m", "cylinder dissipation c",                  &mut self.c),
            ("l3",     Positive,    "m",     "cylinder length l3 (both chambers)",      &mut self.l3),
            ("sc0",    Positive,    "m",     "cylinder length at the start",            &mut self.sc0),
            ("pP",     NonNegative, "Pa",    "pump pressure",                           &mut self.p_pump),
            ("pT",     NonNegative, "Pa",    "tank pressure",                           &mut self.p_tank),
            ("rho",    Positive,    "kg/m3", "oil density",                             &mut self.rho),
            ("cd",     Positive,    "",      "valve discharge coefficient",             &mut self.cd),
            ("a",      Positive,    "1/Pa",  "bulk-modulus constant a",                 &mut self.a),
            ("b",      Finite,      "1/Pa2", "bulk-modulus constant b",                 &mut self.b),
            ("gamma0", NonNegative, "",      "spool position at equilibrium",           &mut self.gamma0),
            ("omega",  NonNegative, "",      "manoeuvre frequency in sin(2*pi*omega*t)", &mut self.omega),
            ("Av",     Positive,    "m2",    "valve area at full opening",              &mut self.valve),
        ];
        f(&mut slots)
    }

    fn check_relations(&self) -> Result<(), crate::module::ModuleError> {
        if self.p_pump <= self.p_tank {
            return Err(crate::module::ModuleError::invalid(
                "parameter `pP`: the pump pressure must exceed the tank pressure `pT`",
            ));
        }
        if self.gamma0 > 1.0 {
            return Err(crate::module::ModuleError::invalid(
                "parameter `gamma0`: the spool position lies in [0, 1]",
            ));
        }
        Ok(())
    }

    fn ports(&self) -> (Vec<PortSpec>, Vec<PortSpec>) {
        let mut p = *self;
        let parameters = p.with_slots(|s| {
            s.iter()
                .map(|(name, _, unit, text, value)| PortSpec::new(name, unit, **value, text))
                .collect()
        });
        let (p1, p2) = self.equilibrium_pressures(self.gamma0);
        let states = vec![
            PortSpec::new(
                "p1",
                "Pa",
                p1,
                "pressure in chamber 1 (shrinks on extension)",
            ),
            PortSpec::new("p2", "Pa", p2, "pressure in chamber 2 (grows on extension)"),
        ];
        (parameters, states)
    }
}

impl Hydraulics {
    /// Pressures at which the valve's flows balance with the cylinder at rest:
    /// `p₁ = (γ² p_P + (1 − γ)² p_T)/(γ² + (1 − γ)²)` and `p₂` with γ and 1 − γ swapped.
    pub fn equilibrium_pressures(&self, gamma: f64) -> (f64, f64) {
        let (open, closed) = (gamma * gamma, (1.0 - gamma) * (1.0 - gamma));
        let sum = open + closed;
        (
            (open * self.p_pump + closed * self.p_tank) / sum,
            (closed * self.p_pump + open * self.p_tank) / sum,
        )
    }

    /// The manoeuvre's amplitude A(t).
    pub fn amplitude(t: f64) -> f64 {
        if t < 1.0 {
            0.1 * t.max(0.0)
        } else if t < 8.0 {
            0.1
        } else if t < 9.0 {
            0.1 * (9.0 - t)
        } else {
            0.0
        }
    }

    /// Spool position γ(t).
    pub fn spool(&self, t: f64) -> f64 {
        let phase = 2.0 * core::f64::consts::PI * self.omega * t;
        self.gamma0 * (1.0 - Self::amplitude(t) * libm::sin(phase))
    }

    /// Bulk modulus β(p) of eq. 28.
    pub fn bulk_modulus(&self, p: f64) -> f64 {
        (1.0 + self.a * p + self.b * p * p) / (self.a + 2.0 * self.b * p)
    }

    /// Cylinder force for pressures `p` and extension rate `vsc`.
    pub fn force(&self, p: &[f64], vsc: f64) -> f64 {
        self.ap * (p[1] - p[0]) - self.c * vsc
    }

    /// Chamber lengths `(l₄, l₅)` at cylinder length `sc`, each at least 1 % of l₃.
    pub fn chamber_lengths(&self, sc: f64) -> (f64, f64) {
        let (half, least) = (0.5 * self.l3, 0.01 * self.l3);
        let shift = sc - self.sc0;
        ((half - shift).max(least), (half + shift).max(least))
    }
}

/// `√max(0, x)`: an orifice passes no flow against its pressure drop.
fn root(x: f64) -> f64 {
    libm::sqrt(x.max(0.0))
}

impl OdeModel for Hydraulics {
    fn inputs(&self) -> Vec<PortSpec> {
        vec![
            PortSpec::new("sc", "m", DEFAULT_SC0, "cylinder length"),
            PortSpec::new("vsc", "m/s", 0.0, "cylinder extension rate"),
        ]
    }
    fn outputs(&self) -> Vec<PortSpec> {
        vec![PortSpec::new(
            "f",
            "N",
            0.0,
            "cylinder force, extending positive",
        )]
    }
    fn feedthrough(&self) -> Vec<(usize, usize, DependencyKind)> {
        vec![(0, 1, DependencyKind::Constant)]
    }
    fn rhs(&self, t: f64, x: &[f64], u: &[f64], dx: &mut [f64]) {
        let gamma = self.spool(t);
        let (to_1, from_1) = (self.valve * gamma, self.valve * (1.0 - gamma));
        let k = self.cd * libm::sqrt(2.0 / self.rho);
        let (pp, pt) = (self.p_pump, self.p_tank);
        let (l4, l5) = self.chamber_lengths(u[0]);
        let flow1 = to_1 * k * root(pp - x[0]) - from_1 * k * root(x[0] - pt);
        let flow2 = from_1 * k * root(pp - x[1]) - to_1 * k * root(x[1] - pt);
        let rate = self.ap * u[1];
        dx[0] = self.bulk_modulus(x[0]) / (self.ap * l4) * (rate + flow1);
        dx[1] = self.bulk_modulus(x[1]) / (self.ap * l5) * (-rate + flow2);
    }
    fn output(&self, _t: f64, x: &[f64], u: &[f64], y: &mut [f64]) {
        y[0] = self.force(x, u[1]);
    }
}

impl OwnStep for Hydraulics {
    const OWN_METHOD: OwnMethod = OwnMethod::Euler;
    fn own_step(&self, t: f64, h: f64, x: &mut [f64], u: &[f64]) {
        forward_euler(self, t, h, x, u);
    }
}

/// The catalog's variables.
pub(super) fn catalog() -> Vec<Variable> {
    Hydraulics::catalog()
}
