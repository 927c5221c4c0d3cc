//! Behaviour of the time-domain model-based corrector on the linear two-mass oscillator
//! (docs/methods.md §11.1) with the exact built-in modules: it equals iterating the
//! propagation matrix of eqn (42), has the perfect-model property `M_y = M_δu = 0`,
//! converges with order 2 for ZOH, gives the same run with finite-difference Jacobians as
//! with directional derivatives, and refuses modules without either before any step.

use super::*;
use crate::analysis::{block_diag, LinearBlock, MonolithicReference};
use crate::master::jacobian_source_for;
use crate::master::tests::{two_mass, two_mass_with_reference};
use crate::master::{Run, TimeSeriesRecorder};
use crate::module::{Module, ValueRef};
use crate::testing::mock::MockModule;
use crate::time::FixedGrid;
use alloc::boxed::Box;
use alloc::string::{String, ToString};

/// Stacked `(A, B, C, D, x0)` of an initialised system.
fn stacked(sys: &mut CoupledSystem) -> [DMatrix<f64>; 5] {
    let blocks: Vec<LinearBlock> = sys
        .modules_mut()
        .map(|(_, s)| LinearBlock::from_subsystem(s).unwrap())
        .collect();
    let x0 = DMatrix::from_iterator(4, 1, blocks.iter().flat_map(|b| b.x0.iter().copied()));
    [
        block_diag(&blocks, |b| &b.a),
        block_diag(&blocks, |b| &b.b),
        block_diag(&blocks, |b| &b.c),
        block_diag(&blocks, |b| &b.d),
        x0,
    ]
}

/// Paper eqn (42) (docs/methods.md §9.2) assembled by hand for ZOH with MBCorr, `z = [x; ȳ; δu]`, from the blocks
/// `M_x = S C A_d`, `M_y = S (K_y − G) L`, `M_δu = S (K_y − G)`, `H_x = (α/2) L M_x`,
/// `H_y = (α/2) L (M_y − I)`, `H_δu = (1 − α) I + (α/2) L M_δu` with `S = (I − G L)⁻¹`.
fn zoh_phi(abcd: &[DMatrix<f64>; 5], l: &DMatrix<f64>, h: f64, alpha: f64) -> DMatrix<f64> {
    let [a, b, c, d, _] = abcd;
    let disc = discretize(a, b, h, 0).unwrap();
    let (ad, bd0) = (&disc.ad, &disc.gamma[0]);
    let (nx, nu, ny) = (a.nrows(), b.ncols(), c.nrows());
    let g = c * bd0 + d;
    let ky = c * bd0 + d;
    let s = (DMatrix::identity(ny, ny) - &g * l).try_inverse().unwrap();
    let mx = &s * c * ad;
    let my = &s * (&ky - &g) * l;
    let mdu = &s * (&ky - &g);
    let hx = l * &mx * (alpha / 2.0);
    let hy = l * (&my - DMatrix::identity(ny, ny)) * (alpha / 2.0);
    let hdu = DMatrix::identity(nu, nu) * (1.0 - alpha) + l * &mdu * (alpha / 2.0);
    let n = nx + ny + nu;
    let mut phi = DMatrix::zeros(n, n);
    let rows: [[&DMatrix<f64>; 3]; 3] = [[ad, &(bd0 * l), bd0], [&mx, &my, &mdu], [&hx, &hy, &hdu]];
    let offsets = [0, nx, nx + ny];
    for (bi, row) in rows.iter().enumerate() {
        for (bj, m) in row.iter().enumerate() {
            phi.view_mut((offsets[bi], offsets[bj]), m.shape())
                .copy_from(*m);
        }
    }
    phi
}

