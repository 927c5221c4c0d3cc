//! `C^k_pos`, `C^k_vel` and the Milne factors against the exact fractions of
//! docs/methods.md §14.2 (uniform grid and the half-step grid), to 1e-14.

use super::super::{ErrorConstants, StepConstants};
use super::{assert_close, history_of};

const TOL: f64 = 1e-14;

/// Per k: C_pos, C_vel, ExMilne pos, ExMilne vel, ImMilne pos, ImMilne vel.
type Row = (f64, f64, f64, f64, f64, f64);

fn check_rows(rows: &[(usize, Row)], sigma_of: impl Fn(usize) -> f64, grid: &str) {
    for &(k, (c_pos, c_vel, ex_pos, ex_vel, im_pos, im_vel)) in rows {
        let sigma: [f64; 8] = core::array::from_fn(&sigma_of);
        let c = StepConstants::from_sigma(&sigma[..=k]).unwrap();
        let what = |q: &str| alloc::format!("{grid} k={k} {q}");
        assert_eq!(c.k, k);
        assert_close(c.c_k.pos, c_pos, TOL, &what("C_pos"));
        assert_close(c.c_k.vel, c_vel, TOL, &what("C_vel"));
        let ex = c.explicit_milne();
        assert_close(ex.pos, ex_pos, TOL, &what("ExMilne pos"));
        assert_close(ex.vel, ex_vel, TOL, &what("ExMilne vel"));
        let im = c.implicit_milne();
        assert_close(im.pos, im_pos, TOL, &what("ImMilne pos"));
        assert_close(im.vel, im_vel, TOL, &what("ImMilne vel"));
    }
}

#[test]
fn uniform_grid_constants_and_factors_equal_the_exact_fractions() {
    let rows = [
        (0, (1. / 2., 1., 1. / 3., 1. / 2., 2. / 3., 1. / 2.)),
        (1, (1. / 6., 1. / 2., 3. / 4., 5. / 6., 1. / 4., 1. / 6.)),
        (
            2,
            (1. / 8., 5. / 12., 38. / 45., 9. / 10., 7. / 45., 1. / 10.),
        ),
        (
            3,
            (
                19. / 180.,
                3. / 8.,
                135. / 152.,
                251. / 270.,
                17. / 152.,
                19. / 270.,
            ),
        ),
        (
            4,
            (
                3. / 32.,
                251. / 720.,
                863. / 945.,
                475. / 502.,
                82. / 945.,
                27. / 502.,
            ),
        ),
        (
            5,
            (
                863. / 10080.,
                95. / 288.,
                9625. / 10356.,
                19087. / 19950.,
                731. / 10356.,
                863. / 19950.,
            ),
        ),
    ];
    check_rows(&rows, |j| j as f64, "uniform");
    // k = 6 (needed as C^{k+1} at k = 5): the Adams-Bashforth constant 19087/60480.
    let c6 = ErrorConstants::from_sigma(&[0., 1., 2., 3., 4., 5.]).unwrap();
    assert_close(c6.pos, 275. / 3456., TOL, "uniform k=6 C_pos");
    assert_close(c6.vel, 19087. / 60480., TOL, "uniform k=6 C_vel");
}

#[test]
fn half_step_grid_constants_and_factors_equal_the_exact_fractions() {
    // Every previous step is H_N/2: σ_j = j/2. k = 1..3 from the table, k = 0, 4, 5 and
    // all ImMilne factors from its errata.
    let rows = [
        (0, (1. / 2., 1., 1. / 3., 1. / 2., 2. / 3., 1. / 2.)),
        (1, (1. / 6., 1. / 2., 2. / 3., 7. / 9., 1. / 3., 2. / 9.)),
        (
            2,
            (1. / 9., 7. / 18., 31. / 40., 6. / 7., 9. / 40., 1. / 7.),
        ),
        (
            3,
            (
                31. / 360.,
                1. / 3.,
                129. / 155.,
                269. / 300.,
                26. / 155.,
                31. / 300.,
            ),
        ),
        (
            4,
            (
                43. / 600.,
                269. / 900.,
                1. - 359. / 2709.,
                1. - 43. / 538.,
                359. / 2709.,
                43. / 538.,
            ),
        ),
        (
            5,
            (
                47. / 756.,
                11. / 40.,
                1. - 179. / 1645.,
                1. - 940. / 14553.,
                179. / 1645.,
                940. / 14553.,
            ),
        ),
    ];
    check_rows(&rows, |j| j as f64 / 2.0, "half-step");
}

#[test]
fn constants_on_a_history_use_the_actual_grid() {
    // T_N = 2, previous steps 0.25 each, H_N = 0.5: the half-step grid shifted in time.
    let pts: [(f64, &[f64]); 4] = [(1.25, &[0.]), (1.5, &[0.]), (1.75, &[0.]), (2.0, &[0.])];
    let h = history_of(&pts);
    let c = StepConstants::on_grid(&h, 3, 0.5).unwrap();
    assert_close(c.c_k.vel, 1. / 3., TOL, "C^3_vel");
    assert_close(c.explicit_milne().pos, 129. / 155., TOL, "pos ratio");
    // The uniform-grid constants would be wrong here: the grid matters.
    let uniform = StepConstants::on_grid(&h, 3, 0.25).unwrap();
    assert_close(uniform.c_k.vel, 3. / 8., TOL, "uniform C^3_vel");
    // Too few points, or a step that is not positive.
    assert!(StepConstants::on_grid(&h, 4, 0.5).is_none());
    assert!(StepConstants::on_grid(&h, 1, 0.0).is_none());
}
