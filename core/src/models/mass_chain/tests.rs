//! The mass chain: the seeded draw, right-hand sides by hand, and the decomposed chain
//! through the registry and the fixed-step Jacobi master against the whole chain.

use super::data::Draw;
use super::*;
use crate::models::ode_module::OdeModel;
use crate::models::parameters::ParameterSet;
use crate::models::registry::instantiate;
use crate::scenario::parse;
use crate::simulation::Simulation;
use crate::solvers::{Bdf, OdeSystem, SolverSpec, Workspace};
use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

fn params(entries: &[(&str, f64)]) -> BTreeMap<String, f64> {
    entries
        .iter()
        .map(|(k, v)| (String::from(*k), *v))
        .collect()
}

#[test]
fn the_draw_is_reproducible_exact_in_count_and_independent_of_the_segmentation() {
    let draw = Segment::default().generator();
    let whole = draw.masses(0, 100);
    assert_eq!(whole, draw.masses(0, 100), "same seed, same data");
    assert_eq!(whole.iter().filter(|m| m.impulse != 0.0).count(), 30);
    assert_eq!(whole.iter().filter(|m| m.contact).count(), 10);
    for s in 0..10 {
        assert_eq!(draw.masses(10 * s, 10), whole[10 * s..10 * s + 10].to_vec());
    }
    for m in &whole {
        assert!(
            m.impulse == 0.0 || (1e6..=5e6).contains(&m.impulse.abs()),
            "{m:?}"
        );
        assert!(m.x0.abs() <= 1e-3 && m.v0.abs() <= 10.0, "{m:?}");
        assert!(
            !m.contact || m.x0 <= 0.0,
            "a contact starts behind its wall: {m:?}"
        );
    }
    // Both signs occur, and another seed draws another chain.
    assert!(whole.iter().any(|m| m.impulse > 0.0) && whole.iter().any(|m| m.impulse < 0.0));
    let other = Draw { seed: 2, ..draw }.masses(0, 100);
    assert_ne!(whole, other);
    // Pinned values: the draw must never change (runs stay reproducible across versions).
    assert_eq!(whole[0].x0, -0.000623276634678291);
    assert_eq!(whole[0].v0, -9.601873825029754);
}

#[test]
fn a_segment_between_two_walls_matches_hand_computed_forces() {
    let map = params(&[
        ("n", 2.0),
        ("total", 2.0),
        ("impulse_share", 0.0),
        ("contact_share", 0.0),
    ]);
    let seg = Segment::from_map(&map).expect("valid");
    let x = [1e-3, 2.0, -2e-3, 1.0];
    let mut dx = [0.0; 4];
    seg.rhs(0.0, &x, &[], &mut dx);
    // Between the masses: Δx = −3e-3, Δv = −1: −3e4 − 1e4 − 2.7e6 − 1e2 = −2 740 100 N.
    // Left wall: 1e4 + 2e4 + 1e5 + 800 = 130 800 N. Right wall on (2e-3, −1):
    // 2e4 − 1e4 + 8e5 − 100 = 809 900 N. Wall ends have no inputs.
    assert!(seg.inputs().is_empty());
    let expected = [
        2.0,
        (-2_740_100.0 - 130_800.0) / 0.1,
        1.0,
        (2_740_100.0 + 809_900.0) / 0.1,
    ];
    for i in 0..4 {
        assert!(
            (dx[i] - expected[i]).abs() <= 1e-12 * expected[i].abs(),
            "{dx:?}"
        );
    }
}

