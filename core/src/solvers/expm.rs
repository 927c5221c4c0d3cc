//! Matrix exponential by scaling and squaring with Padé approximants of degree 3, 5, 7, 9
//! or 13 (Higham 2005, "The scaling and squaring method for the matrix exponential
//! revisited", SIAM J. Matrix Anal. Appl. 26(4), Algorithm 2.3).
//!
//! nalgebra's `Matrix::exp()` is compiled only with its `std` feature, so the core carries
//! this no_std version. Float functions go through `libm`.

use nalgebra::DMatrix;

/// Largest 1-norms for which the Padé approximant of degree m (3, 5, 7, 9, 13) reaches
/// double precision without scaling (Higham 2005, Table 2.3, θ_m).
const THETA: [(usize, f64); 5] = [
    (3, 1.495_585_217_958_292e-2),
    (5, 2.539_398_330_063_23e-1),
    (7, 9.504_178_996_162_932e-1),
    (9, 2.097_847_961_257_068),
    (13, 5.371_920_351_148_152),
];

/// Padé coefficients b_0..b_m of degree 3, 5, 7, 9 (Higham 2005, eqn (2.3) via b_j).
const PADE3: [f64; 4] = [120.0, 60.0, 12.0, 1.0];
const PADE5: [f64; 6] = [30240.0, 15120.0, 3360.0, 420.0, 30.0, 1.0];
const PADE7: [f64; 8] = [
    17_297_280.0,
    8_648_640.0,
    1_995_840.0,
    277_200.0,
    25_200.0,
    1512.0,
    56.0,
    1.0,
];
const PADE9: [f64; 10] = [
    17_643_225_600.0,
    8_821_612_800.0,
    2_075_673_600.0,
    302_702_400.0,
    30_270_240.0,
    2_162_160.0,
    110_880.0,
    3960.0,
    90.0,
    1.0,
];
/// Padé coefficients of degree 13 (Higham 2005, Algorithm 2.3).
const PADE13: [f64; 14] = [
    64_764_752_532_480_000.0,
    32_382_376_266_240_000.0,
    7_771_770_303_897_600.0,
    1_187_353_796_428_800.0,
    129_060_195_264_000.0,
    10_559_470_521_600.0,
    670_442_572_800.0,
    33_522_128_640.0,
    1_323_241_920.0,
    40_840_800.0,
    960_960.0,
    16_380.0,
    182.0,
    1.0,
];

/// Matrix 1-norm (largest absolute column sum).
pub fn one_norm(a: &DMatrix<f64>) -> f64 {
    a.column_iter()
        .map(|c| c.iter().map(|v| libm::fabs(*v)).sum::<f64>())
        .fold(0.0, f64::max)
}

/// `e^A` for a square matrix. `None` if `A` is not square, holds a non-finite entry, or
/// the Padé denominator is singular (which does not happen for finite input after scaling).
pub fn expm(a: &DMatrix<f64>) -> Option<DMatrix<f64>> {
    let n = a.nrows();
    if n != a.ncols() || a.iter().any(|v| !v.is_finite()) {
        return None;
    }
    if n == 0 {
        return Some(DMatrix::zeros(0, 0));
    }
    // e^A = D e^{D⁻¹ A D} D⁻¹ with D diagonal (powers of 2, so exact): balancing keeps small
    // entries of badly scaled matrices (e.g. [[0, 1], [−ω², 0]] with ω ≫ 1) accurate to
    // relative, not absolute, rounding, which matters when e^{Ah} is applied many times.
    let (balanced, d) = balance(a);
    let mut e = expm_balanced(&balanced)?;
    for j in 0..n {
        for i in 0..n {
            e[(i, j)] *= d[i] / d[j];
        }
    }
    if e.iter().all(|v| v.is_finite()) {
        Some(e)
    } else {
        None
    }
}