/// Recorded ȳ of a corrected run from t = 0 over `steps` of `h` (row k = communication point k).
fn corrected_run(
    p: u32,
    alpha: f64,
    request: JacobianRequest,
    h: f64,
    steps: u32,
    history: bool,
) -> Vec<Vec<f64>> {
    let mut sys = two_mass();
    let grid = FixedGrid::uniform(0.0, h, steps);
    sys.initialize(0.0, grid.time(steps)).unwrap();
    let history = history.then(|| {
        let blocks: Vec<LinearBlock> = sys
            .modules_mut()
            .map(|(_, s)| LinearBlock::from_subsystem(s).unwrap())
            .collect();
        let reference = MonolithicReference::new(&blocks, &sys.graph().coupling_matrix()).unwrap();
        reference.history(0.0, h, p).unwrap()
    });
    let mut run = Run::new(
        sys,
        Box::new(ModelBasedCorrection::new(p, alpha, request)),
        grid,
        history,
    )
    .unwrap();
    let mut rec = TimeSeriesRecorder::new();
    assert!(run.advance(u32::MAX, &mut rec).unwrap());
    (0..rec.time.len())
        .map(|k| rec.columns.iter().map(|c| c[k]).collect())
        .collect()
}

/// Largest difference per signal, relative to the signal's largest magnitude in `b`.
fn max_relative(a: &[Vec<f64>], b: &[Vec<f64>]) -> f64 {
    let mut worst: f64 = 0.0;
    for j in 0..b[0].len() {
        let scale = b.iter().map(|r| r[j].abs()).fold(0.0, f64::max);
        for (ra, rb) in a.iter().zip(b) {
            worst = worst.max((ra[j] - rb[j]).abs() / scale);
        }
    }
    worst
}

#[test]
fn zoh_corrector_equals_iterating_the_propagation_matrix_of_eqn_42() {
    let (h, steps) = (1e-4, 300);
    for alpha in [1.0, 0.5] {
        let mut sys = two_mass();
        sys.initialize(0.0, 1.0).unwrap();
        let abcd = stacked(&mut sys);
        let l = sys.graph().coupling_matrix();
        let phi = zoh_phi(&abcd, &l, h, alpha);
        let y0 = DVector::from_column_slice(sys.outputs());
        let mut z = DVector::zeros(phi.nrows());
        z.rows_mut(0, 4).copy_from(&abcd[4].column(0));
        z.rows_mut(4, 3).copy_from(&y0);
        let mut expected = vec![z.rows(4, 3).iter().copied().collect::<Vec<f64>>()];
        for _ in 0..steps {
            z = &phi * &z;
            expected.push(z.rows(4, 3).iter().copied().collect());
        }
        let run = corrected_run(
            0,
            alpha,
            JacobianRequest::DirectionalDerivatives,
            h,
            steps,
            false,
        );
        let diff = max_relative(&run, &expected);
        assert!(diff < 1e-9, "α = {alpha}: max relative difference {diff:e}");
    }
}

#[test]
fn perfect_model_zoh_corrected_outputs_depend_only_on_the_state() {
    // M_y = M_δu = 0 (docs/methods.md §9.2): ȳ_{n+1} = (I − G L)⁻¹ C A_d x_n whatever ȳ_n and δu_n are,
    // here checked along a run whose first history sample is deliberately wrong.
    let h = 2e-4;
    let mut sys = two_mass();
    sys.initialize(0.0, 1.0).unwrap();
    let abcd = stacked(&mut sys);
    let [a, b, c, d, _] = &abcd;
    let l = sys.graph().coupling_matrix();
    let disc = discretize(a, b, h, 0).unwrap();
    let g = c * &disc.gamma[0] + d;
    let mx = (DMatrix::identity(3, 3) - &g * &l).try_inverse().unwrap() * c * &disc.ad;
    sys.exchange_outputs(&[3.0, -7.0, 1e4]);
    let mut mbc = ModelBasedCorrection::new(0, 1.0, JacobianRequest::Auto);
    mbc.prepare(
        &mut sys,
        &RunStart {
            t_start: 0.0,
            h,
            variable_steps: false,
            history: &[],
        },
    )
    .unwrap();
    let states: Vec<ValueRef> = (0..2)
        .flat_map(|m| {
            sys.subsystem(m)
                .description()
                .states()
                .iter()
                .map(|(x, _)| x.value_ref)
                .collect::<Vec<_>>()
        })
        .collect();
    let mut offsets_seen = 0.0f64;
    for n in 0..50u32 {
        let mut x = DVector::zeros(4);
        sys.subsystem_mut(0)
            .get_float64(&states[..2], &mut x.as_mut_slice()[..2])
            .unwrap();
        sys.subsystem_mut(1)
            .get_float64(&states[2..], &mut x.as_mut_slice()[2..])
            .unwrap();
        let expected = &mx * &x;
        mbc.step(&mut sys, f64::from(n) * h, h).unwrap();
        mbc.commit(&sys, f64::from(n) * h + h);
        for (j, y) in sys.outputs().iter().enumerate() {
            assert!(
                (y - expected[j]).abs() <= 1e-10 * expected[j].abs().max(1e-6),
                "n = {n}, output {j}: {y} vs {}",
                expected[j]
            );
        }
        let work = mbc.work.as_ref().unwrap();
        offsets_seen = offsets_seen.max(work.delta_u.amax());
    }
    // The offsets were far from zero, yet they did not enter ȳ.
    assert!(offsets_seen > 1.0, "δu stayed at {offsets_seen}");
}

