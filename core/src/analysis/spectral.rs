//! Eigenvalues and spectral radius of a propagation matrix, and the stability test
//! `ρ(Φ) ≤ 1` (docs/methods.md §9.3, paper eqn 29) with a documented tolerance (§9.3).
//!
//! The matrix is first balanced (Parlett–Reinsch, a diagonal similarity that leaves the
//! eigenvalues unchanged): Φ mixes metres and newtons, entries span ten or more decades,
//! and an unbalanced QR iteration would make absolute eigenvalue errors of order
//! `ε‖Φ‖` swamp `1 − ρ ≈ 1e-7` of the nearly undamped oscillator.

use crate::solvers::{balance, eigenvalues};
use alloc::vec::Vec;
use nalgebra::{Complex, DMatrix};

/// `ρ ≤ 1 + STABILITY_TOLERANCE` counts as stable (docs/methods.md §9.3: ρ is within
/// 1e-7…1e-5 of 1 over much of the two-mass map, so a contour at exactly 1 would follow
/// eigenvalue round-off).
pub const STABILITY_TOLERANCE: f64 = 1e-12;

/// Eigenvalues of a square matrix and what follows from them.
#[derive(Clone, Debug, PartialEq)]
pub struct Spectrum {
    /// All eigenvalues (complex pairs both listed), unordered.
    pub eigenvalues: Vec<Complex<f64>>,
    /// `ρ = max |λ|`.
    pub radius: f64,
    /// Round-off scale of the eigenvalues, `n ε ‖B‖_F` of the balanced matrix `B`: a
    /// `|ρ − 1|` below it cannot be trusted to decide stability.
    pub roundoff: f64,
}

impl Spectrum {
    /// `ρ ≤ 1 + STABILITY_TOLERANCE`. (Eigenvalues on the unit circle would also have to
    /// be non-defective; with the tolerance this is not checked.)
    pub fn is_stable(&self) -> bool {
        self.radius <= 1.0 + STABILITY_TOLERANCE
    }

    /// `|ρ − 1|` is within the eigenvalue round-off, so the stable/unstable verdict is not
    /// reliable (the paper's "jitter from ill-conditioned Φ", docs/methods.md §9.4).
    pub fn is_ill_conditioned(&self) -> bool {
        libm::fabs(self.radius - 1.0) <= self.roundoff.max(STABILITY_TOLERANCE)
    }
}

/// Eigenvalues and spectral radius of `m`. `None` if `m` is not square, holds a non-finite
/// entry (never a silent NaN) or the QR iteration does not converge.
pub fn spectrum(m: &DMatrix<f64>) -> Option<Spectrum> {
    let n = m.nrows();
    if m.ncols() != n || m.iter().any(|v| !v.is_finite()) {
        return None;
    }
    if n == 0 {
        return Some(Spectrum {
            eigenvalues: Vec::new(),
            radius: 0.0,
            roundoff: 0.0,
        });
    }
    let (b, _) = balance(m);
    let roundoff = n as f64 * f64::EPSILON * b.norm();
    let eigenvalues = eigenvalues(&b)?;
    let radius = eigenvalues
        .iter()
        .map(|l| libm::hypot(l.re, l.im))
        .fold(0.0, f64::max);
    if !radius.is_finite() {
        return None;
    }
    Some(Spectrum {
        eigenvalues,
        radius,
        roundoff,
    })
}

/// `ρ(m)`; see [`spectrum`].
pub fn spectral_radius(m: &DMatrix<f64>) -> Option<f64> {
    spectrum(m).map(|s| s.radius)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rotation_and_scaling_radii() {
        let (c, s) = (libm::cos(0.3), libm::sin(0.3));
        let m = DMatrix::from_row_slice(
            3,
            3,
            &[
                0.9 * c,
                -0.9 * s,
                0.0,
                0.9 * s,
                0.9 * c,
                0.0,
                0.0,
                0.0,
                -0.5,
            ],
        );
        let sp = spectrum(&m).expect("spectrum");
        assert!((sp.radius - 0.9).abs() < 1e-15);
        assert_eq!(sp.eigenvalues.len(), 3);
        assert!(sp.is_stable() && !sp.is_ill_conditioned());
        assert_eq!(
            spectral_radius(&DMatrix::from_element(1, 1, -1.5)),
            Some(1.5)
        );
    }

    #[test]
    fn badly_scaled_matrix_keeps_its_radius() {
        // Similar to diag(0.5, 0.25) through a scaling of 1e12.
        let m = DMatrix::from_row_slice(2, 2, &[0.5, 1e12, 0.0, 0.25]);
        assert!((spectral_radius(&m).expect("radius") - 0.5).abs() < 1e-15);
    }

    #[test]
    fn non_finite_or_non_square_input_gives_none() {
        assert!(spectrum(&DMatrix::from_row_slice(2, 2, &[1.0, f64::NAN, 0.0, 1.0])).is_none());
        assert!(spectrum(&DMatrix::from_row_slice(
            2,
            2,
            &[1.0, f64::INFINITY, 0.0, 1.0]
        ))
        .is_none());
        assert!(spectrum(&DMatrix::zeros(2, 3)).is_none());
    }
}