#[test]
fn an_inner_mass_takes_its_cut_forces_impulse_and_contact() {
    let map = params(&[
        ("n", 1.0),
        ("first", 5.0),
        ("total", 10.0),
        ("impulse_share", 1.0),
        ("contact_share", 1.0),
    ]);
    let seg = Segment::from_map(&map).expect("valid");
    let df = seg.masses[0].impulse;
    assert!(df.abs() >= 1e6 && seg.masses[0].contact);
    let mut dx = [0.0; 2];
    // t = 1 ms is inside the first pulse: ½ΔF (tanh(100) − tanh(−150)) = ΔF in f64.
    seg.rhs(1e-3, &[-1e-5, 4.0], &[3.0, 5.0], &mut dx);
    let force = -1e-2 * libm::exp(-5.0) + df - 3.0 + 5.0;
    assert_eq!(dx[0], 4.0);
    assert!(
        (dx[1] - force / 0.1).abs() <= 1e-12 * (force / 0.1).abs(),
        "{dx:?}"
    );
    // Half the amplitude at the pulse's start, none between the pulses.
    assert!((seg.impulse(df, 0.0) - 0.5 * df).abs() < 1e-9 * df.abs());
    assert_eq!(seg.impulse(df, 0.03), 0.0);
    // Structural parameters cannot change after the draw; physical ones can.
    let mut s = seg.clone();
    assert!(s.set_parameter(3, 7.0).is_err(), "seed");
    s.set_parameter(10, 0.2).expect("mass");
    assert_eq!(s.m, 0.2);
}

#[test]
fn bad_segment_parameters_name_the_field() {
    for (name, value, needle) in [
        ("n", 2.5, "`n`"),
        ("first", 95.0, "`first`"),
        ("impulse_share", 1.5, "`impulse_share`"),
        ("dF_max", 1.0, "`dF_max`"),
    ] {
        let e = match instantiate(SEGMENT_ID, &params(&[(name, value)]), &SolverSpec::Default) {
            Ok(_) => panic!("{name} = {value} accepted"),
            Err(e) => alloc::format!("{e}"),
        };
        assert!(e.contains(needle), "{e}");
    }
}

/// The whole chain is one segment of all its masses: the draw is global.
fn whole_chain(times: &[f64]) -> Vec<Vec<f64>> {
    let mut seg = Segment::from_map(&params(&[("n", 100.0)])).expect("whole");
    let mut z: Vec<f64> = seg.masses.iter().flat_map(|m| [m.x0, m.v0]).collect();
    struct Free<'a>(&'a mut Segment);
    impl OdeSystem for Free<'_> {
        fn dim(&self) -> usize {
            2 * self.0.masses.len()
        }
        fn rhs(&mut self, t: f64, x: &[f64], dx: &mut [f64]) {
            self.0.rhs(t, x, &[], dx);
        }
    }
    let atol = (0..200)
        .map(|i| if i % 2 == 0 { 1e-13 } else { 1e-10 })
        .collect();
    let bdf = Bdf { rtol: 1e-10, atol };
    let mut ws = Workspace::new(200);
    let (mut t, mut out) = (0.0, Vec::new());
    for &tn in times {
        if tn > t {
            bdf.integrate(&mut Free(&mut seg), t, tn, &mut z, &mut ws)
                .expect("whole chain");
            t = tn;
        }
        out.push(z.clone());
    }
    out
}

#[test]
fn the_decomposed_chain_couples_stays_finite_and_follows_the_whole_chain() {
    let json = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/fixtures/mass-chain.json"
    ));
    let mut s = parse(json).expect("parses");
    s.run.stop = 1e-5;
    let v = s.validate().expect("valid");
    let mut sim = Simulation::new(&v).expect("builds");
    sim.run_to_end().expect("runs");
    let r = sim.result();
    assert!(r
        .signals
        .iter()
        .all(|s| s.cosim.iter().all(|v| v.is_finite())));
    // seg5.x_last is mass 50, seg6.x_first mass 51 (states 98 and 100 of the whole chain).
    let signal = |name: &str| &r.signals.iter().find(|s| s.name == name).expect(name).cosim;
    // Every 100th communication point (the reference restarts at each one).
    let points: Vec<usize> = (0..r.time.len()).step_by(100).collect();
    let times: Vec<f64> = points.iter().map(|&i| r.time[i]).collect();
    let reference = whole_chain(&times);
    let (mut err, mut scale) = (0.0f64, 0.0f64);
    for (&i, z) in points.iter().zip(&reference) {
        for (name, state) in [("seg5.x_last", 98), ("seg6.x_first", 100)] {
            err = err.max((signal(name)[i] - z[state]).abs());
            scale = scale.max(z[state].abs());
        }
    }
    assert!(err < 1e-3 * scale, "max error {err:e} of {scale:e}");
}

