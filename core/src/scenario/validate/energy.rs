//! Checks of `bonds`, `master.module_steps` and `master.energy_correction` (docs/methods.md
//! §13), each error at its JSON path, and the [`EnergyPlan`] a run follows.

use super::super::schema::{Algorithm, Scenario};
use crate::coupling::CouplingGraph;
use crate::error::ScenarioError;
use crate::master::energy::mu::{mu_rule, step_ratio, whole_ratio, Hold};
use crate::master::energy::{Bond, Cap, CorrectionSettings, EnergyPlan};
use crate::module::ModuleDescription;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// The physical domain of an effort or flow unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Domain {
    Translational,
    Rotational,
    Hydraulic,
}

/// `(domain, is_effort)` of a unit, spelled as the models spell it (`N*m`, `m3/s`).
fn classify(unit: &str) -> Option<(Domain, bool)> {
    let u: String = unit
        .chars()
        .filter(|c| !c.is_whitespace())
        .map(|c| if c == '.' || c == '·' { '*' } else { c })
        .collect();
    Some(match u.as_str() {
        "N" => (Domain::Translational, true),
        "N*m" | "m*N" | "Nm" => (Domain::Rotational, true),
        "Pa" => (Domain::Hydraulic, true),
        "m/s" => (Domain::Translational, false),
        "rad/s" => (Domain::Rotational, false),
        "m3/s" | "m^3/s" => (Domain::Hydraulic, false),
        _ => return None,
    })
}

const PAIRS: &str =
    "a bond pairs an effort with its flow: N with m/s, N*m with rad/s, Pa with m3/s";

impl Scenario {
    /// Validates the energy settings; `None` when the scenario has none of them.
    pub(super) fn energy_plan(
        &self,
        descriptions: &[(String, ModuleDescription)],
        graph: &CouplingGraph,
    ) -> Result<Option<EnergyPlan>, ScenarioError> {
        let m = &self.master;
        if self.bonds.is_empty() && m.module_steps.is_empty() && m.energy_correction.is_none() {
            return Ok(None);
        }
        let substeps = self.substeps(graph)?;
        let step =
            |module: usize| m.macro_step / f64::from(substeps.get(module).copied().unwrap_or(1));
        let mut bonds: Vec<Bond> = Vec::with_capacity(self.bonds.len());
        let mut feedthrough = Vec::with_capacity(self.bonds.len());
        for (b, spec) in self.bonds.iter().enumerate() {
            let path = format!("bonds[{b}]");
            let connected = |field: &str, name: &str| {
                let i = graph.input_index(name).ok_or_else(|| {
                    ScenarioError::at(
                        format!("{path}.{field}"),
                        format!("`{name}` is not an input; a bond names the inputs its two connections feed"),
                    )
                })?;
                let o = graph.source_of_input(i);
                let unit = graph.output_units()[o].clone();
                Ok::<_, ScenarioError>((i, o, unit))
            };
            let (ei, eo, eu) = connected("effort", &spec.effort)?;
            let (fi, fo, fu) = connected("flow", &spec.flow)?;
            let side = |field: &str, name: &str, unit: &str, effort: bool| {
                let what = if effort { "an effort" } else { "a flow" };
                match classify(unit) {
                    Some((d, e)) if e == effort => Ok(d),
                    Some((_, e)) => Err(ScenarioError::at(
                        format!("{path}.{field}"),
                        format!(
                            "`{name}` carries {} ({unit}), not {what}; {PAIRS}",
                            if e { "an effort" } else { "a flow" }
                        ),
                    )),
                    None => Err(ScenarioError::at(
                        format!("{path}.{field}"),
                        format!(
                            "`{name}` has unit `{unit}`, neither an effort nor a flow; {PAIRS}"
                        ),
                    )),
                }
            };
            let de = side("effort", &spec.effort, &eu, true)?;
            let df = side("flow", &spec.flow, &fu, false)?;
            if de != df {
                return Err(ScenarioError::at(
                    format!("{path}.flow"),
                    format!("units do not match: effort in {eu} with flow in {fu}; {PAIRS}"),
                ));
            }
            let (sender, receiver) = (graph.output_module(eo), graph.input_module(ei));
            if graph.output_module(fo) != receiver || graph.input_module(fi) != sender {
                return Err(ScenarioError::at(
                    path,
                    "the flow must come back from the module that receives the effort to the module that sends it",
                ));
            }
            if bonds.iter().any(|x| x.effort_input == ei) {
                return Err(ScenarioError::at(
                    format!("{path}.effort"),
                    format!("`{}` is already in another bond", spec.effort),
                ));
            }
            let desc = &descriptions[sender].1;
            let vr = graph.output_value_refs(sender)[eo - graph.output_range(sender).start];
            feedthrough.push(
                desc.output_dependencies
                    .iter()
                    .any(|d| d.output == vr && !d.inputs.is_empty()),
            );
            bonds.push(Bond {
                name: spec.effort.clone(),
                effort_output: eo,
                effort_input: ei,
                flow_output: fo,
                mu: 0.0,
            });
        }
        let correction = match &m.energy_correction {
            None => None,
            Some(c) => {
                const P: &str = "master.energy_correction";
                if bonds.is_empty() {
                    return Err(ScenarioError::at(
                        P,
                        "the correction acts on power bonds: add `bonds`",
                    ));
                }
                let plain = m.algorithm == Algorithm::Jacobi
                    && m.correction.is_none()
                    && m.defects.is_none()
                    && m.step_control.is_none();
                if !plain {
                    return Err(ScenarioError::at(
                        P,
                        "the energy correction runs with plain Jacobi on a fixed grid (no model-based \
                         correction, defects or step control)",
                    ));
                }
                let unit = |path: &str, v: f64| {
                    if v.is_finite() && (0.0..=1.0).contains(&v) {
                        Ok(v)
                    } else {
                        Err(ScenarioError::at(
                            path,
                            format!("expected a number from 0 to 1, got {v}"),
                        ))
                    }
                };
                let positive = |path: &str, v: Option<f64>| match v {
                    Some(v) if !(v.is_finite() && v > 0.0) => Err(ScenarioError::at(
                        path,
                        format!("expected a positive number, got {v}"),
                    )),
                    v => Ok(v),
                };
                let nu = unit(&format!("{P}.nu"), c.nu)?;
                let cap = match &c.cap {
                    None => Cap {
                        fraction: Some(1.0),
                        absolute: None,
                    },
                    Some(cap) => {
                        let fraction = positive(&format!("{P}.cap.fraction"), cap.fraction)?;
                        let absolute = positive(&format!("{P}.cap.absolute"), cap.absolute)?;
                        if fraction.is_none() && absolute.is_none() {
                            return Err(ScenarioError::at(
                                format!("{P}.cap"),
                                "give `fraction` (of the uncorrected effort), `absolute`, or both",
                            ));
                        }
                        Cap { fraction, absolute }
                    }
                };
                let hold = Hold::of_order(m.extrapolation_order);
                for (b, bond) in bonds.iter_mut().enumerate() {
                    let (sender, receiver) = (
                        graph.output_module(bond.effort_output),
                        graph.input_module(bond.effort_input),
                    );
                    bond.mu = match c.mu {
                        Some(mu) => unit(&format!("{P}.mu"), mu)?,
                        None => {
                            let ratio = step_ratio(step(sender), step(receiver)).ok_or_else(|| {
                                ScenarioError::at(
                                    "master.module_steps",
                                    format!("bonds[{b}]: the steps of its two modules are not in a whole ratio R or 1/R"),
                                )
                            })?;
                            mu_rule(feedthrough[b], ratio, hold).ok_or_else(|| {
                                ScenarioError::at(
                                    format!("{P}.mu"),
                                    format!(
                                        "bonds[{b}]: multi-rate (R = {ratio}) without direct feedthrough: \
                                         the seed's rules give no μ; set `mu` (0 to 1)"
                                    ),
                                )
                            })?
                        }
                    };
                }
                Some(CorrectionSettings { nu, cap })
            }
        };
        let energy_outputs = descriptions
            .iter()
            .filter(|(_, d)| d.capabilities.x_reports_energy)
            .filter_map(|(name, _)| graph.output_index(&format!("{name}.E")))
            .collect();
        let substeps = if m.module_steps.is_empty() {
            Vec::new()
        } else {
            substeps
        };
        Ok(Some(EnergyPlan {
            bonds,
            energy_outputs,
            substeps,
            correction,
        }))
    }

