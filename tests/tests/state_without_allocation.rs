//! Issue 10: a master that checkpoints every step saves module states without a fresh
//! allocation each time. A counting global allocator (per thread, so tests running in
//! parallel do not disturb each other) shows that `Subsystem::save_state_into` into a
//! slot that already holds the module's state allocates nothing, for every kind of
//! module, while `get_state` allocates; and that the in-place state restores exactly.

use cosim_core::fmu::BinaryModule;
use cosim_core::models;
use cosim_core::models::equations::{EquationModule, EXAMPLE_SOURCE};
use cosim_core::models::reference_fmus::BOUNCING_BALL_ID;
use cosim_core::models::two_mass_oscillator::{mass1_linear, mass1_ode, Mass1Params};
use cosim_core::module::{InstantiateOptions, Module, ModuleState, Subsystem, ValueRef};
use cosim_core::solvers::{Dopri45, Integrator, Rk4};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::collections::BTreeMap;

/// Counts allocations (and reallocations) made by the current thread.
struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.with(|n| n.set(n.get() + 1));
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.with(|n| n.set(n.get() + 1));
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Allocations `f` makes on this thread.
fn allocations_of<T>(f: impl FnOnce() -> T) -> (T, u64) {
    let before = ALLOCATIONS.with(Cell::get);
    let out = f();
    (out, ALLOCATIONS.with(Cell::get) - before)
}

fn started(module: Box<dyn Module>) -> Subsystem {
    let mut s = Subsystem::instantiate(module, InstantiateOptions::default()).expect("instance");
    s.enter_initialization_mode(None, 0.0, None).expect("init");
    s.exit_initialization_mode().expect("step mode");
    s
}

/// Steps `s` by `h` from `t`, reading every output afterwards.
fn step(s: &mut Subsystem, t: f64, h: f64) -> Vec<f64> {
    s.do_step(t, h, false).expect("step");
    let outputs: Vec<ValueRef> = s
        .description()
        .outputs()
        .iter()
        .map(|v| v.value_ref)
        .collect();
    let mut y = vec![0.0; outputs.len()];
    s.get_float64(&outputs, &mut y).expect("outputs");
    y
}

/// Checkpoints `s` every step into one slot: after the first save no save allocates, and
/// restoring the last checkpoint repeats the step it preceded bit for bit.
fn checkpoints_without_allocating(name: &str, mut s: Subsystem, h: f64) {
    let (fresh, n) = allocations_of(|| s.get_state().expect("get_state"));
    assert!(n > 0, "{name}: get_state allocates a new state ({n})");
    drop(fresh);
    let mut slot = ModuleState::empty();
    s.save_state_into(&mut slot).expect("first save");
    let mut t = 0.0;
    let mut last = Vec::new();
    for _ in 0..5 {
        let (r, n) = allocations_of(|| s.save_state_into(&mut slot));
        r.expect("save in place");
        assert_eq!(
            n, 0,
            "{name}: saving into a warmed-up slot allocated {n} times"
        );
        last = step(&mut s, t, h);
        t += h;
    }
    s.set_state(&slot).expect("restore");
    assert_eq!(
        step(&mut s, t - h, h),
        last,
        "{name}: the in-place state restores exactly"
    );
}

#[test]
fn built_in_modules_save_into_a_warmed_up_slot_without_allocating() {
    let p = Mass1Params::default();
    let lss = mass1_linear(&p).expect("linear");
    checkpoints_without_allocating("LinearStateSpace", started(Box::new(lss)), 1e-3);
    let rk4 = Integrator::Rk4(Rk4 { max_step: 1e-4 });
    let ode = mass1_ode(&p, rk4.clone()).expect("ode");
    checkpoints_without_allocating("OdeModule (RK4)", started(Box::new(ode)), 1e-3);
    let dopri = Integrator::Dopri45(Dopri45 {
        rtol: 1e-8,
        atol: 1e-12,
    });
    let ode = mass1_ode(&p, dopri).expect("ode");
    checkpoints_without_allocating("OdeModule (Dopri45)", started(Box::new(ode)), 1e-3);
    let eq = EquationModule::new(EXAMPLE_SOURCE, &BTreeMap::new(), rk4).expect("equations");
    checkpoints_without_allocating("EquationModule", started(Box::new(eq)), 1e-3);
    let ball = models::instantiate(BOUNCING_BALL_ID, &BTreeMap::new(), &Default::default())
        .expect("reference FMU");
    checkpoints_without_allocating("BouncingBall", started(ball), 0.01);
}

#[test]
fn a_binary_module_overwrites_its_fmu_state_without_allocating() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/fmus/rust_oscillator.fmu"
    );
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let m = BinaryModule::from_fmu(&bytes, &BTreeMap::new(), Default::default()).expect("loads");
    checkpoints_without_allocating("BinaryModule", started(Box::new(m)), 1e-4);
}

/// The driver's checkpoints reuse their slots: a Jacobi run of the exact two-mass
/// oscillator under a controller that rejects (and rolls back) every third attempt makes
/// no allocation per macro-step once warm.
#[test]
fn rollback_runs_do_not_allocate_per_macro_step() {
    use cosim_core::master::{LastValues, Run, StepController};
    use cosim_core::scenario;
    use cosim_core::simulation::build_module;
    use cosim_core::testing::RejectEvery;
    use cosim_core::time::FixedGrid;

    let s = scenario::preset("two-mass-oscillator").expect("preset");
    let modules = s
        .modules
        .iter()
        .map(|m| (m.name.clone(), build_module(m).expect("module")))
        .collect();
    let connections: Vec<(String, String)> = s
        .connections
        .iter()
        .map(|c| (c.from.clone(), c.to.clone()))
        .collect();
    let sys = cosim_core::master::CoupledSystem::new(modules, &connections).expect("system");
    let grid = FixedGrid::uniform(0.0, 1e-4, 400);
    let controller: Box<dyn StepController> = Box::new(RejectEvery::new(grid, 3));
    let algorithm = Box::new(cosim_core::master::ExplicitCoupling::jacobi(1));
    let mut run = Run::with_controller(sys, algorithm, controller, None).expect("run");
    let mut last = LastValues::default();
    run.advance(20, &mut last).expect("warm-up");
    let (done, allocations) = allocations_of(|| run.advance(300, &mut last).expect("steps"));
    assert!(!done);
    assert!(run.stats().rejected >= 100, "{:?}", run.stats());
    assert_eq!(
        allocations, 0,
        "allocations in 300 macro-steps with rollbacks"
    );
}
