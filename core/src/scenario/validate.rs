//! Turning a parsed [`Scenario`] into a [`ValidatedScenario`]: every check a run would
//! otherwise fail on later, reported with the JSON path of the field to fix.
//!
//! Names are checked and looked up through sets and maps, so a scenario of n modules
//! validates in O(n log n) plus the cost of building each module once (measured up to
//! 10^5 modules in docs/benchmarks.md).

use super::schema::{Algorithm, Scenario, StartUp};
use crate::coupling::CouplingGraph;
use crate::error::{name_list, CouplingError, ScenarioError};
use crate::limits::Limits;
use crate::models::{self, ParameterList};
use crate::module::{ModuleDescription, PortType, Variable};
use crate::time::FixedGrid;
use alloc::collections::BTreeSet;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;

mod axes;
mod budget;
mod defects;
mod energy;
#[cfg(test)]
mod energy_tests;
mod error_control;
mod implicit;
mod stop;
#[cfg(test)]
mod tests;
/// Highest polynomial extrapolation order.
pub const MAX_EXTRAPOLATION_ORDER: u32 = 4;
pub use budget::MAX_PARAMETER_MAGNITUDE;
pub use stop::whole_steps_needed;

/// A scenario that passed every check, with the derived run settings.
#[derive(Clone, Debug)]
pub struct ValidatedScenario {
    /// The scenario as written.
    pub scenario: Scenario,
    /// Macro-step grid of the run.
    pub grid: FixedGrid,
    /// Gauss-Seidel order as module indices (scenario order for Jacobi).
    pub sequence: Vec<usize>,
    /// Every module is linear time-invariant, so the exact monolithic reference exists.
    pub reference_available: bool,
    /// Stacked output names, `module.output`.
    pub output_names: Vec<String>,
    /// The budgets it was checked against; analyses of it check theirs against the same.
    pub limits: Limits,
    /// Bonds, multi-rate steps and energy correction (docs/methods.md §13), if asked for.
    pub energy: Option<crate::master::energy::EnergyPlan>,
}

/// What a scenario is checked for: a run to its stop time, or an analysis of one step's
/// propagation matrix.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Purpose {
    Run,
    Analysis,
}

impl Scenario {
    /// Checks the scenario against the command line's budgets ([`Limits::CLI`]); the
    /// error names the field path.
    pub fn validate(&self) -> Result<ValidatedScenario, ScenarioError> {
        self.validate_within(&Limits::default())
    }

    /// Checks the scenario, refusing runs beyond `limits` before anything is allocated.
    /// A `chain` is checked, then expanded (its modules, connections and recorded outputs
    /// are those of the [`ValidatedScenario`]'s scenario).
    pub fn validate_within(&self, limits: &Limits) -> Result<ValidatedScenario, ScenarioError> {
        self.validate_for(limits, Purpose::Run)
    }

    /// Checks the scenario for a propagation-matrix analysis (stability, maps, convergence):
    /// as [`Self::validate_within`], but an analysis never runs to `run.stop`, so a stop time
    /// that is not a whole number of macro-steps is not refused (docs/methods.md §2.4).
    pub fn validate_for_analysis_within(
        &self,
        limits: &Limits,
    ) -> Result<ValidatedScenario, ScenarioError> {
        self.validate_for(limits, Purpose::Analysis)
    }

    fn validate_for(
        &self,
        limits: &Limits,
        purpose: Purpose,
    ) -> Result<ValidatedScenario, ScenarioError> {
        let Some(chain) = &self.chain else {
            return self.validate_modules(limits, purpose);
        };
        chain.check()?;
        for (field, empty) in [
            ("modules", self.modules.is_empty()),
            ("connections", self.connections.is_empty()),
            ("plot", self.plot.is_empty()),
        ] {
            if !empty {
                return Err(ScenarioError::at(
                    field,
                    "a scenario with `chain` leaves this empty: the chain generator writes it",
                ));
            }
        }
        let mut expanded = self.clone();
        (expanded.modules, expanded.connections, expanded.plot) = chain.expand();
        expanded.validate_modules(limits, purpose)
    }

