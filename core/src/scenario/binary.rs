//! Binary modules in a scenario: model `"Binary"`, whose `source` is where the `.fmu`
//! comes from. Before validation the front end replaces a path or URL by the archive
//! itself, as a `data:` URL (RFC 2397, base64): the CLI reads the file relative to the
//! scenario, the page fetches it after the person confirms. Core never does I/O, so a
//! validated scenario always carries the bytes it runs.
//!
//! ```json
//! { "name": "mass1", "model": "Binary", "source": "fmus/rust_oscillator.fmu",
//!   "parameters": { "c1": 1e6 } }
//! ```

use super::schema::Scenario;
#[cfg(feature = "binary-modules")]
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// The `model` of a binary module.
pub const BINARY_MODEL: &str = "Binary";

/// True if `source` already carries the archive (a `data:` URL).
pub fn is_embedded(source: &str) -> bool {
    source.starts_with("data:")
}

/// The archive as a `data:` URL for `source`.
#[cfg(feature = "binary-modules")]
pub fn data_url(bytes: &[u8]) -> String {
    use base64::Engine as _;
    format!(
        "data:application/zip;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(bytes)
    )
}

/// The archive bytes of an embedded `source`; for a path or URL, a message saying that the
/// front end must load it first.
#[cfg(feature = "binary-modules")]
pub fn fmu_bytes(source: &str) -> Result<Vec<u8>, String> {
    let Some(rest) = source.strip_prefix("data:") else {
        return Err(format!(
            "`{source}` has not been loaded: the CLI reads it relative to the scenario file, the page \
             fetches it after you confirm (or embed the .fmu as a data: URL)"
        ));
    };
    let Some((meta, data)) = rest.split_once(',') else {
        return Err("a data: URL needs a comma before the data".into());
    };
    if !meta.ends_with(";base64") {
        return Err("the .fmu data: URL must be base64 (data:application/zip;base64,...)".into());
    }
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD
        .decode(data.trim())
        .map_err(|e| format!("the .fmu data: URL is not valid base64: {e}"))
}

impl Scenario {
    /// The distinct sources of binary modules that still name a file or URL, in module
    /// order: what a front end must load and hand to [`Scenario::embed_fmu`].
    pub fn binary_urls(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for m in self.modules.iter().filter(|m| m.model == BINARY_MODEL) {
            if let Some(src) = m.source.as_deref().filter(|s| !is_embedded(s)) {
                if !out.iter().any(|u| u == src) {
                    out.push(src.into());
                }
            }
        }
        out
    }

    /// Replaces every binary-module source equal to `url` by the archive `bytes`.
    #[cfg(feature = "binary-modules")]
    pub fn embed_fmu(&mut self, url: &str, bytes: &[u8]) {
        let embedded = data_url(bytes);
        for m in self.modules.iter_mut().filter(|m| m.model == BINARY_MODEL) {
            if m.source.as_deref() == Some(url) {
                m.source = Some(embedded.clone());
            }
        }
    }
}

#[cfg(feature = "binary-modules")]
mod load {
    use super::super::schema::ModuleSpec;
    use crate::error::ScenarioError;
    use crate::fmu::{BinaryModule, FmuError, RuntimeLimits};
    use crate::module::{InstantiateOptions, Module};
    use alloc::format;
    use alloc::string::ToString;

    /// The module of a `Binary` spec, loaded from its embedded archive; on failure the
    /// field to fix (`source` or `parameters`) and the message.
    pub(crate) fn load(spec: &ModuleSpec) -> Result<BinaryModule, (&'static str, String)> {
        let source = spec.source.as_deref().ok_or((
            "source",
            alloc::string::String::from(
                "a Binary module needs `source`: the .fmu path or URL (or a data: URL)",
            ),
        ))?;
        let bytes = super::fmu_bytes(source).map_err(|m| ("source", m))?;
        let mut values: alloc::collections::BTreeMap<String, serde_json::Value> = spec
            .parameters
            .iter()
            .map(|(k, &v)| (k.clone(), serde_json::Value::from(v)))
            .collect();
        values.extend(spec.typed_parameters.clone());
        BinaryModule::from_fmu_values(&bytes, &values, RuntimeLimits::default()).map_err(
            |e| match e {
                FmuError::Parameter(_) => ("parameters", e.to_string()),
                _ => ("source", e.to_string()),
            },
        )
    }

    use alloc::string::String;

