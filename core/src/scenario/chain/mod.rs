//! The `chain` generator (docs/methods.md §16.1): a scenario that names a mass chain of
//! seed 002, Example 2 by its size, split and parameters instead of listing thousands of
//! modules. [`ChainSpec::check`] refuses bad or oversized chains before anything is
//! allocated; [`ChainSpec::expand`] writes the `MassChain.Segment`s, `MassChain.Cut`s and
//! their connections (each segment on the banded Jacobian and the per-mass draw).
//!
//! Split of `n_K` masses into `r` segments: `q = n_K / r`, the first `n_K mod r` segments
//! take `q + 1` masses (10^4 in 191: 68 of 53 and 123 of 52; seed 002 does not say).

use super::schema::{ConnectionSpec, ModuleSpec};
use crate::error::ScenarioError;
use crate::models::mass_chain::{CUT_ID, SEGMENT_ID};
use crate::solvers::SolverSpec;
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

#[cfg(test)]
mod tests;

/// Largest chain a scenario may name (seed 002's Example 4 goes to 10^6 masses).
pub const MAX_CHAIN_MASSES: u64 = 1_000_000;
/// Largest segment: its states are `2·n`; beyond this the segments are too few to split.
pub const MAX_SEGMENT_MASSES: u64 = 1000;
/// Largest chain the page runs; bigger ones run natively with the CLI.
pub const PAGE_CHAIN_MASSES: u64 = 10_000;
/// Cut forces recorded by default at most (every `⌈(r−1)/256⌉`-th beyond).
pub const DEFAULT_RECORDED_CUTS: u64 = 256;
/// Segment parameters a chain may set (the others the generator fixes).
pub const CHAIN_PARAMETERS: [&str; 16] = [
    "impulse_share",
    "contact_share",
    "dF_min",
    "dF_max",
    "x0_max",
    "v0_max",
    "m",
    "c",
    "d",
    "C",
    "D",
    "t_period",
    "t_width",
    "t_rise",
    "A",
    "B",
];

/// A mass chain by its size (seed 002, Example 2).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChainSpec {
    /// Masses `n_K`, 2 to [`MAX_CHAIN_MASSES`].
    pub masses: u64,
    /// Subsystems `r` (segments), 1 to `n_K`, each at most [`MAX_SEGMENT_MASSES`] masses.
    pub subsystems: u64,
    /// Seed of the draw (impulses, contacts, start values).
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Segment parameters by name ([`CHAIN_PARAMETERS`]); `c`, `d`, `C`, `D` also set the
    /// cut elements, so the split chain is the whole one.
    #[serde(default)]
    pub parameters: BTreeMap<String, f64>,
    /// Masses (1-based) whose `x`, `v` are recorded; default: mass `round(0.6891·n_K)`
    /// (seed 002 plots mass 6,891 of 10^4). At most one per segment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub watch: Option<Vec<u64>>,
    /// Cut elements (1 to `r − 1`) whose force and coupling bodies' `x`, `v` are
    /// recorded; default: all, or every `⌈(r−1)/256⌉`-th when there are more than 256.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cuts: Option<Vec<u64>>,
    /// The segments' integrator (default: BDF at seed 002's tolerances).
    #[serde(default)]
    pub solver: SolverSpec,
}

fn default_seed() -> u64 {
    1
}

fn at(field: &str, msg: String) -> ScenarioError {
    ScenarioError::at(format!("chain.{field}"), msg)
}

impl ChainSpec {
    /// Checks sizes, split and names; nothing proportional to the chain is allocated.
    pub fn check(&self) -> Result<(), ScenarioError> {
        let (n, r) = (self.masses, self.subsystems);
        if n < 2 {
            return Err(at(
                "masses",
                format!("a chain needs at least 2 masses, got {n}"),
            ));
        }
        if n > MAX_CHAIN_MASSES {
            return Err(at(
                "masses",
                format!("{n} masses is more than the limit of {MAX_CHAIN_MASSES}"),
            ));
        }
        if r < 1 {
            return Err(at(
                "subsystems",
                "expected at least 1 subsystem, got 0".into(),
            ));
        }
        if r > n {
            return Err(at(
                "subsystems",
                format!("{r} subsystems for {n} masses: at most one subsystem per mass"),
            ));
        }
        let largest = n.div_ceil(r);
        if largest > MAX_SEGMENT_MASSES {
            return Err(at(
                "subsystems",
                format!(
                    "{n} masses in {r} subsystems gives segments of {largest} masses; at most \
                     {MAX_SEGMENT_MASSES} per segment, so use at least {} subsystems",
                    n.div_ceil(MAX_SEGMENT_MASSES)
                ),
            ));
        }
        for (name, value) in &self.parameters {
            if !CHAIN_PARAMETERS.contains(&name.as_str()) {
                return Err(at(
                    &format!("parameters.{name}"),
                    format!(
                        "a chain has no parameter `{name}`; it takes {}",
                        CHAIN_PARAMETERS.join(", ")
                    ),
                ));
            }
            if !value.is_finite() {
                return Err(at(
                    &format!("parameters.{name}"),
                    format!("expected a finite number, got {value}"),
                ));
            }
        }
        if let Some(watch) = &self.watch {
            let mut segments = BTreeMap::new();
            for (i, &mass) in watch.iter().enumerate() {
                if !(1..=n).contains(&mass) {
                    return Err(at(
                        &format!("watch[{i}]"),
                        format!("expected a mass from 1 to {n}, got {mass}"),
                    ));
                }
                if let Some(other) = segments.insert(self.segment_of(mass), mass) {
                    return Err(at(
                        &format!("watch[{i}]"),
                        format!("masses {other} and {mass} are in the same segment; watch one per segment"),
                    ));
                }
            }
        }
        for (i, &cut) in self.cuts.iter().flatten().enumerate() {
            if !(1..r).contains(&cut) {
                return Err(at(
                    &format!("cuts[{i}]"),
                    format!("expected a cut from 1 to {}, got {cut}", r - 1),
                ));
            }
        }
        Ok(())
    }