/// Parlett–Reinsch balancing with radix 2 (Parlett & Reinsch 1969, Numer. Math. 13;
/// LAPACK `dgebal` without permutation): returns `B = D⁻¹ A D` and the diagonal of `D`,
/// with off-diagonal row and column 1-norms of `B` of similar size.
pub(crate) fn balance(a: &DMatrix<f64>) -> (DMatrix<f64>, alloc::vec::Vec<f64>) {
    let n = a.nrows();
    let mut b = a.clone();
    let mut d = alloc::vec![1.0; n];
    // Bounded sweeps: each sweep changes scales by powers of 2 only; 64 is far beyond need.
    for _ in 0..64 {
        let mut converged = true;
        for i in 0..n {
            let mut c = 0.0;
            let mut r = 0.0;
            for j in 0..n {
                if j != i {
                    c += libm::fabs(b[(j, i)]);
                    r += libm::fabs(b[(i, j)]);
                }
            }
            if c == 0.0 || r == 0.0 {
                continue;
            }
            let s = c + r;
            let mut f = 1.0;
            let mut cc = c;
            while cc < r / 2.0 && f < 1e150 {
                f *= 2.0;
                cc *= 4.0;
            }
            while cc > r * 2.0 && f > 1e-150 {
                f /= 2.0;
                cc /= 4.0;
            }
            if (c * f + r / f) < 0.95 * s {
                converged = false;
                d[i] *= f;
                for j in 0..n {
                    b[(i, j)] /= f;
                    b[(j, i)] *= f;
                }
            }
        }
        if converged {
            break;
        }
    }
    (b, d)
}

/// Scaling and squaring on an already balanced matrix.
fn expm_balanced(a: &DMatrix<f64>) -> Option<DMatrix<f64>> {
    let n = a.nrows();
    let norm = one_norm(a);
    let id = DMatrix::<f64>::identity(n, n);
    for &(m, theta) in &THETA[..4] {
        if norm <= theta {
            let b: &[f64] = match m {
                3 => &PADE3,
                5 => &PADE5,
                7 => &PADE7,
                _ => &PADE9,
            };
            let (u, v) = pade_low(a, b, &id);
            return solve_pq(&u, &v);
        }
    }
    // Degree 13 with scaling A / 2^s so that ‖A / 2^s‖₁ ≤ θ₁₃.
    let theta13 = THETA[4].1;
    let s = libm::ceil(libm::log2(norm / theta13)).max(0.0);
    if s > 1100.0 {
        return None;
    }
    let scaled = a * libm::scalbn(1.0, -(s as i32));
    let (u, v) = pade13(&scaled, &id);
    let mut r = solve_pq(&u, &v)?;
    let mut square = DMatrix::zeros(n, n);
    for _ in 0..(s as u32) {
        r.mul_to(&r, &mut square);
        core::mem::swap(&mut r, &mut square);
    }
    Some(r)
}

/// U (odd part) and V (even part) of a Padé approximant of degree 3..9.
fn pade_low(a: &DMatrix<f64>, b: &[f64], id: &DMatrix<f64>) -> (DMatrix<f64>, DMatrix<f64>) {
    let a2 = a * a;
    let mut u_inner = id * b[1];
    let mut v = id * b[0];
    let mut p = id.clone();
    let m = b.len() - 1;
    let mut j = 2;
    while j <= m {
        p = &p * &a2; // A^j
        v += &p * b[j];
        if j < m {
            u_inner += &p * b[j + 1];
        }
        j += 2;
    }
    (a * u_inner, v)
}

/// U and V of the degree-13 Padé approximant (Higham 2005, Algorithm 2.3, lines 11–13).
/// Sums are accumulated in place (same order as written there): a map point calls this
/// once per block, and temporaries dominated its cost.
fn pade13(a: &DMatrix<f64>, id: &DMatrix<f64>) -> (DMatrix<f64>, DMatrix<f64>) {
    let b = &PADE13;
    let a2 = a * a;
    let a4 = &a2 * &a2;
    let a6 = &a4 * &a2;
    // c0 A6 + c1 A4 + c2 A2 (+ c3 I), written into `out`.
    let combine = |out: &mut DMatrix<f64>, c: [f64; 4]| {
        out.zip_zip_apply(&a6, &a4, |o, x6, x4| *o = x6 * c[0] + x4 * c[1]);
        out.zip_zip_apply(&a2, id, |o, x2, i| *o = *o + x2 * c[2] + i * c[3]);
    };
    let mut hi = DMatrix::zeros(a.nrows(), a.ncols());
    combine(&mut hi, [b[13], b[11], b[9], 0.0]);
    let mut u_inner = &a6 * &hi;
    let mut low = DMatrix::zeros(a.nrows(), a.ncols());
    combine(&mut low, [b[7], b[5], b[3], b[1]]);
    u_inner += &low;
    let u = a * u_inner;
    combine(&mut hi, [b[12], b[10], b[8], 0.0]);
    let mut v = &a6 * &hi;
    combine(&mut low, [b[6], b[4], b[2], b[0]]);
    v += &low;
    (u, v)
}

