//! Parameters, start values and matrices of the two rotational slaves, and the 4-state
//! monolithic model they form when coupled (docs/methods.md §15,
//! rotational two-mass example).
//!
//! Defaults are the values the seed's experiments ran with (slave 1: J = 10, c = 1, d = 2;
//! slave 2: J = 10, c = 1, d = 1, c_k = 1, d_k = 2; φ₁(0) = 0.2, ω₁(0) = 0.1,
//! φ₂(0) = 0.1, ω₂(0) = 0.1, φ_o(0) = 0.2), not the all-ones defaults of the authors'
//! C sources.

use crate::models::linear_state_space::Matrices;
use crate::models::parameters::{ParameterSet, Range::*, Slot};
use crate::module::ModuleError;
use nalgebra::{DMatrix, DVector};

/// Parameters and start values of slave 1, `tau2omega`: inertia J₁ on spring c₁ and damper
/// d₁ to ground, driven by the coupling torque.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tau2OmegaParams {
    /// Inertia J₁ in kg·m² (> 0). Default 10.
    pub j1: f64,
    /// Spring c₁ to ground in N·m/rad (≥ 0). Default 1.
    pub c1: f64,
    /// Damper d₁ to ground in N·m·s/rad (≥ 0). Default 2.
    pub d1: f64,
    /// Start angle φ₁ in rad. Default 0.2.
    pub phi1: f64,
    /// Start speed ω₁ in rad/s. Default 0.1.
    pub omega1: f64,
}

impl Default for Tau2OmegaParams {
    fn default() -> Self {
        Tau2OmegaParams {
            j1: 10.0,
            c1: 1.0,
            d1: 2.0,
            phi1: 0.2,
            omega1: 0.1,
        }
    }
}

/// Parameters and start values of slave 2, `omega2tau`: inertia J₂ on spring c₂ and damper
/// d₂ to ground, plus the coupling spring c_k and damper d_k to the other inertia, whose
/// angle φ_o the slave integrates from the speed it receives.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Omega2TauParams {
    /// Inertia J₂ in kg·m² (> 0). Default 10.
    pub j2: f64,
    /// Spring c₂ to ground in N·m/rad (≥ 0). Default 1.
    pub c2: f64,
    /// Damper d₂ to ground in N·m·s/rad (≥ 0). Default 1.
    pub d2: f64,
    /// Coupling spring c_k in N·m/rad (≥ 0). Default 1.
    pub ck: f64,
    /// Coupling damper d_k in N·m·s/rad (≥ 0). Default 2.
    pub dk: f64,
    /// Start angle φ₂ in rad. Default 0.1.
    pub phi2: f64,
    /// Start speed ω₂ in rad/s. Default 0.1.
    pub omega2: f64,
    /// Start value of φ_o, the slave's copy of the other inertia's angle, in rad.
    /// Default 0.2 (= φ₁(0)).
    pub phi_o: f64,
}

impl Default for Omega2TauParams {
    fn default() -> Self {
        Omega2TauParams {
            j2: 10.0,
            c2: 1.0,
            d2: 1.0,
            ck: 1.0,
            dk: 2.0,
            phi2: 0.1,
            omega2: 0.1,
            phi_o: 0.2,
        }
    }
}

impl ParameterSet for Tau2OmegaParams {
    const MODEL_ID: &'static str = super::TAU2OMEGA_ID;
    const PARAMETERS: usize = 3;