    /// Refuses chains above [`PAGE_CHAIN_MASSES`] for the page, naming the CLI command.
    pub fn check_for_page(&self) -> Result<(), ScenarioError> {
        if self.masses > PAGE_CHAIN_MASSES {
            return Err(at(
                "masses",
                format!(
                    "{} masses is more than the page runs ({PAGE_CHAIN_MASSES}); run it natively \
                     with `cosim run chain.json --threads N --out result.csv`",
                    self.masses
                ),
            ));
        }
        Ok(())
    }

    /// `(first mass, masses)` of segment `s` (0-based).
    pub fn segment(&self, s: u64) -> (u64, u64) {
        let (q, rem) = (self.masses / self.subsystems, self.masses % self.subsystems);
        let first = s * q + s.min(rem) + 1;
        (first, q + u64::from(s < rem))
    }

    /// The segment (0-based) holding `mass` (1-based).
    pub fn segment_of(&self, mass: u64) -> u64 {
        let (q, rem) = (self.masses / self.subsystems, self.masses % self.subsystems);
        let i = mass - 1;
        let long = rem * (q + 1);
        if i < long {
            i / (q + 1)
        } else {
            rem + (i - long) / q
        }
    }

    /// The watched masses: as given, or the default.
    pub fn watched(&self) -> Vec<u64> {
        match &self.watch {
            Some(w) => w.clone(),
            None => {
                let m = libm::round(0.6891 * self.masses as f64) as u64;
                alloc::vec![m.clamp(1, self.masses)]
            }
        }
    }

    /// The recorded cut forces: as given, or the default.
    pub fn recorded_cuts(&self) -> Vec<u64> {
        match &self.cuts {
            Some(c) => c.clone(),
            None => {
                let cuts = self.subsystems - 1;
                let every = cuts.div_ceil(DEFAULT_RECORDED_CUTS).max(1);
                (1..=cuts).filter(|c| c % every == 0).collect()
            }
        }
    }

    /// Modules, connections and the recorded outputs (`plot`) of the chain; call
    /// [`ChainSpec::check`] first.
    pub fn expand(&self) -> (Vec<ModuleSpec>, Vec<ConnectionSpec>, Vec<String>) {
        let r = self.subsystems;
        let watched = self.watched();
        let mut watch_of = BTreeMap::new();
        for &m in &watched {
            watch_of.insert(self.segment_of(m), m);
        }
        let mut modules = Vec::with_capacity((2 * r - 1) as usize);
        for s in 0..r {
            let (first, n) = self.segment(s);
            let mut p = self.parameters.clone();
            for (name, value) in [
                ("n", n as f64),
                ("first", first as f64),
                ("total", self.masses as f64),
                ("seed", self.seed as f64),
                ("draw", 1.0),
                ("banded", 1.0),
            ] {
                p.insert(name.into(), value);
            }
            if let Some(&m) = watch_of.get(&s) {
                p.insert("watch".into(), m as f64);
            }
            modules.push(ModuleSpec {
                name: format!("s{}", s + 1),
                model: SEGMENT_ID.into(),
                parameters: p,
                typed_parameters: Default::default(),
                solver: self.solver.clone(),
                source: None,
            });
        }
        let cut_parameters: BTreeMap<String, f64> =
            [("c", "cc"), ("d", "dc"), ("C", "Cc"), ("D", "Dc")]
                .iter()
                .filter_map(|(chain, cut)| self.parameters.get(*chain).map(|v| ((*cut).into(), *v)))
                .collect();
        let mut connections = Vec::with_capacity(6 * (r as usize - 1));
        let link = |from: String, to: String| ConnectionSpec { from, to };
        for c in 1..r {
            let (left, right, cut) = (format!("s{c}"), format!("s{}", c + 1), format!("c{c}"));
            modules.push(ModuleSpec {
                name: cut.clone(),
                model: CUT_ID.into(),
                parameters: cut_parameters.clone(),
                typed_parameters: Default::default(),
                solver: SolverSpec::default(),
                source: None,
            });
            for (from, to) in [
                (format!("{left}.x_last"), format!("{cut}.x_left")),
                (format!("{left}.v_last"), format!("{cut}.v_left")),
                (format!("{right}.x_first"), format!("{cut}.x_right")),
                (format!("{right}.v_first"), format!("{cut}.v_right")),
                (format!("{cut}.lambda"), format!("{left}.lambda_right")),
                (format!("{cut}.lambda"), format!("{right}.lambda_left")),
            ] {
                connections.push(link(from, to));
            }
        }
        let mut plot = Vec::new();
        for &m in &watched {
            let s = self.segment_of(m) + 1;
            plot.push(format!("s{s}.x_watch"));
            plot.push(format!("s{s}.v_watch"));
        }
        // Each recorded cut with its coupling bodies' states (the global error of seed 002
        // eqn 36 is taken over these).
        for c in self.recorded_cuts() {
            plot.push(format!("c{c}.lambda"));
            for o in ["x_last", "v_last"] {
                plot.push(format!("s{c}.{o}"));
            }
            for o in ["x_first", "v_first"] {
                plot.push(format!("s{}.{o}", c + 1));
            }
        }
        (modules, connections, plot)
    }
}