    fn validate_modules(
        &self,
        limits: &Limits,
        purpose: Purpose,
    ) -> Result<ValidatedScenario, ScenarioError> {
        let (descriptions, settable) = self.module_descriptions()?;
        let graph = self.coupling_graph(&descriptions)?;
        let m = &self.master;
        if !(m.macro_step.is_finite() && m.macro_step > 0.0) {
            return Err(ScenarioError::at(
                "master.macro_step",
                format!(
                    "expected a positive number of seconds, got {}",
                    m.macro_step
                ),
            ));
        }
        if m.extrapolation_order > MAX_EXTRAPOLATION_ORDER {
            return Err(ScenarioError::at(
                "master.extrapolation_order",
                format!(
                    "expected 0 to {MAX_EXTRAPOLATION_ORDER}, got {}",
                    m.extrapolation_order
                ),
            ));
        }
        if let Some(c) = &m.correction {
            if m.algorithm != Algorithm::Jacobi {
                return Err(ScenarioError::at(
                    "master.correction",
                    "the model-based corrector is defined for Jacobi coupling only (seed 000)",
                ));
            }
            if !(c.alpha.is_finite() && (0.0..=2.0).contains(&c.alpha)) {
                return Err(ScenarioError::at(
                    "master.correction.alpha",
                    format!("expected a number from 0 to 2, got {}", c.alpha),
                ));
            }
        }
        self.check_defects(&descriptions, &graph)?;
        self.check_error_control(&descriptions, &graph)?;
        let energy = self.energy_plan(&descriptions, &graph)?;
        let grid = self.grid(purpose)?;
        let sequence = self.sequence(&graph)?;
        self.check_clock_order(&graph, &sequence)?;
        #[cfg(feature = "binary-modules")]
        self.check_periodic_clocks()?;
        let reference_available = descriptions.iter().all(|(_, d)| {
            let c = &d.capabilities;
            c.x_linear_time_invariant && c.x_exposes_states && c.provides_directional_derivatives
        });
        if m.start_up == StartUp::ExactHistory && !reference_available {
            let culprit = descriptions
                .iter()
                .find(|(_, d)| !d.capabilities.x_linear_time_invariant)
                .map(|(n, _)| n.as_str())
                .unwrap_or("?");
            return Err(ScenarioError::at(
                "master.start_up",
                format!(
                    "exact_history needs the exact monolithic solution, which exists only when every \
                     module is linear and solved exactly; module `{culprit}` is not (use ramp_up)"
                ),
            ));
        }
        let output_names = graph.output_names();
        for (i, p) in self.plot.iter().enumerate() {
            if graph.output_index(p).is_none() {
                return Err(ScenarioError::at(
                    format!("plot[{i}]"),
                    format!(
                        "`{p}` is not an output; outputs are {}",
                        name_list(output_names.iter(), 40)
                    ),
                ));
            }
        }
        self.check_axes(&settable)?;
        self.check_budgets(
            limits,
            &descriptions,
            &grid,
            output_names.len(),
            reference_available,
        )?;
        Ok(ValidatedScenario {
            scenario: self.clone(),
            grid,
            sequence,
            reference_available,
            output_names,
            limits: *limits,
            energy,
        })
    }

