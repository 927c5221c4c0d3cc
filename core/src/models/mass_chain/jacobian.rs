//! The analytic Jacobian `∂f/∂z` of a [`Segment`] in its band: states interleaved
//! `x1, v1, x2, v2, …`, so `ẋ_j = v_j` touches one super-diagonal and `v̇_j` reaches the
//! neighbours' `x, v` (three sub-, two super-diagonals: `kl = 3`, `ku = 2`). With it the
//! BDF needs no finite-difference sweep (2n right-hand sides) and factorises `I − cJ` in
//! `O(n)` (docs/methods.md §16.2).

use super::segment::Segment;
use crate::models::contact::EXPONENT_LIMIT;
use crate::solvers::BandMatrix;

/// `d/dx (A e^{B x})` with the tangent continuation of [`crate::models::contact`].
fn contact_slope(a: f64, b: f64, x: f64) -> f64 {
    if a == 0.0 {
        return 0.0;
    }
    let z = b * x;
    let slope = a * b * libm::exp(z.min(EXPONENT_LIMIT));
    slope.clamp(-f64::MAX, f64::MAX)
}

/// `(∂F/∂Δx, ∂F/∂Δv)` of `F = c Δx + d Δv + C Δx³ + D Δv³`.
fn spring_slopes(k: [f64; 4], dx: f64, dv: f64) -> (f64, f64) {
    (k[0] + 3.0 * k[2] * dx * dx, k[1] + 3.0 * k[3] * dv * dv)
}

impl Segment {
    /// Writes `∂f/∂z` at `z` into `jac` (zeroed, `kl = 3`, `ku = 2`). The inputs and the
    /// impulses do not depend on the states.
    pub fn write_jacobian(&self, z: &[f64], jac: &mut BandMatrix) {
        let n = self.masses.len();
        let k = self.coefficients();
        let inv_m = 1.0 / self.m;
        for j in 0..n {
            jac.set(2 * j, 2 * j + 1, 1.0);
            if self.masses[j].contact {
                jac.add(
                    2 * j + 1,
                    2 * j,
                    contact_slope(self.a, self.b, z[2 * j]) * inv_m,
                );
            }
        }
        // Spring between masses j − 1 and j: + on j − 1, − on j, in Δ = z_j − z_{j−1}.
        for j in 1..n {
            let (kx, kv) = spring_slopes(k, z[2 * j] - z[2 * j - 2], z[2 * j + 1] - z[2 * j - 1]);
            let (kx, kv) = (kx * inv_m, kv * inv_m);
            let (left, right) = (2 * j - 1, 2 * j + 1);
            jac.add(left, 2 * j, kx);
            jac.add(left, 2 * j + 1, kv);
            jac.add(left, 2 * j - 2, -kx);
            jac.add(left, 2 * j - 1, -kv);
            jac.add(right, 2 * j, -kx);
            jac.add(right, 2 * j + 1, -kv);
            jac.add(right, 2 * j - 2, kx);
            jac.add(right, 2 * j - 1, kv);
        }
        if self.at_left_wall() {
            let (kx, kv) = spring_slopes(k, z[0], z[1]);
            jac.add(1, 0, -kx * inv_m);
            jac.add(1, 1, -kv * inv_m);
        }
        if self.at_right_wall() {
            let last = 2 * n - 2;
            let (kx, kv) = spring_slopes(k, -z[last], -z[last + 1]);
            jac.add(last + 1, last, -kx * inv_m);
            jac.add(last + 1, last + 1, -kv * inv_m);
        }
    }
}

/// The whole chain as one system (both ends at walls, no inputs): what the monolithic
/// reference of a `chain` scenario integrates.
impl Segment {
    /// A segment from parameters by name, checked and drawn.
    pub fn from_parameters(
        map: &alloc::collections::BTreeMap<alloc::string::String, f64>,
    ) -> Result<Self, crate::module::ModuleError> {
        <Self as crate::models::parameters::ParameterSet>::from_map(map)
    }

    /// `dz = f(t, z)` of a segment without inputs (the whole chain).
    pub fn derivatives(&self, t: f64, z: &[f64], dz: &mut [f64]) {
        crate::models::ode_module::OdeModel::rhs(self, t, z, &[], dz);
    }
}