/// r = (V − U)⁻¹ (V + U) by LU with partial pivoting.
fn solve_pq(u: &DMatrix<f64>, v: &DMatrix<f64>) -> Option<DMatrix<f64>> {
    let mut p = v + u;
    let q = v - u;
    q.lu().solve_mut(&mut p).then_some(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rel_err(a: &DMatrix<f64>, b: &DMatrix<f64>) -> f64 {
        (a - b).norm() / b.norm()
    }

    #[test]
    fn scalar_exponential_over_all_degrees() {
        for &x in &[1e-4, -0.01, 0.2, -0.9, 2.0, -5.0, 30.0, -300.0] {
            let e = expm(&DMatrix::from_element(1, 1, x)).expect("finite");
            let want = libm::exp(x);
            // Squaring amplifies the Padé error in proportion to |x| (the condition number).
            assert!(
                libm::fabs(e[(0, 0)] - want) <= 1e-14 * (1.0 + libm::fabs(x)) * want,
                "x = {x}"
            );
        }
    }

    #[test]
    fn rotation_generator_gives_cos_sin() {
        // e^{[[0, w], [-w, 0]]} = [[cos w, sin w], [-sin w, cos w]].
        for &w in &[0.01, 0.5, 3.0, 100.0] {
            let a = DMatrix::from_row_slice(2, 2, &[0.0, w, -w, 0.0]);
            let e = expm(&a).expect("finite");
            let want = DMatrix::from_row_slice(
                2,
                2,
                &[libm::cos(w), libm::sin(w), -libm::sin(w), libm::cos(w)],
            );
            assert!(rel_err(&e, &want) < 1e-13 * (1.0 + w), "w = {w}");
        }
    }

    #[test]
    fn badly_scaled_oscillator_keeps_small_entries_accurate() {
        // e^{[[0, 1], [−ω², 0]] h} = [[cos ωh, sin(ωh)/ω], [−ω sin ωh, cos ωh]]: without
        // balancing the 1/ω entry would carry absolute, not relative, rounding.
        for (w, h) in [(1e4, 1e-4), (3e3, 1e-5), (1e3, 2.0)] {
            let a = DMatrix::from_row_slice(2, 2, &[0.0, h, -w * w * h, 0.0]);
            let e = expm(&a).expect("finite");
            let (c, s) = (libm::cos(w * h), libm::sin(w * h));
            let want = [c, s / w, -w * s, c];
            for (got, want) in [e[(0, 0)], e[(0, 1)], e[(1, 0)], e[(1, 1)]]
                .iter()
                .zip(want)
            {
                assert!(
                    libm::fabs(got - want) <= 1e-13 * (1.0 + w * h) * libm::fabs(want),
                    "ω = {w}: {got} vs {want}"
                );
            }
        }
    }

    #[test]
    fn nilpotent_matrix_gives_finite_taylor_series() {
        // N strictly upper triangular: e^N = I + N + N²/2.
        let n = DMatrix::from_row_slice(3, 3, &[0.0, 2.0, 3.0, 0.0, 0.0, 4.0, 0.0, 0.0, 0.0]);
        let want = DMatrix::identity(3, 3) + &n + &n * &n * 0.5;
        for scale in [1e-3, 1.0, 50.0] {
            let e = expm(&(&n * scale)).expect("finite");
            let w = DMatrix::identity(3, 3) + &n * scale + &n * &n * (0.5 * scale * scale);
            assert!(rel_err(&e, &w) < 1e-14, "scale {scale}");
        }
        assert!(rel_err(&expm(&n).expect("finite"), &want) < 1e-15);
    }

    #[test]
    fn non_finite_input_is_refused() {
        let a = DMatrix::from_row_slice(2, 2, &[0.0, f64::NAN, 0.0, 0.0]);
        assert!(expm(&a).is_none());
        assert!(expm(&DMatrix::zeros(2, 3)).is_none());
    }
}
