//! [`StateGroups`]: the positions `q` and velocities `v` of the dynamic modules, which the
//! state estimators (ExLocal, ExMilne) compare (docs/methods.md §14.10).
//!
//! States are read through `x-exposesEquations` (the module's current states). The rule that
//! splits them, pinned here because modules declare no mechanical meaning: **state `x_i` is a
//! position when its derivative is another state's value**, `der(x_i) = x_j` (probed with the
//! right-hand side `f(t, x, u)` at two unrelated points, where `f_i` must equal `x_j` exactly
//! at both); every other state is in the velocity group, whose local error is one order
//! lower (a velocity, or a first-order state driven directly by the coupling variables).

use crate::error::MasterError;
use crate::master::CoupledSystem;
use alloc::vec;
use alloc::vec::Vec;

/// Where each dynamic module's states go in the position and velocity vectors.
#[derive(Clone, Debug)]
pub struct StateGroups {
    /// Per module: `None` for modules whose states are not monitored (algebraic), else
    /// one flag per state, true for a position.
    modules: Vec<Option<Vec<bool>>>,
    /// Work buffer for one module's states.
    x: Vec<f64>,
    /// Positions and velocities of all monitored modules, module order.
    pub positions: Vec<f64>,
    /// See `positions`.
    pub velocities: Vec<f64>,
}

impl StateGroups {
    /// Classifies the states of every module `dynamic(m)` selects, refusing a module that
    /// does not expose its equations (its states cannot be read).
    pub fn new(
        sys: &mut CoupledSystem,
        dynamic: impl Fn(usize) -> bool,
        needed_by: &str,
    ) -> Result<Self, MasterError> {
        let mut modules = Vec::with_capacity(sys.n_modules());
        let (mut n_pos, mut n_vel) = (0, 0);
        for m in 0..sys.n_modules() {
            if !dynamic(m) {
                modules.push(None);
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
            let flags = classify(sys, m)?;
            n_pos += flags.iter().filter(|p| **p).count();
            n_vel += flags.iter().filter(|p| !**p).count();
            modules.push(Some(flags));
        }
        Ok(StateGroups {
            modules,
            x: Vec::new(),
            positions: vec![0.0; n_pos],
            velocities: vec![0.0; n_vel],
        })
    }

    /// Reads the current states of every monitored module into the two groups.
    pub fn read(&mut self, sys: &mut CoupledSystem, t: f64) -> Result<(), MasterError> {
        let (mut p, mut v) = (0, 0);
        for (m, flags) in self.modules.iter().enumerate() {
            let Some(flags) = flags else { continue };
            self.x.resize(flags.len(), 0.0);
            let r = sys.subsystem_mut(m).equation_states(&mut self.x);
            r.map_err(|e| sys.module_error(m, t, e))?;
            for (x, &is_position) in self.x.iter().zip(flags) {
                if is_position {
                    self.positions[p] = *x;
                    p += 1;
                } else {
                    self.velocities[v] = *x;
                    v += 1;
                }
            }
        }
        Ok(())
    }
}

/// One flag per state of module `m`: true if its derivative equals another state.
fn classify(sys: &mut CoupledSystem, m: usize) -> Result<Vec<bool>, MasterError> {
    let nu = sys.graph().input_range(m).len();
    let sub = sys.subsystem_mut(m);
    let n = sub.equation_state_count();
    let n = n.map_err(|e| sys.module_error(m, f64::NAN, e))?;
    // Two probe points with distinct, unrelated values.
    let probes = [(0.37, 1.0, 0.61), (1.93, -0.29, -1.7)];
    let mut position = vec![true; n];
    let mut partner: Vec<Option<usize>> = vec![None; n];
    let mut dx = vec![0.0; n];
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
    }
    Ok(position)
}
