//! `MassChain.Segment`: `n` consecutive masses of the chain (see the module doc of
//! [`super`]).

use super::data::{Draw, MassData};
use super::spring_damper;
use crate::models::contact::contact_force;
use crate::models::entry::{ModelEntry, ParameterList};
use crate::models::layout::PortSpec;
use crate::models::ode_module::{OdeModel, OdeModule};
use crate::models::parameters::{apply, check, ParameterSet, Range::*, Slot};
use crate::models::solver_choice::{integrator_for, stiff_solvers};
use crate::module::{DependencyKind, Module, ModuleError, Variable};
use crate::solvers::{BandMatrix, Bdf, Integrator, SolverSpec};
use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

/// Model id.
pub const SEGMENT_ID: &str = "MassChain.Segment";
/// Largest segment (states 2n) and largest chain.
pub const MAX_SEGMENT: f64 = 1000.0;
/// Largest chain the generator draws for.
pub const MAX_CHAIN: f64 = 1e6;
/// Parameters fixed once the module is built (they decide the states and the draw): the
/// first ten and those from `draw` on.
const STRUCTURAL: usize = 10;
const STRUCTURAL_TAIL: usize = 20;

/// A segment of the chain: its place in the chain, the draw and the equations.
#[derive(Clone, Debug, PartialEq)]
pub struct Segment {
    /// Masses in this segment. Default 10.
    pub n: f64,
    /// Number of its first mass in the chain (1-based). Default 1.
    pub first: f64,
    /// Masses in the whole chain. Default 100.
    pub total: f64,
    /// Seed of the draw (the same in every segment). Default 1.
    pub seed: f64,
    /// Share of the chain's masses with an impulse. Default 0.3.
    pub impulse_share: f64,
    /// Share of the chain's masses with a contact. Default 0.1.
    pub contact_share: f64,
    /// Smallest impulse amplitude |ΔF| in N. Default 1e6.
    pub df_min: f64,
    /// Largest impulse amplitude |ΔF| in N. Default 5e6.
    pub df_max: f64,
    /// Largest |x₀| in m. Default 1e-3.
    pub x0_max: f64,
    /// Largest |v₀| in m/s. Default 10.
    pub v0_max: f64,
    /// Mass of every body in kg. Default 0.1.
    pub m: f64,
    /// Linear stiffness c in N/m. Default 1e7.
    pub c: f64,
    /// Linear damping d in N·s/m. Default 1e4.
    pub d: f64,
    /// Cubic stiffness C in N/m³. Default 1e14.
    pub c3: f64,
    /// Cubic damping D in N·s³/m³. Default 1e2.
    pub d3: f64,
    /// Impulse period P in s. Default 0.05.
    pub period: f64,
    /// Impulse duration Δt in s. Default 2.5e-3.
    pub width: f64,
    /// Impulse rise time δ in s. Default 1e-5.
    pub rise: f64,
    /// Contact amplitude A in N. Default −1e-2.
    pub a: f64,
    /// Contact exponent factor B in 1/m. Default 5e5.
    pub b: f64,
    /// 1: membership per mass from its own hash ([`Draw::per_mass`]); 0: the exact-count
    /// shuffle. Default 0.
    pub per_mass_draw: f64,
    /// 1: the stiff solver takes the analytic banded Jacobian (`kl = 3`, `ku = 2`);
    /// 0: dense finite differences. Default 0.
    pub banded: f64,
    /// Global number of a mass of this segment whose `x`, `v` are the outputs `x_watch`,
    /// `v_watch`; 0: none. Default 0.
    pub watch: f64,
    /// The draw for this segment's masses (from the parameters above).
    pub masses: Vec<MassData>,
}

impl Default for Segment {
    fn default() -> Self {
        let mut s = Segment {
            n: 10.0,
            first: 1.0,
            total: 100.0,
            seed: 1.0,
            impulse_share: 0.3,
            contact_share: 0.1,
            df_min: 1e6,
            df_max: 5e6,
            x0_max: 1e-3,
            v0_max: 10.0,
            m: 0.1,
            c: 1e7,
            d: 1e4,
            c3: 1e14,
            d3: 1e2,
            period: 0.05,
            width: 2.5e-3,
            rise: 1e-5,
            a: -1e-2,
            b: 5e5,
            per_mass_draw: 0.0,
            banded: 0.0,
            watch: 0.0,
            masses: Vec::new(),
        };
        s.draw();
        s
    }
}

impl Segment {
    /// The generator's settings.
    pub fn generator(&self) -> Draw {
        Draw {
            seed: self.seed as u64,
            total: self.total as usize,
            impulse_share: self.impulse_share,
            contact_share: self.contact_share,
            impulse_range: (self.df_min, self.df_max),
            start_range: (self.x0_max, self.v0_max),
            per_mass: self.per_mass_draw == 1.0,
        }
    }

