//! [`Parameter`]: what a sweep axis varies, parsed from the scenario's `AxisSpec.parameter`
//! string (`module.param`, `master.macro_step`, `master.correction.alpha`).

use alloc::format;
use alloc::string::{String, ToString};

/// A swept quantity.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Parameter {
    /// A parameter or start value of module `module` (index in scenario order).
    Module {
        /// Module index.
        module: usize,
        /// Parameter or start-value name, e.g. `ck`.
        name: String,
    },
    /// The macro-step ΔT in s.
    MacroStep,
    /// The corrector's α.
    Alpha,
}

impl Parameter {
    /// Parses `text` against the module names (no module is built here).
    pub fn parse(text: &str, modules: &[String]) -> Result<Parameter, String> {
        match text {
            "master.macro_step" => return Ok(Parameter::MacroStep),
            "master.correction.alpha" => return Ok(Parameter::Alpha),
            _ => {}
        }
        let Some((module, name)) = text.split_once('.') else {
            return Err(format!(
                "`{text}`: expected `module.parameter` (e.g. `mass2.ck`), `master.macro_step` or \
                 `master.correction.alpha`"
            ));
        };
        if module == "master" {
            return Err(format!(
                "`{text}`: only master.macro_step and master.correction.alpha can be swept"
            ));
        }
        let index = modules.iter().position(|m| m == module).ok_or_else(|| {
            format!(
                "`{text}`: no module named `{module}` (modules: {})",
                modules.join(", ")
            )
        })?;
        if name.is_empty() {
            return Err(format!("`{text}`: the parameter name is missing"));
        }
        Ok(Parameter::Module {
            module: index,
            name: name.to_string(),
        })
    }

    /// The module this parameter belongs to, if any.
    pub fn module(&self) -> Option<usize> {
        match self {
            Parameter::Module { module, .. } => Some(*module),
            _ => None,
        }
    }
}