    /// The description of a `Binary` spec, with errors at `modules[i].source` or
    /// `modules[i].parameters.<name>`. The module is also instantiated (and its
    /// parameters set), so an FMU that refuses to start (a wrong instantiationToken, a
    /// resource it lacks) fails validation, not the run.
    pub fn describe(
        spec: &ModuleSpec,
        path: &str,
    ) -> Result<crate::module::ModuleDescription, ScenarioError> {
        let named = |msg: String| format!("module `{}`: {msg}", spec.name);
        match load(spec) {
            Ok(mut m) => {
                let caps = &m.description().capabilities;
                let options = InstantiateOptions {
                    event_mode_used: caps.has_event_mode,
                    early_return_allowed: caps.might_return_early_from_do_step,
                };
                m.instantiate(options).map_err(|e| {
                    ScenarioError::at(format!("{path}.source"), named(e.to_string()))
                })?;
                Ok(m.description().clone())
            }
            Err(("parameters", msg)) => {
                let field = spec
                    .parameters
                    .keys()
                    .chain(spec.typed_parameters.keys())
                    .find(|k| msg.contains(&format!("`{k}`")))
                    .map(|k| format!("{path}.parameters.{k}"))
                    .unwrap_or_else(|| format!("{path}.parameters"));
                Err(ScenarioError::at(field, named(msg)))
            }
            Err((_, msg)) => Err(ScenarioError::at(format!("{path}.source"), named(msg))),
        }
    }
}

/// Why a connection cannot name `variable` of binary module `spec` when it is a String
/// or Binary variable (those are recorded, not ports); `None` otherwise.
#[cfg(feature = "binary-modules")]
pub fn not_connectable(spec: &super::schema::ModuleSpec, variable: &str) -> Option<String> {
    use crate::fmu::{archive::Archive, model_description, VariableType};
    if spec.model != BINARY_MODEL {
        return None;
    }
    let bytes = fmu_bytes(spec.source.as_deref()?).ok()?;
    let xml = Archive::parse(&bytes)
        .ok()?
        .read("modelDescription.xml")
        .ok()??;
    let md = model_description::parse(core::str::from_utf8(&xml).ok()?).ok()?;
    let base = variable.split('[').next().unwrap_or(variable);
    let v = md.all_variables.iter().find(|v| v.name == base)?;
    let ty = match v.ty {
        VariableType::String => "String",
        VariableType::Binary => "Binary",
        _ => return None,
    };
    Some(format!(
        "`{}.{variable}` is a {ty} {}: String and Binary variables are recorded in the CSV and \
         shown in the page, but only numbers and clocks can be connected",
        spec.name, v.causality
    ))
}

/// The parameters binary module `spec` declares, with their types and shapes (the page's
/// editor draws a field for each); `None` if its archive is not loaded or unreadable.
#[cfg(feature = "binary-modules")]
pub fn declared_parameters(
    spec: &super::schema::ModuleSpec,
) -> Option<Vec<crate::fmu::parameter_list::ParameterInfo>> {
    use crate::fmu::archive::Archive;
    if spec.model != BINARY_MODEL {
        return None;
    }
    let bytes = fmu_bytes(spec.source.as_deref()?).ok()?;
    let xml = Archive::parse(&bytes)
        .ok()?
        .read("modelDescription.xml")
        .ok()??;
    crate::fmu::parameter_list::parameter_list(core::str::from_utf8(&xml).ok()?).ok()
}

#[cfg(feature = "binary-modules")]
pub use load::describe;
#[cfg(feature = "binary-modules")]
pub(crate) use load::load;

/// With a fixed step (no `step_control`), every periodic input clock of a binary module
/// must tick on the module's grid: the master ticks them at communication points
/// (`fmu/clocks.rs`). Refused at the step to change, naming the module and the clock.
#[cfg(feature = "binary-modules")]
impl Scenario {
    pub(super) fn check_periodic_clocks(&self) -> Result<(), crate::error::ScenarioError> {
        use crate::fmu::{archive::Archive, model_description, variable_types::ClockKind};
        if self.master.step_control.is_some() {
            return Ok(());
        }
        for spec in self.modules.iter().filter(|m| m.model == BINARY_MODEL) {
            let Some(bytes) = spec.source.as_deref().and_then(|s| fmu_bytes(s).ok()) else {
                continue;
            };
            let Some(xml) = Archive::parse(&bytes)
                .ok()
                .and_then(|a| a.read("modelDescription.xml").ok().flatten())
            else {
                continue;
            };
            let Ok(md) = model_description::parse(&String::from_utf8_lossy(&xml)) else {
                continue;
            };
            let (path, h) = match self.master.module_steps.get(&spec.name) {
                Some(&h) => (format!("master.module_steps.{}", spec.name), h),
                None => ("master.macro_step".into(), self.master.macro_step),
            };
            for v in md.all_variables.iter().filter(|v| v.causality == "input") {
                let Ok(ClockKind::Periodic { interval, shift }) = v.input_clock_kind() else {
                    continue;
                };
                let off = |x: f64| libm::fabs(x - libm::round(x / h) * h) > 1e-9 * interval;
                if off(interval) || off(shift) {
                    return Err(crate::error::ScenarioError::at(
                        path,
                        format!(
                            "module `{}`: periodic input clock `{}` ticks every {interval} s from \
                             {shift} s after the start, between the communication points of the \
                             {h} s step: the master ticks periodic clocks at communication points, \
                             so the step must divide the clock's interval and shift",
                            spec.name, v.name
                        ),
                    ));
                }
            }
        }
        Ok(())
    }
}