    /// Draws this segment's masses.
    fn draw(&mut self) {
        self.masses = self
            .generator()
            .masses(self.first as usize - 1, self.n as usize);
    }

    pub(super) fn coefficients(&self) -> [f64; 4] {
        [self.c, self.d, self.c3, self.d3]
    }

    /// The impulse of amplitude `df` at `t`: the pulses of the neighbouring periods (the
    /// others are exactly 0 in f64).
    pub fn impulse(&self, df: f64, t: f64) -> f64 {
        let k = libm::floor(t / self.period);
        let mut f = 0.0;
        for alpha in [k - 1.0, k, k + 1.0] {
            if alpha >= 0.0 {
                let ta = alpha * self.period;
                f += libm::tanh((t - ta) / self.rise)
                    - libm::tanh((t - ta - self.width) / self.rise);
            }
        }
        0.5 * df * f
    }

    pub(super) fn at_left_wall(&self) -> bool {
        self.first == 1.0
    }

    pub(super) fn at_right_wall(&self) -> bool {
        self.first + self.n - 1.0 == self.total
    }

    /// Integral values, ranges between values, and structure that cannot change.
    fn check_all(&self) -> Result<(), ModuleError> {
        let whole = |name: &str, v: f64, lo: f64, hi: f64| {
            if libm::trunc(v) == v && (lo..=hi).contains(&v) {
                Ok(())
            } else {
                Err(ModuleError::invalid(format!(
                    "parameter `{name}`: expected a whole number from {lo} to {hi}, got {v}"
                )))
            }
        };
        // The whole chain as one banded segment (the monolithic reference) may be as long
        // as the chain: its memory and work grow linearly; dense segments stay small.
        let whole_chain = self.first == 1.0 && self.n == self.total && self.banded == 1.0;
        whole(
            "n",
            self.n,
            1.0,
            if whole_chain { MAX_CHAIN } else { MAX_SEGMENT },
        )?;
        whole("total", self.total, 1.0, MAX_CHAIN)?;
        whole("first", self.first, 1.0, self.total - self.n + 1.0)?;
        whole("seed", self.seed, 0.0, 9_007_199_254_740_992.0)?;
        whole("draw", self.per_mass_draw, 0.0, 1.0)?;
        whole("banded", self.banded, 0.0, 1.0)?;
        if self.watch != 0.0 {
            whole("watch", self.watch, self.first, self.first + self.n - 1.0)?;
        }
        for (name, v) in [
            ("impulse_share", self.impulse_share),
            ("contact_share", self.contact_share),
        ] {
            if v > 1.0 {
                return Err(ModuleError::invalid(format!(
                    "parameter `{name}`: expected a share from 0 to 1, got {v}"
                )));
            }
        }
        if self.df_max < self.df_min {
            return Err(ModuleError::invalid(format!(
                "parameter `dF_max` ({}) must not be below `dF_min` ({})",
                self.df_max, self.df_min
            )));
        }
        Ok(())
    }
}

impl ParameterSet for Segment {
    const MODEL_ID: &'static str = SEGMENT_ID;
    const PARAMETERS: usize = 23;

