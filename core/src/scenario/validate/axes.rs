//! Checks of `analysis.x` and `analysis.y`: each axis names a parameter a sweep can set
//! (a module's parameter, `master.macro_step` or `master.correction.alpha`).

use super::super::schema::Scenario;
use crate::analysis::sweep::{AxisSpec, Parameter};
use crate::error::{name_list, ScenarioError};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

impl Scenario {
    /// `settable[i]`: the parameters module `i` lets a scenario set (`None`: not known
    /// before the module is loaded, e.g. a binary module; any name passes here).
    pub(super) fn check_axes(&self, settable: &[Option<Vec<String>>]) -> Result<(), ScenarioError> {
        let Some(a) = &self.analysis else {
            return Ok(());
        };
        let names: Vec<String> = self.modules.iter().map(|m| m.name.clone()).collect();
        for (axis, spec) in [("x", &a.x), ("y", &a.y)] {
            let Some(AxisSpec { parameter, .. }) = spec else {
                continue;
            };
            let path = format!("analysis.{axis}.parameter");
            match Parameter::parse(parameter, &names).map_err(|m| ScenarioError::at(&path, m))? {
                Parameter::Module { module, name } => {
                    let Some(Some(known)) = settable.get(module) else {
                        continue;
                    };
                    if !known.contains(&name) {
                        return Err(ScenarioError::at(
                            path,
                            format!(
                                "module `{}` has no parameter `{name}`; its parameters are {}",
                                names[module],
                                name_list(known.iter(), 20)
                            ),
                        ));
                    }
                }
                Parameter::Alpha if self.master.correction.is_none() => {
                    return Err(ScenarioError::at(
                        path,
                        "`master.correction.alpha` needs master.correction",
                    ));
                }
                _ => {}
            }
        }
        Ok(())
    }
}