/// Global error (largest per-signal relative deviation) against the monolithic reference.
fn global_error(p: u32, steps: u32) -> f64 {
    const T_END: f64 = 3e-3;
    let h = T_END / f64::from(steps);
    let run = corrected_run(p, 1.0, JacobianRequest::Auto, h, steps, true);
    let (_, reference) = two_mass_with_reference(T_END);
    max_relative(&run, &reference.outputs_at_offsets(h, steps).unwrap())
}

#[test]
fn corrected_zoh_converges_with_order_2() {
    let errors: Vec<f64> = [40u32, 80, 160, 320]
        .iter()
        .map(|&n| global_error(0, n))
        .collect();
    let order = libm::log2(errors[2] / errors[3]);
    assert!(
        (order - 2.0).abs() < 0.2,
        "errors {errors:?}, order {order}"
    );
}

#[test]
fn finite_difference_jacobians_give_the_directional_derivative_run() {
    for p in 0..=2u32 {
        for alpha in [1.0, 0.5] {
            let dd = corrected_run(
                p,
                alpha,
                JacobianRequest::DirectionalDerivatives,
                1e-4,
                200,
                false,
            );
            let fd = corrected_run(
                p,
                alpha,
                JacobianRequest::FiniteDifferences,
                1e-4,
                200,
                false,
            );
            let diff = max_relative(&fd, &dd);
            assert!(diff < 1e-6, "p = {p}, α = {alpha}: {diff:e}");
        }
    }
}

#[test]
fn modules_without_jacobians_or_rollback_are_refused_before_the_first_step() {
    let a = MockModule::new(&[("u", "")], &[("y", "")]);
    let b = MockModule::new(&[("u", "")], &[("y", "")]);
    let modules: Vec<(String, Box<dyn Module>)> =
        vec![("a".into(), Box::new(a)), ("b".into(), Box::new(b))];
    let connections = [
        ("a.y".to_string(), "b.u".to_string()),
        ("b.y".to_string(), "a.u".to_string()),
    ];
    let sys = CoupledSystem::new(modules, &connections).unwrap();
    let grid = FixedGrid::uniform(0.0, 0.1, 3);
    for request in [
        JacobianRequest::Auto,
        JacobianRequest::DirectionalDerivatives,
        JacobianRequest::FiniteDifferences,
    ] {
        let mut sys2 = CoupledSystem::new(
            vec![
                (
                    "a".into(),
                    Box::new(MockModule::new(&[("u", "")], &[("y", "")])) as Box<dyn Module>,
                ),
                (
                    "b".into(),
                    Box::new(MockModule::new(&[("u", "")], &[("y", "")])) as Box<dyn Module>,
                ),
            ],
            &connections,
        )
        .unwrap();
        assert!(matches!(
            jacobian_source_for(&sys2, request),
            Err(MasterError::MissingCapability { ref module, .. }) if module == "a"
        ));
        sys2.initialize(0.0, 0.3).unwrap();
        let mut mbc = ModelBasedCorrection::new(0, 1.0, request);
        let err = mbc
            .prepare(
                &mut sys2,
                &RunStart {
                    t_start: 0.0,
                    h: 0.1,
                    variable_steps: false,
                    history: &[],
                },
            )
            .unwrap_err();
        assert!(
            matches!(err, MasterError::MissingCapability { .. }),
            "{err}"
        );
        assert!((0..sys2.n_modules()).all(|m| sys2.subsystem(m).counts().do_step == 0));
    }
    let err = Run::new(
        sys,
        Box::new(ModelBasedCorrection::new(0, 1.0, JacobianRequest::Auto)),
        grid,
        None,
    )
    .err()
    .expect("refused");
    let text = err.to_string();
    assert!(
        text.contains("module `a`") && text.contains("canGetAndSetFMUState"),
        "{text}"
    );
}