    /// Each module's description and the parameters it lets a scenario set (`None` for a
    /// binary module, whose description is its own).
    #[allow(clippy::type_complexity)]
    fn module_descriptions(
        &self,
    ) -> Result<(Vec<(String, ModuleDescription)>, Vec<Option<Vec<String>>>), ScenarioError> {
        let mut out: Vec<(String, ModuleDescription)> = Vec::with_capacity(self.modules.len());
        let mut settable_all = Vec::with_capacity(self.modules.len());
        if self.modules.is_empty() {
            return Err(ScenarioError::at(
                "modules",
                "a scenario needs at least one module",
            ));
        }
        let mut names: BTreeSet<&str> = BTreeSet::new();
        for (i, spec) in self.modules.iter().enumerate() {
            let path = format!("modules[{i}]");
            let valid_name = !spec.name.is_empty()
                && spec
                    .name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_');
            if !valid_name {
                return Err(ScenarioError::at(
                    format!("{path}.name"),
                    format!("`{}`: use letters, digits and `_` only", spec.name),
                ));
            }
            if !names.insert(spec.name.as_str()) {
                return Err(ScenarioError::at(
                    format!("{path}.name"),
                    format!("`{}` is used by another module", spec.name),
                ));
            }
            #[cfg(feature = "binary-modules")]
            if spec.model == super::binary::BINARY_MODEL {
                out.push((spec.name.clone(), super::binary::describe(spec, &path)?));
                settable_all.push(None);
                continue;
            }
            let Some(model) = models::find(&spec.model) else {
                let known: Vec<&str> = models::registry().iter().map(|m| m.id).collect();
                return Err(ScenarioError::at(
                    format!("{path}.model"),
                    format!(
                        "unknown model `{}`; built-in models are {}",
                        spec.model,
                        name_list(known.iter(), 40)
                    ),
                ));
            };
            let settable: Vec<String> = match model.parameters {
                ParameterList::FromSource { settable, .. } => {
                    source_names(model.id, settable, spec.source.as_deref(), &path)?
                }
                ParameterList::Fixed(list) => {
                    if spec.source.is_some() {
                        return Err(ScenarioError::at(
                            format!("{path}.source"),
                            format!("only model {} takes a source", source_models()),
                        ));
                    }
                    list().into_iter().map(|p| p.name).collect()
                }
            };
            if let Some((name, value)) = spec.typed_parameters.iter().next() {
                return Err(ScenarioError::at(
                    format!("{path}.parameters.{name}"),
                    format!(
                        "model `{}` takes numbers as parameters, got {value}",
                        spec.model
                    ),
                ));
            }
            for (name, value) in &spec.parameters {
                if !settable.contains(name) {
                    return Err(ScenarioError::at(
                        format!("{path}.parameters.{name}"),
                        format!("model `{}` has no parameter `{name}`", spec.model),
                    ));
                }
                if !value.is_finite() {
                    return Err(ScenarioError::at(
                        format!("{path}.parameters.{name}"),
                        format!("expected a finite number, got {value}"),
                    ));
                }
                budget::check_parameter_value(
                    &format!("{path}.parameters.{name}"),
                    &spec.name,
                    name,
                    *value,
                )?;
            }
            let module = model.build(&spec.model_args()).map_err(|e| {
                let msg = e.to_string();
                let field = spec
                    .parameters
                    .keys()
                    .find(|k| msg.contains(&format!("`{k}`")))
                    .map(|k| format!("{path}.parameters.{k}"))
                    .unwrap_or_else(|| format!("{path}.solver"));
                ScenarioError::at(field, msg)
            })?;
            out.push((spec.name.clone(), module.description().clone()));
            settable_all.push(Some(settable));
        }
        Ok((out, settable_all))
    }

    fn coupling_graph(
        &self,
        descriptions: &[(String, ModuleDescription)],
    ) -> Result<CouplingGraph, ScenarioError> {
        let pairs: Vec<(String, String)> = self
            .connections
            .iter()
            .map(|c| (c.from.clone(), c.to.clone()))
            .collect();
        CouplingGraph::build(descriptions, &pairs).map_err(|e| self.locate(e))
    }

    /// The path of the connection an error is about.
    fn locate(&self, e: CouplingError) -> ScenarioError {
        let find = |port: &str, from_side: bool| {
            self.connections
                .iter()
                .enumerate()
                .rev()
                .find_map(|(i, c)| {
                    let (side, text) = if from_side {
                        ("from", &c.from)
                    } else {
                        ("to", &c.to)
                    };
                    // `port` may be an element (`m.a[2]`) of a whole-array connection `m.a`.
                    (text == port
                        || text.starts_with(&format!("{port}."))
                        || port.starts_with(&format!("{text}[")))
                    .then(|| format!("connections[{i}].{side}"))
                })
        };
        let path = match &e {
            CouplingError::UnknownModule(m) => find(m, true).or_else(|| find(m, false)),
            // `module` alone (no dot) has an empty variable: the port is the module's name.
            CouplingError::UnknownVariable { module, variable } if variable.is_empty() => {
                let exact = |c: &super::schema::ConnectionSpec, side: bool| {
                    (if side { &c.from } else { &c.to }) == module
                };
                let at = |side: bool, name: &str| {
                    self.connections
                        .iter()
                        .rposition(|c| exact(c, side))
                        .map(|i| format!("connections[{i}].{name}"))
                };
                return ScenarioError::at(
                    at(true, "from")
                        .or_else(|| at(false, "to"))
                        .unwrap_or_else(|| "connections".into()),
                    format!("`{module}` names a module but no variable; write `{module}.variable`"),
                );
            }
            CouplingError::UnknownVariable { module, variable } => {
                let p = format!("{module}.{variable}");
                let path = find(&p, true).or_else(|| find(&p, false));
                #[cfg(feature = "binary-modules")]
                if let Some(why) = self
                    .modules
                    .iter()
                    .find(|s| &s.name == module)
                    .and_then(|s| super::binary::not_connectable(s, variable))
                {
                    return ScenarioError::at(path.unwrap_or_else(|| "connections".into()), why);
                }
                path
            }
            CouplingError::NotAnOutput(p) => find(p, true),
            CouplingError::NotAnInput(p) | CouplingError::InputConnectedTwice(p) => find(p, false),
            CouplingError::UnitMismatch { to, .. } | CouplingError::PortMismatch { to, .. } => {
                find(to, false)
            }
            CouplingError::UnconnectedInput(_) | CouplingError::AlgebraicLoop(_) => None,
        };
        ScenarioError::at(path.unwrap_or_else(|| "connections".into()), e.to_string())
    }