#[test]
fn the_analytic_banded_jacobian_equals_finite_differences() {
    use crate::solvers::BandMatrix;
    // A wall segment and an inner one, with contacts and impulses on every mass.
    for (first, total) in [(1.0, 12.0), (4.0, 20.0), (7.0, 12.0)] {
        let map = params(&[
            ("n", 6.0),
            ("first", first),
            ("total", total),
            ("contact_share", 1.0),
            ("impulse_share", 1.0),
            ("banded", 1.0),
        ]);
        let seg = Segment::from_map(&map).expect("valid");
        assert_eq!(seg.band(), Some((3, 2)));
        // States near the contacts' steep part (B x ≈ −3), velocities of order 1.
        let z: Vec<f64> = (0..12)
            .map(|i| match i % 2 {
                0 => -6e-6 * (1.0 + 0.1 * i as f64),
                _ => libm::sin(i as f64),
            })
            .collect();
        let u = [3.0, -2.0];
        let mut jac = BandMatrix::zeros(12, 3, 2);
        seg.banded_jacobian(1e-3, &z, &u, &mut jac);
        for j in 0..12 {
            let h = if j % 2 == 0 { 1e-9 } else { 1e-5 };
            let (mut zp, mut zm) = (z.clone(), z.clone());
            zp[j] += h;
            zm[j] -= h;
            let (mut fp, mut fm) = ([0.0; 12], [0.0; 12]);
            seg.rhs(1e-3, &zp, &u, &mut fp);
            seg.rhs(1e-3, &zm, &u, &mut fm);
            for i in 0..12 {
                let fd = (fp[i] - fm[i]) / (2.0 * h);
                let exact = jac.get(i, j);
                let scale = fd.abs().max(exact.abs()).max(1.0);
                assert!(
                    (fd - exact).abs() <= 1e-5 * scale,
                    "first {first}: ∂f{i}/∂z{j} = {exact:e}, differences give {fd:e}"
                );
                if !jac.in_band(i, j) || (j > i + 2) || (i > j + 3) {
                    assert_eq!(fd, 0.0, "({i}, {j}) outside the band");
                }
            }
        }
    }
}

#[test]
fn a_banded_segment_integrates_as_the_dense_one() {
    // The whole 40-mass chain as one segment, 2 ms with an impulse and contacts: the
    // banded Jacobian changes only Newton's path, not the solution beyond the tolerance.
    let run = |banded: f64| {
        let map = params(&[("n", 40.0), ("total", 40.0), ("banded", banded)]);
        let mut m = instantiate(SEGMENT_ID, &map, &SolverSpec::Default).expect("builds");
        m.enter_initialization_mode(None, 0.0, None).expect("init");
        m.exit_initialization_mode().expect("exit");
        for i in 0..20 {
            m.do_step(1e-4 * i as f64, 1e-4, true).expect("steps");
        }
        let refs: Vec<_> = ["x_first", "v_first", "x_last", "v_last"]
            .iter()
            .map(|n| m.description().variable(n).expect(n).value_ref)
            .collect();
        let mut y = [0.0; 4];
        m.get_float64(&refs, &mut y).expect("outputs");
        y.to_vec()
    };
    let (dense, banded) = (run(0.0), run(1.0));
    for (d, b) in dense.iter().zip(&banded) {
        assert!(
            (d - b).abs() <= 1e-5 * d.abs().max(1e-3),
            "{dense:?} vs {banded:?}"
        );
    }
    assert_ne!(dense, banded, "the two paths are distinct");
}