#[test]
fn the_jacobian_source_is_reported() {
    let mut sys = two_mass();
    assert_eq!(
        jacobian_source_for(&sys, JacobianRequest::Auto),
        Ok(JacobianSource::DirectionalDerivatives)
    );
    assert_eq!(
        jacobian_source_for(&sys, JacobianRequest::FiniteDifferences),
        Ok(JacobianSource::FiniteDifferences)
    );
    sys.initialize(0.0, 1.0).unwrap();
    let mut mbc = ModelBasedCorrection::new(1, 1.0, JacobianRequest::FiniteDifferences);
    assert_eq!(mbc.jacobian_source(), None);
    mbc.prepare(
        &mut sys,
        &RunStart {
            t_start: 0.0,
            h: 1e-4,
            variable_steps: false,
            history: &[],
        },
    )
    .unwrap();
    assert_eq!(
        mbc.jacobian_source().map(|s| s.as_str()),
        Some("finite_differences")
    );
}

#[test]
fn corrector_of_every_order_equals_iterating_the_analysis_propagation_matrix() {
    // analysis::PropagationMatrix is built independently (column by column from a linear
    // step over the blocks); the run steps the real modules. Exact start-up history, so
    // both start from z_0 = [x0; y0, y_{−1}, …, y_{−p}; δu = 0].
    use crate::analysis::{PropagationMatrix, PropagationMethod};
    let (h, steps) = (1e-4, 300);
    for p in 0..=4u32 {
        for alpha in [1.0, 0.5] {
            let mut sys = two_mass();
            sys.initialize(0.0, 1.0).unwrap();
            let blocks: Vec<LinearBlock> = sys
                .modules_mut()
                .map(|(_, s)| LinearBlock::from_subsystem(s).unwrap())
                .collect();
            let l = sys.graph().coupling_matrix();
            let reference = MonolithicReference::new(&blocks, &l).unwrap();
            let past = reference.history(0.0, h, p).unwrap();
            let mut newest_first = vec![DVector::from_column_slice(sys.outputs())];
            newest_first.extend(
                past.iter()
                    .rev()
                    .map(|(_, y)| DVector::from_column_slice(y)),
            );
            let prop =
                PropagationMatrix::build(&blocks, &l, &PropagationMethod::corrected(p, alpha), h)
                    .unwrap();
            let mut z = prop.initial_vector(reference.x0(), &newest_first).unwrap();
            let y0 = prop.layout().y(0);
            let mut expected = vec![z
                .rows(y0.start, y0.len())
                .iter()
                .copied()
                .collect::<Vec<f64>>()];
            for _ in 0..steps {
                z = prop.phi() * &z;
                expected.push(z.rows(y0.start, y0.len()).iter().copied().collect());
            }
            let run = corrected_run(p, alpha, JacobianRequest::Auto, h, steps, true);
            let diff = max_relative(&run, &expected);
            assert!(
                diff < 1e-9,
                "p = {p}, α = {alpha}: max relative difference {diff:e}"
            );
        }
    }
}