    /// Steps per macro-step of every module from `master.module_steps`.
    fn substeps(&self, graph: &CouplingGraph) -> Result<Vec<u32>, ScenarioError> {
        let m = &self.master;
        let mut n = alloc::vec![1u32; graph.n_modules()];
        if m.module_steps.is_empty() {
            return Ok(n);
        }
        const P: &str = "master.module_steps";
        let plain = m.algorithm == Algorithm::Jacobi
            && m.correction.is_none()
            && m.defects.is_none()
            && m.step_control.is_none();
        if !plain {
            return Err(ScenarioError::at(
                P,
                "multi-rate steps run with plain Jacobi on a fixed grid (no model-based correction, \
                 defects or step control)",
            ));
        }
        if m.extrapolation_order > 2 {
            return Err(ScenarioError::at(
                "master.extrapolation_order",
                "multi-rate Jacobi extrapolates with order 0 (ZOH), 1 (FOH) or 2 (SOH)",
            ));
        }
        for (name, &h) in &m.module_steps {
            let path = format!("{P}.{name}");
            let k = graph
                .module_index(name)
                .ok_or_else(|| ScenarioError::at(&path, format!("no module `{name}`")))?;
            if !(h.is_finite() && h > 0.0 && h <= m.macro_step * (1.0 + 1e-12)) {
                return Err(ScenarioError::at(
                    path,
                    format!(
                        "expected a positive step up to macro_step ({} s; the macro-step is the \
                         slowest module's), got {h}",
                        m.macro_step
                    ),
                ));
            }
            n[k] = whole_ratio(m.macro_step, h).ok_or_else(|| {
                ScenarioError::at(
                    &path,
                    format!(
                        "{h} s is not a whole fraction of macro_step {} s (ratio {}): steps must be \
                         in a ratio R or 1/R with R a whole number",
                        m.macro_step,
                        m.macro_step / h
                    ),
                )
            })?;
        }
        Ok(n)
    }
}
