//! The step of central finite differences, shared by every module and master that
//! differentiates numerically.

/// Relative finite-difference step: the cube root of machine epsilon (≈ 6.06e-6), optimal
/// for central differences (truncation O(ε²) against rounding O(eps/ε)).
pub const FD_REL_STEP: f64 = 6.055_454_452_393_343e-6;