    /// Module names are unique here (checked first), so the graph's index finds each.
    /// A Gauss–Seidel receiver that steps after the source of its clock would miss the
    /// tick (the source has stepped on and its clock reads 0 again, docs/modules.md):
    /// refused at the connection rather than run silently without it.
    fn check_clock_order(
        &self,
        graph: &CouplingGraph,
        sequence: &[usize],
    ) -> Result<(), ScenarioError> {
        if self.master.algorithm != Algorithm::GaussSeidel {
            return Ok(());
        }
        let position = |m: usize| sequence.iter().position(|&k| k == m);
        for (i, c) in self.connections.iter().enumerate() {
            let (Some(o), Some(input)) = (graph.output_index(&c.from), graph.input_index(&c.to))
            else {
                continue;
            };
            if graph.output_types().get(o) != Some(&PortType::Clock) {
                continue;
            }
            let (source, receiver) = (graph.output_module(o), graph.input_module(input));
            if position(receiver) > position(source) {
                let names = graph.module_names();
                let (a, b) = (&names[source], &names[receiver]);
                return Err(ScenarioError::at(
                    format!("connections[{i}]"),
                    format!(
                        "the clock `{}` ticks in `{a}`'s step, and Gauss–Seidel steps `{b}` \
                         after `{a}`, so `{b}` would miss the tick; list `{b}` before `{a}` \
                         in master.sequence, or use the jacobi algorithm",
                        c.from
                    ),
                ));
            }
        }
        Ok(())
    }

    fn sequence(&self, graph: &CouplingGraph) -> Result<Vec<usize>, ScenarioError> {
        let n = self.modules.len();
        if self.master.algorithm == Algorithm::Jacobi || self.master.sequence.is_empty() {
            return Ok((0..n).collect());
        }
        let mut order = Vec::with_capacity(n);
        let mut listed = vec![false; n];
        for (i, name) in self.master.sequence.iter().enumerate() {
            let Some(k) = graph.module_index(name) else {
                return Err(ScenarioError::at(
                    format!("master.sequence[{i}]"),
                    format!("no module named `{name}`"),
                ));
            };
            if core::mem::replace(&mut listed[k], true) {
                return Err(ScenarioError::at(
                    format!("master.sequence[{i}]"),
                    format!("`{name}` appears twice"),
                ));
            }
            order.push(k);
        }
        if order.len() != n {
            return Err(ScenarioError::at(
                "master.sequence",
                "must list every module exactly once (or be empty for the scenario order)",
            ));
        }
        Ok(order)
    }
}

/// Parameter and state names a model written in a source lets `parameters` set; errors in
/// the source are reported at `modules[i].source` with their line and column.
fn source_names(
    id: &str,
    settable: fn(&str) -> Result<Vec<Variable>, String>,
    source: Option<&str>,
    path: &str,
) -> Result<Vec<String>, ScenarioError> {
    let at = || format!("{path}.source");
    let source = source.ok_or_else(|| {
        ScenarioError::at(
            at(),
            format!("model `{id}` needs a `source` with its equations"),
        )
    })?;
    let variables = settable(source).map_err(|e| ScenarioError::at(at(), e))?;
    Ok(variables.into_iter().map(|v| v.name).collect())
}

/// The models that take a source, as `` `A` `` or `` `A` or `B` ``.
fn source_models() -> String {
    let names: Vec<String> = models::registry()
        .iter()
        .filter(|m| matches!(m.parameters, ParameterList::FromSource { .. }))
        .map(|m| format!("`{}`", m.id))
        .collect();
    names.join(" or ")
}
