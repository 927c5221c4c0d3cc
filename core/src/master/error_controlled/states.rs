//! [`StateGroups`]: the positions `q` and velocities `v` of the dynamic modules, which the
//! state estimators (ExLocal, ExMilne, ImMilne) compare (docs/methods.md §14.10, §14.11.3).
//!
//! States are read through `x-exposesEquations` (the module's current states). The rule that
//! splits them, pinned here because modules declare no mechanical meaning: **state `x_i` is a
//! position when its derivative is another state's value**, `der(x_i) = x_j` (probed with the
//! right-hand side `f(t, x, u)` at two unrelated points, where `f_i` must equal `x_j` exactly
//! at both); every other state is in the velocity group, whose local error is one order
//! lower (a velocity, or a first-order state driven directly by the coupling variables).
//!
//! **Coupling bodies** (seed 002, Sect. 5.1: "only the states of the coupling bodies"): a
//! velocity-group state whose derivative changes when the inputs change (probed at the same
//! two points), and the position whose derivative it is. With
//! [`MonitoredStates::CouplingBodies`] only those are compared.

use crate::error::MasterError;
use crate::master::error_control::MonitoredStates;
use crate::master::{CoupledSystem, Executor};
use alloc::vec;
use alloc::vec::Vec;
use core::ops::Range;

/// What one state of a monitored module is.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Role {
    /// A position whose derivative is state `partner` of the same module.
    Position { partner: usize },
    /// A velocity (or another first-order state).
    Velocity,
    /// Not compared (off the coupling bodies).
    Unmonitored,
}

/// One monitored module: the role of each state and where its inputs start in `u`.
#[derive(Clone, Debug)]
struct Monitored {
    roles: Vec<Role>,
    first_input: usize,
    n_inputs: usize,
}

/// Where each dynamic module's states go in the position and velocity vectors.
#[derive(Clone, Debug)]
pub struct StateGroups {
    /// Per module: `None` for modules whose states are not monitored (algebraic).
    modules: Vec<Option<Monitored>>,
    /// Work buffers for one module: states, inputs, two right-hand sides.
    x: Vec<f64>,
    u: Vec<f64>,
    f0: Vec<f64>,
    f1: Vec<f64>,
    /// Per module, its range of `positions` and of `velocities` (for [`Self::complete`]).
    position_blocks: Vec<Range<usize>>,
    velocity_blocks: Vec<Range<usize>>,
    /// Positions and velocities of all monitored modules, module order.
    pub positions: Vec<f64>,
    /// See `positions`.
    pub velocities: Vec<f64>,
}

impl StateGroups {
    /// Classifies the states of every module `dynamic(m)` selects, refusing a module that
    /// does not expose its equations (its states cannot be read). `dynamic` must select the
    /// modules whose inputs are the coupling variables, in that order.
    pub fn new(
        sys: &mut CoupledSystem,
        dynamic: impl Fn(usize) -> bool,
        monitored: MonitoredStates,
        needed_by: &str,
    ) -> Result<Self, MasterError> {
        let mut modules = Vec::with_capacity(sys.n_modules());
        let mut position_blocks = Vec::with_capacity(sys.n_modules());
        let mut velocity_blocks = Vec::with_capacity(sys.n_modules());
        let (mut n_pos, mut n_vel, mut first_input) = (0, 0, 0);
        for m in 0..sys.n_modules() {
            let (pos_start, vel_start) = (n_pos, n_vel);
            if !dynamic(m) {
                modules.push(None);
                position_blocks.push(n_pos..n_pos);
                velocity_blocks.push(n_vel..n_vel);
                continue;
            }
            if !sys
                .subsystem(m)
                .description()
                .capabilities
                .x_exposes_equations
            {
                return Err(MasterError::MissingCapability {
                    module: sys.name(m).into(),
                    capability: "x-exposesEquations",
                    needed_by: alloc::format!("{needed_by} (it reads positions and velocities)"),
                });
            }
            let roles = classify(sys, m, monitored)?;
            n_pos += roles
                .iter()
                .filter(|r| matches!(r, Role::Position { .. }))
                .count();
            n_vel += roles.iter().filter(|r| **r == Role::Velocity).count();
            position_blocks.push(pos_start..n_pos);
            velocity_blocks.push(vel_start..n_vel);
            let n_inputs = sys.graph().input_range(m).len();
            modules.push(Some(Monitored {
                roles,
                first_input,
                n_inputs,
            }));
            first_input += n_inputs;
        }
        if n_pos + n_vel == 0 && monitored == MonitoredStates::CouplingBodies {
            return Err(MasterError::InvalidSettings(alloc::format!(
                "step control `monitor`: no state of a dynamic module depends on a coupling \
                 variable, so {needed_by} has no coupling body to monitor"
            )));
        }
        Ok(StateGroups {
            modules,
            x: Vec::new(),
            u: Vec::new(),
            f0: Vec::new(),
            f1: Vec::new(),
            position_blocks,
            velocity_blocks,
            positions: vec![0.0; n_pos],
            velocities: vec![0.0; n_vel],
        })
    }