    fn with_slots<R>(&mut self, f: impl FnOnce(&mut [Slot<'_>]) -> R) -> R {
        #[rustfmt::skip] // a table: one slot a row
        let mut slots = [
            ("n",             Positive,    "",        "masses in this segment",                     &mut self.n),
            ("first",         Positive,    "",        "number of its first mass in the chain (1-based)", &mut self.first),
            ("total",         Positive,    "",        "masses in the whole chain",                  &mut self.total),
            ("seed",          NonNegative, "",        "seed of the random draw (same in every segment)", &mut self.seed),
            ("impulse_share", NonNegative, "",        "share of the chain's masses with an impulse", &mut self.impulse_share),
            ("contact_share", NonNegative, "",        "share of the chain's masses with a contact", &mut self.contact_share),
            ("dF_min",        NonNegative, "N",       "smallest impulse amplitude |dF|",            &mut self.df_min),
            ("dF_max",        NonNegative, "N",       "largest impulse amplitude |dF|",             &mut self.df_max),
            ("x0_max",        NonNegative, "m",       "largest |start position|",                   &mut self.x0_max),
            ("v0_max",        NonNegative, "m/s",     "largest |start velocity|",                   &mut self.v0_max),
            ("m",             Positive,    "kg",      "mass of every body",                         &mut self.m),
            ("c",             NonNegative, "N/m",     "linear stiffness c of the spring-dampers",   &mut self.c),
            ("d",             NonNegative, "N*s/m",   "linear damping d",                           &mut self.d),
            ("C",             NonNegative, "N/m3",    "cubic stiffness C",                          &mut self.c3),
            ("D",             NonNegative, "N*s3/m3", "cubic damping D",                            &mut self.d3),
            ("t_period",      Positive,    "s",       "impulse period (impulses at 0, P, 2P, ...)", &mut self.period),
            ("t_width",       Positive,    "s",       "impulse duration dt",                        &mut self.width),
            ("t_rise",        Positive,    "s",       "impulse rise time delta",                    &mut self.rise),
            ("A",             Finite,      "N",       "contact amplitude A of A*exp(B*x)",          &mut self.a),
            ("B",             Finite,      "1/m",     "contact exponent factor B",                  &mut self.b),
            ("draw",          NonNegative, "",        "1: impulses/contacts drawn per mass (O(n)); 0: exact-count shuffle", &mut self.per_mass_draw),
            ("banded",        NonNegative, "",        "1: analytic banded Jacobian for bdf; 0: dense finite differences", &mut self.banded),
            ("watch",         NonNegative, "",        "number of a mass in the chain whose x, v are outputs (0: none)", &mut self.watch),
        ];
        f(&mut slots)
    }

    fn check_relations(&self) -> Result<(), ModuleError> {
        self.check_all()
    }

    /// Defaults overridden by `map`, checked, then drawn.
    fn from_map(map: &BTreeMap<String, f64>) -> Result<Self, ModuleError> {
        let mut p = Self::default();
        p.with_slots(|s| apply(SEGMENT_ID, map, s))?;
        p.check_all()?;
        p.draw();
        Ok(p)
    }

    /// Defaults with the parameters set in order, checked, then drawn.
    fn from_values(values: &[f64]) -> Result<Self, ModuleError> {
        if values.len() != Self::PARAMETERS {
            return Err(ModuleError::invalid(format!(
                "{SEGMENT_ID} has {} parameters, got {} values",
                Self::PARAMETERS,
                values.len()
            )));
        }
        let mut p = Self::default();
        p.with_slots(|s| {
            for ((name, range, _, _, slot), v) in s.iter_mut().zip(values) {
                **slot = check(name, *v, *range)?;
            }
            Ok::<(), ModuleError>(())
        })?;
        p.check_all()?;
        p.draw();
        Ok(p)
    }

    /// The physical parameters may change; those that decide the states, the draw, the
    /// solver's Jacobian and the outputs may not (set them in the scenario).
    fn set_parameter(&mut self, index: usize, value: f64) -> Result<(), ModuleError> {
        let mut p = self.clone();
        p.with_slots(|s| match s.get_mut(index) {
            Some((name, _, _, _, slot))
                if (index < STRUCTURAL || index >= STRUCTURAL_TAIL) && **slot != value =>
            {
                Err(ModuleError::invalid(format!(
                    "parameter `{name}` fixes the segment's states and draw; set it in the scenario"
                )))
            }
            Some((name, range, _, _, slot)) => {
                **slot = check(name, value, *range)?;
                Ok(())
            }
            None => Err(ModuleError::invalid("no such parameter")),
        })?;
        p.check_all()?;
        *self = p;
        Ok(())
    }

    /// Every slot is a parameter; the states `x1, v1, …` start at the draw.
    fn ports(&self) -> (Vec<PortSpec>, Vec<PortSpec>) {
        let mut p = self.clone();
        let parameters = p.with_slots(|s| {
            s.iter()
                .map(|(name, _, unit, text, value)| PortSpec::new(name, unit, **value, text))
                .collect()
        });
        let mut states = Vec::with_capacity(2 * self.masses.len());
        for (j, mass) in self.masses.iter().enumerate() {
            let global = self.first as usize + j;
            let x = format!("position of mass {global} of the chain");
            let v = format!("velocity of mass {global} of the chain");
            states.push(PortSpec::new(&format!("x{}", j + 1), "m", mass.x0, &x));
            states.push(PortSpec::new(&format!("v{}", j + 1), "m/s", mass.v0, &v));
        }
        (parameters, states)
    }
}

impl OdeModel for Segment {
    /// Only the cut ends have an input (a wall end has none).
    fn inputs(&self) -> Vec<PortSpec> {
        let mut inputs = Vec::new();
        if !self.at_left_wall() {
            let text = "cut force on the left (- on the first mass)";
            inputs.push(PortSpec::new("lambda_left", "N", 0.0, text));
        }
        if !self.at_right_wall() {
            let text = "cut force on the right (+ on the last mass)";
            inputs.push(PortSpec::new("lambda_right", "N", 0.0, text));
        }
        inputs
    }
    fn outputs(&self) -> Vec<PortSpec> {
        let mut outputs = vec![
            PortSpec::new("x_first", "m", 0.0, "position of the first mass"),
            PortSpec::new("v_first", "m/s", 0.0, "velocity of the first mass"),
            PortSpec::new("x_last", "m", 0.0, "position of the last mass"),
            PortSpec::new("v_last", "m/s", 0.0, "velocity of the last mass"),
        ];
        if self.watch != 0.0 {
            let at = format!("of mass {} of the chain", self.watch);
            outputs.push(PortSpec::new(
                "x_watch",
                "m",
                0.0,
                &format!("position {at}"),
            ));
            outputs.push(PortSpec::new(
                "v_watch",
                "m/s",
                0.0,
                &format!("velocity {at}"),
            ));
        }
        outputs
    }
    fn feedthrough(&self) -> Vec<(usize, usize, DependencyKind)> {
        Vec::new()
    }
    fn rhs(&self, t: f64, x: &[f64], u: &[f64], dx: &mut [f64]) {
        let n = self.masses.len();
        let k = self.coefficients();
        // Forces accumulate in the acceleration slots, divided by m at the end.
        for j in 0..n {
            dx[2 * j] = x[2 * j + 1];
            let mass = &self.masses[j];
            let mut f = contact_force(if mass.contact { self.a } else { 0.0 }, self.b, x[2 * j]);
            if mass.impulse != 0.0 {
                f += self.impulse(mass.impulse, t);
            }
            dx[2 * j + 1] = f;
        }
        for j in 1..n {
            let f = spring_damper(k, x[2 * j] - x[2 * j - 2], x[2 * j + 1] - x[2 * j - 1]);
            dx[2 * j + 1] -= f;
            dx[2 * j - 1] += f;
        }
        let left_wall = self.at_left_wall();
        dx[1] -= if left_wall {
            spring_damper(k, x[0], x[1])
        } else {
            u[0]
        };
        let last = 2 * n - 2;
        dx[last + 1] += if self.at_right_wall() {
            spring_damper(k, -x[last], -x[last + 1])
        } else {
            u[usize::from(!left_wall)]
        };
        for j in 0..n {
            dx[2 * j + 1] /= self.m;
        }
    }
    fn output(&self, _t: f64, x: &[f64], _u: &[f64], y: &mut [f64]) {
        let last = x.len() - 2;
        y[..4].copy_from_slice(&[x[0], x[1], x[last], x[last + 1]]);
        if self.watch != 0.0 {
            let j = 2 * (self.watch - self.first) as usize;
            y[4..6].copy_from_slice(&x[j..j + 2]);
        }
    }
    fn band(&self) -> Option<(usize, usize)> {
        (self.banded == 1.0).then_some((3, 2))
    }
    fn banded_jacobian(&self, _t: f64, x: &[f64], _u: &[f64], jac: &mut BandMatrix) {
        self.write_jacobian(x, jac);
    }
}

/// The seed's BDF for a segment of `n` masses (atol 1e-9 m for positions, 1e-6 m/s for
/// velocities).
pub fn segment_bdf(n: usize) -> Integrator {
    let atol = (0..2 * n)
        .map(|i| if i % 2 == 0 { 1e-9 } else { 1e-6 })
        .collect();
    Integrator::Bdf(Bdf { rtol: 1e-6, atol })
}

/// A segment from scenario parameters and solver (`default` is the seed's BDF).
pub fn instantiate(
    params: &BTreeMap<String, f64>,
    solver: &SolverSpec,
) -> Result<Box<dyn Module>, ModuleError> {
    let p = Segment::from_map(params)?;
    let integrator = match solver {
        SolverSpec::Exact => {
            return Err(ModuleError::invalid(format!(
                "solver `exact` needs a linear model; {SEGMENT_ID} integrates with bdf (default), dopri45 or rk4"
            )))
        }
        _ => integrator_for(solver)?.unwrap_or_else(|| segment_bdf(p.masses.len())),
    };
    Ok(Box::new(OdeModule::new(p, integrator)?))
}

fn variables() -> Vec<Variable> {
    Segment::catalog()
}

/// Registry entry.
pub(in crate::models) const ENTRY: ModelEntry = ModelEntry {
    id: SEGMENT_ID,
    summary: "Seed 002 Example 2, a segment of the nonlinear mass chain (eqn 37): n masses with \
              cubic spring-dampers, tanh impulses on 30 % and contacts on 10 % of the chain's \
              masses (seeded draw); inputs lambda_left/right, outputs x/v of the end masses.",
    parameters: ParameterList::Fixed(variables),
    solvers: stiff_solvers,
    construct: |a| instantiate(a.parameters, a.solver),
};