    fn with_slots<R>(&mut self, f: impl FnOnce(&mut [Slot<'_>]) -> R) -> R {
        #[rustfmt::skip] // a table: one slot a row
        let mut slots = [
            ("J1",     Positive,    "kg*m2",     "inertia J1",                  &mut self.j1),
            ("c1",     NonNegative, "N*m/rad",   "spring c1 to ground",         &mut self.c1),
            ("d1",     NonNegative, "N*m*s/rad", "damper d1 to ground",         &mut self.d1),
            ("phi1",   Finite,      "rad",       "angle phi1 of inertia 1",     &mut self.phi1),
            ("omega1", Finite,      "rad/s",     "speed omega1 of inertia 1",   &mut self.omega1),
        ];
        f(&mut slots)
    }
}

impl ParameterSet for Omega2TauParams {
    const MODEL_ID: &'static str = super::OMEGA2TAU_ID;
    const PARAMETERS: usize = 5;

    fn with_slots<R>(&mut self, f: impl FnOnce(&mut [Slot<'_>]) -> R) -> R {
        #[rustfmt::skip] // a table: one slot a row
        let mut slots = [
            ("J2",     Positive,    "kg*m2",     "inertia J2",                  &mut self.j2),
            ("c2",     NonNegative, "N*m/rad",   "spring c2 to ground",         &mut self.c2),
            ("d2",     NonNegative, "N*m*s/rad", "damper d2 to ground",         &mut self.d2),
            ("ck",     NonNegative, "N*m/rad",   "coupling spring ck",          &mut self.ck),
            ("dk",     NonNegative, "N*m*s/rad", "coupling damper dk",          &mut self.dk),
            ("phi2",   Finite,      "rad",       "angle phi2 of inertia 2",     &mut self.phi2),
            ("omega2", Finite,      "rad/s",     "speed omega2 of inertia 2",   &mut self.omega2),
            ("phi_o",  Finite,      "rad",       "copy of the angle of inertia 1, integrated from omega_in", &mut self.phi_o),
        ];
        f(&mut slots)
    }
}

/// `(A, B, C, D)` of slave 1: `x = [φ₁, ω₁]`, `u = τ`, `y = ω₁`.
pub fn tau2omega_matrices(p: &Tau2OmegaParams) -> Matrices {
    let a = DMatrix::from_row_slice(2, 2, &[0.0, 1.0, -p.c1 / p.j1, -p.d1 / p.j1]);
    let b = DMatrix::from_row_slice(2, 1, &[0.0, 1.0 / p.j1]);
    let c = DMatrix::from_row_slice(1, 2, &[0.0, 1.0]);
    (a, b, c, DMatrix::zeros(1, 1))
}

/// `(A, B, C, D)` of slave 2: `x = [φ₂, ω₂, φ_o]`, `u = ω_in`,
/// `y = τ = c_k φ₂ + d_k ω₂ − c_k φ_o − d_k ω_in` (direct feedthrough `D = −d_k`).
pub fn omega2tau_matrices(p: &Omega2TauParams) -> Matrices {
    let j = p.j2;
    #[rustfmt::skip]
    let a = DMatrix::from_row_slice(3, 3, &[
        0.0,               1.0,               0.0,
        -(p.c2 + p.ck) / j, -(p.d2 + p.dk) / j, p.ck / j,
        0.0,               0.0,               0.0,
    ]);
    let b = DMatrix::from_row_slice(3, 1, &[0.0, p.dk / j, 1.0]);
    let c = DMatrix::from_row_slice(1, 3, &[p.ck, p.dk, -p.ck]);
    let d = DMatrix::from_row_slice(1, 1, &[-p.dk]);
    (a, b, c, d)
}

/// Matrices of slave 1 from its parameter values in slot order.
pub(super) fn tau2omega_matrices_of(values: &[f64]) -> Result<Matrices, ModuleError> {
    Ok(tau2omega_matrices(&Tau2OmegaParams::from_values(values)?))
}

/// Matrices of slave 2 from its parameter values in slot order.
pub(super) fn omega2tau_matrices_of(values: &[f64]) -> Result<Matrices, ModuleError> {
    Ok(omega2tau_matrices(&Omega2TauParams::from_values(values)?))
}

/// The monolithic two-mass rotational oscillator (the seed's reference model, 4 states):
/// `A` for `x = [φ₂, ω₂, φ₁, ω₁]` (inertia of slave 2 first, as the authors' model orders
/// them), with the coupling acting on both inertias:
/// `J₂ω₂′ = −(c₂ + c_k)φ₂ − (d₂ + d_k)ω₂ + c_k φ₁ + d_k ω₁`,
/// `J₁ω₁′ = c_k φ₂ + d_k ω₂ − (c₁ + c_k)φ₁ − (d₁ + d_k)ω₁`.
pub fn monolithic_a(p1: &Tau2OmegaParams, p2: &Omega2TauParams) -> DMatrix<f64> {
    let (j1, j2, ck, dk) = (p1.j1, p2.j2, p2.ck, p2.dk);
    #[rustfmt::skip]
    let a = DMatrix::from_row_slice(4, 4, &[
        0.0,                 1.0,                 0.0,                 0.0,
        -(p2.c2 + ck) / j2,  -(p2.d2 + dk) / j2,  ck / j2,             dk / j2,
        0.0,                 0.0,                 0.0,                 1.0,
        ck / j1,             dk / j1,             -(p1.c1 + ck) / j1,  -(p1.d1 + dk) / j1,
    ]);
    a
}

/// Outputs `[ω₁, τ]` of the monolithic model: `C` for `x = [φ₂, ω₂, φ₁, ω₁]` with
/// `τ = c_k φ₂ + d_k ω₂ − c_k φ₁ − d_k ω₁`.
pub fn monolithic_c(p2: &Omega2TauParams) -> DMatrix<f64> {
    #[rustfmt::skip]
    let c = DMatrix::from_row_slice(2, 4, &[
        0.0,   0.0,   0.0,    1.0,
        p2.ck, p2.dk, -p2.ck, -p2.dk,
    ]);
    c
}

/// Start state `[φ₂, ω₂, φ₁, ω₁]` of the monolithic model.
pub fn monolithic_x0(p1: &Tau2OmegaParams, p2: &Omega2TauParams) -> DVector<f64> {
    DVector::from_row_slice(&[p2.phi2, p2.omega2, p1.phi1, p1.omega1])
}

/// Exact monolithic outputs `[ω₁, τ]` at time `t` after the start, `C e^{A t} x0`; `None`
/// if the exponential fails.
pub fn monolithic_outputs(p1: &Tau2OmegaParams, p2: &Omega2TauParams, t: f64) -> Option<[f64; 2]> {
    let x = crate::solvers::expm(&(monolithic_a(p1, p2) * t))? * monolithic_x0(p1, p2);
    let y = monolithic_c(p2) * x;
    Some([y[0], y[1]])
}