    /// Reads the current states of every monitored module into the two groups.
    pub fn read(&mut self, sys: &mut CoupledSystem, t: f64) -> Result<(), MasterError> {
        let (mut p, mut v) = (0, 0);
        for (m, module) in self.modules.iter().enumerate() {
            let Some(module) = module else { continue };
            self.x.resize(module.roles.len(), 0.0);
            let r = sys.subsystem_mut(m).equation_states(&mut self.x);
            r.map_err(|e| sys.module_error(m, t, e))?;
            for (x, role) in self.x.iter().zip(&module.roles) {
                match role {
                    Role::Position { .. } => {
                        self.positions[p] = *x;
                        p += 1;
                    }
                    Role::Velocity => {
                        self.velocities[v] = *x;
                        v += 1;
                    }
                    Role::Unmonitored => {}
                }
            }
        }
        Ok(())
    }

    /// [`Self::read`], completed by `executor` where it steps some modules in other
    /// processes.
    pub(crate) fn read_completed(
        &mut self,
        sys: &mut CoupledSystem,
        executor: Option<&mut (dyn Executor + 'static)>,
        t: f64,
    ) -> Result<(), MasterError> {
        self.read(sys, t)?;
        match executor {
            Some(executor) => self.complete(executor),
            None => Ok(()),
        }
    }

    /// Completes the positions and velocities read where `executor` steps some modules in
    /// other processes (see [`Executor::complete`]).
    pub(crate) fn complete(&mut self, executor: &mut dyn Executor) -> Result<(), MasterError> {
        executor.complete(&self.position_blocks, &mut self.positions)?;
        executor.complete(&self.velocity_blocks, &mut self.velocities)
    }

    /// Completes `(dq, dv)` of [`Self::input_response`] likewise.
    pub(crate) fn complete_response(
        &self,
        executor: &mut dyn Executor,
        (dq, dv): (&mut [f64], &mut [f64]),
    ) -> Result<(), MasterError> {
        executor.complete(&self.position_blocks, dq)?;
        executor.complete(&self.velocity_blocks, dv)
    }

    /// `|Δf|` of every monitored state when the inputs move from `u` to `u + d` (both over
    /// the coupling variables) at the modules' current states and time `t`, placed like the
    /// states: a velocity's own `|Δf_i|`, a position's its partner's `|Δf_j|`
    /// (`der(q_i) = x_j`). An input error `d·ℓ(s)` over a step `H` then moves `v` by about
    /// `H·∫ℓ·|Δf|` and `q` by `H²·∫(1 − s)ℓ·|Δf|` (docs/methods.md §14.11.3).
    pub fn input_response(
        &mut self,
        sys: &mut CoupledSystem,
        t: f64,
        (u, d): (&[f64], &[f64]),
        (dq, dv): (&mut Vec<f64>, &mut Vec<f64>),
    ) -> Result<(), MasterError> {
        dq.clear();
        dv.clear();
        for (m, module) in self.modules.iter().enumerate() {
            let Some(module) = module else { continue };
            let n = module.roles.len();
            self.x.resize(n, 0.0);
            self.f0.resize(n, 0.0);
            self.f1.resize(n, 0.0);
            let inputs = module.first_input..module.first_input + module.n_inputs;
            self.u.clear();
            self.u.extend_from_slice(&u[inputs.clone()]);
            let sub = sys.subsystem_mut(m);
            let r = sub
                .equation_states(&mut self.x)
                .and_then(|()| sub.equation_rhs(t, &self.x, &self.u, &mut self.f0));
            r.map_err(|e| sys.module_error(m, t, e))?;
            for (ui, di) in self.u.iter_mut().zip(&d[inputs]) {
                *ui += di;
            }
            let r = sys
                .subsystem_mut(m)
                .equation_rhs(t, &self.x, &self.u, &mut self.f1);
            r.map_err(|e| sys.module_error(m, t, e))?;
            let change = |i: usize| (self.f1[i] - self.f0[i]).abs();
            for (i, role) in module.roles.iter().enumerate() {
                match *role {
                    Role::Position { partner } => dq.push(change(partner)),
                    Role::Velocity => dv.push(change(i)),
                    Role::Unmonitored => {}
                }
            }
        }
        Ok(())
    }
}

/// The role of each state of module `m`.
fn classify(
    sys: &mut CoupledSystem,
    m: usize,
    monitored: MonitoredStates,
) -> Result<Vec<Role>, MasterError> {
    let nu = sys.graph().input_range(m).len();
    let sub = sys.subsystem_mut(m);
    let n = sub.equation_state_count();
    let n = n.map_err(|e| sys.module_error(m, f64::NAN, e))?;
    // Two probe points with distinct, unrelated values.
    let probes = [(0.37, 1.0, 0.61), (1.93, -0.29, -1.7)];
    let mut position = vec![true; n];
    let mut partner: Vec<Option<usize>> = vec![None; n];
    let mut driven = vec![false; n];
    let (mut dx, mut dx_moved) = (vec![0.0; n], vec![0.0; n]);
    for (p, (t, a, b)) in probes.iter().enumerate() {
        let x: Vec<f64> = (0..n).map(|i| a + b * libm::sqrt(i as f64 + 1.0)).collect();
        let u: Vec<f64> = (0..nu).map(|i| b - a * (i as f64 + 0.5)).collect();
        let r = sys.subsystem_mut(m).equation_rhs(*t, &x, &u, &mut dx);
        r.map_err(|e| sys.module_error(m, *t, e))?;
        for i in 0..n {
            let found = (0..n).find(|&j| j != i && dx[i] == x[j]);
            if p == 0 {
                partner[i] = found;
            }
            position[i] &= found.is_some() && found == partner[i];
        }
        // Every input moved by a distinct amount: a derivative an input enters changes.
        let moved: Vec<f64> = u
            .iter()
            .enumerate()
            .map(|(i, v)| v + 0.7 + 0.3 * i as f64)
            .collect();
        let r = sys
            .subsystem_mut(m)
            .equation_rhs(*t, &x, &moved, &mut dx_moved);
        r.map_err(|e| sys.module_error(m, *t, e))?;
        for i in 0..n {
            driven[i] |= dx_moved[i] != dx[i];
        }
    }
    let roles = (0..n).map(|i| {
        let role = match partner[i] {
            Some(j) if position[i] => Role::Position { partner: j },
            _ => Role::Velocity,
        };
        let on_coupling_body = match role {
            Role::Position { partner } => driven[partner],
            _ => driven[i],
        };
        if monitored == MonitoredStates::CouplingBodies && !on_coupling_body {
            Role::Unmonitored
        } else {
            role
        }
    });
    Ok(roles.collect())
}
