//! The monolithic reference of a `chain` scenario (docs/methods.md §16.4): the whole
//! chain as one `MassChain.Segment` of all `n_K` masses (the cut elements are the chain's
//! own spring-dampers, so this is the undecomposed system), integrated by the BDF on its
//! analytic banded Jacobian at tolerances 100 times tighter than the segments'
//! ([`CHAIN_REFERENCE_RTOL`]). It gives the recorded outputs in their order: the states of
//! watched and coupling bodies, and cut forces from the states on both sides of the cut.

use crate::analysis::reference::ReferenceError;
use crate::analysis::{CustomReference, Reference};
use crate::models::mass_chain::{spring_damper, Segment};
use crate::scenario::{ChainSpec, ValidatedScenario};
use crate::solvers::{BandMatrix, Bdf, OdeSystem, Workspace};
use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// Relative tolerance of the chain reference (segments: 1e-6).
pub const CHAIN_REFERENCE_RTOL: f64 = 1e-8;
/// Absolute tolerances of positions (m) and velocities (m/s) (segments: 1e-9, 1e-6).
pub const CHAIN_REFERENCE_ATOL: (f64, f64) = (1e-11, 1e-8);

/// What one recorded output is in the whole chain's states.
#[derive(Clone, Copy, Debug)]
enum Pick {
    /// State index.
    State(usize),
    /// Cut force between masses `l` and `l + 1` (0-based `l`).
    Cut(usize),
}

/// The whole chain integrated as one banded system.
pub struct ChainReference {
    whole: Segment,
    z: Vec<f64>,
    t: f64,
    bdf: Bdf,
    ws: Workspace,
    picks: Vec<Pick>,
    cut: [f64; 4],
    out: Vec<f64>,
}

struct Whole<'a>(&'a Segment);

impl OdeSystem for Whole<'_> {
    fn dim(&self) -> usize {
        2 * self.0.masses.len()
    }
    fn rhs(&mut self, t: f64, x: &[f64], dx: &mut [f64]) {
        self.0.derivatives(t, x, dx);
    }
    fn band(&self) -> Option<(usize, usize)> {
        (self.0.banded == 1.0).then_some((3, 2))
    }
    fn banded_jacobian(&mut self, _t: f64, x: &[f64], jac: &mut BandMatrix) {
        self.0.write_jacobian(x, jac);
    }
}

impl ChainReference {
    /// For `chain`, giving the outputs `recorded` (`module.output` names of the expanded
    /// chain) from `t0`.
    pub fn new(chain: &ChainSpec, recorded: &[String], t0: f64) -> Result<Self, String> {
        let mut p: BTreeMap<String, f64> = chain.parameters.clone();
        let n = chain.masses as f64;
        for (name, v) in [
            ("n", n),
            ("total", n),
            ("seed", chain.seed as f64),
            ("draw", 1.0),
            ("banded", 1.0),
        ] {
            p.insert(name.into(), v);
        }
        let whole = Segment::from_parameters(&p).map_err(|e| format!("{e}"))?;
        let z: Vec<f64> = whole.masses.iter().flat_map(|m| [m.x0, m.v0]).collect();
        let mut picks = Vec::with_capacity(recorded.len());
        for name in recorded {
            picks.push(pick(chain, name).ok_or_else(|| format!("no reference for `{name}`"))?);
        }
        let (ax, av) = CHAIN_REFERENCE_ATOL;
        let atol = (0..z.len())
            .map(|i| if i % 2 == 0 { ax } else { av })
            .collect();
        let cut = [whole.c, whole.d, whole.c3, whole.d3];
        Ok(ChainReference {
            ws: Workspace::new(z.len()),
            out: alloc::vec![0.0; picks.len()],
            whole,
            z,
            t: t0,
            bdf: Bdf {
                rtol: CHAIN_REFERENCE_RTOL,
                atol,
            },
            picks,
            cut,
        })
    }

    /// The whole chain's states `x1, v1, …` at the time reached.
    pub fn states(&self) -> &[f64] {
        &self.z
    }

    /// The chain's mechanical energy (kinetic, springs and walls; contacts and impulses
    /// excluded) at the states `z`.
    pub fn energy(&self, z: &[f64]) -> f64 {
        let s = &self.whole;
        let potential = |dx: f64| 0.5 * s.c * dx * dx + 0.25 * s.c3 * dx * dx * dx * dx;
        let n = z.len() / 2;
        let mut e = potential(z[0]) + potential(z[2 * n - 2]);
        for j in 0..n {
            e += 0.5 * s.m * z[2 * j + 1] * z[2 * j + 1];
            if j > 0 {
                e += potential(z[2 * j] - z[2 * j - 2]);
            }
        }
        e
    }
}

/// Where `module.output` of the expanded chain is in the whole chain.
fn pick(chain: &ChainSpec, name: &str) -> Option<Pick> {
    let (module, output) = name.split_once('.')?;
    let number: u64 = module.get(1..)?.parse().ok()?;
    if module.starts_with('c') && output == "lambda" {
        let (first, n) = chain.segment(number - 1);
        return Some(Pick::Cut((first + n - 2) as usize));
    }
    let (first, n) = chain.segment(number.checked_sub(1)?);
    let mass = match output {
        "x_first" | "v_first" => first,
        "x_last" | "v_last" => first + n - 1,
        "x_watch" | "v_watch" => chain
            .watched()
            .into_iter()
            .find(|&m| chain.segment_of(m) == number - 1)?,
        _ => return None,
    };
    let state = 2 * (mass - 1) as usize + usize::from(output.starts_with('v'));
    Some(Pick::State(state))
}

impl CustomReference for ChainReference {
    fn advance_to(&mut self, t: f64) -> Result<&[f64], ReferenceError> {
        if t < self.t {
            return Err(ReferenceError::TimeBackwards { t, reached: self.t });
        }
        if t > self.t {
            self.bdf
                .integrate(
                    &mut Whole(&self.whole),
                    self.t,
                    t,
                    &mut self.z,
                    &mut self.ws,
                )
                .map_err(ReferenceError::Integration)?;
            self.t = t;
        }
        for (o, p) in self.out.iter_mut().zip(&self.picks) {
            *o = match *p {
                Pick::State(i) => self.z[i],
                Pick::Cut(l) => spring_damper(
                    self.cut,
                    self.z[2 * l + 2] - self.z[2 * l],
                    self.z[2 * l + 3] - self.z[2 * l + 1],
                ),
            };
        }
        Ok(&self.out)
    }

    fn method(&self) -> String {
        format!(
            "whole chain, bdf on the banded Jacobian, rtol {:e} atol {:e} m, {:e} m/s",
            CHAIN_REFERENCE_RTOL, CHAIN_REFERENCE_ATOL.0, CHAIN_REFERENCE_ATOL.1
        )
    }
}

/// The reference of a chain scenario `v` (recorded outputs = its `plot`, in stacked
/// order), or the reason there is none.
pub(super) fn for_chain(
    chain: &ChainSpec,
    v: &ValidatedScenario,
) -> (
    Option<Reference>,
    Option<Vec<(f64, Vec<f64>)>>,
    Option<String>,
) {
    // The recorded signals are the plot's outputs in stacked order.
    let recorded: Vec<String> = v
        .output_names
        .iter()
        .filter(|n| v.scenario.plot.contains(n))
        .cloned()
        .collect();
    match ChainReference::new(chain, &recorded, v.grid.t_start) {
        Ok(r) => (Some(Reference::Custom(Box::new(r))), None, None),
        Err(why) => (None, None, Some(why)),
    }
}
