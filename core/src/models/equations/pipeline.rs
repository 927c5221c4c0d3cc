//! The whole front end in one call: source → tokens → statements → checked [`Model`] →
//! [`Program`] and [`Structure`], plus the description a page's editor shows
//! ([`describe_equations`], [`settable_variables`]) and the catalog's example source.

use super::check::check;
use super::compile::{compile, Program};
use super::error::SourceError;
use super::parser::parse;
use super::resolved::{Decl, Model};
use super::structure::{analyse, Structure};
use crate::models::layout::{describe, Layout, PortSpec, Signature};
use crate::module::{Causality, ModuleDescription, Variable};
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

/// Model id of equation modules in scenarios (`modules[].model`) and their `modelName`.
pub const EQUATIONS_ID: &str = "Equations";

/// Longest accepted source in bytes (a scenario file holds the source inline).
pub const MAX_SOURCE_BYTES: usize = 100_000;

/// Mass 1 of seed 000's two-mass oscillator (docs/methods.md §11.1): what the catalog entry
/// instantiates without a source, and the page's starting point.
pub const EXAMPLE_SOURCE: &str = "\
// Mass 1 of the two-mass oscillator (seed 000, Sect. 3.1)
parameter m1 = 10 \"kg\"
parameter c1 = 1e6 \"N/m\"
parameter d1 = 1 \"N*s/m\"
input Fk \"N\"
state x = 0.01 \"m\"
state v = 0 \"m/s\"
der(x) = v
der(v) = (-c1*x - d1*v + Fk)/m1
output s1 \"m\" = x
output v1 \"m/s\" = v
";

/// A source compiled once: what every evaluation then reuses.
#[derive(Clone, Debug)]
pub(crate) struct Compiled {
    pub model: Model,
    pub program: Program,
    pub structure: Structure,
}

/// Parses, checks and compiles `source`.
pub(crate) fn compile_source(source: &str) -> Result<Compiled, SourceError> {
    if source.len() > MAX_SOURCE_BYTES {
        return Err(SourceError::at(
            source,
            MAX_SOURCE_BYTES,
            format!("the source is longer than {MAX_SOURCE_BYTES} bytes"),
        ));
    }
    let stmts = parse(source)?;
    let model = check(source, &stmts)?;
    let program = compile(&model).ok_or_else(|| {
        SourceError::at(
            source,
            0,
            "internal error: the checked model did not compile",
        )
    })?;
    let structure = analyse(&model);
    Ok(Compiled {
        model,
        program,
        structure,
    })
}

/// Ports with the declaration's trailing comment as description (else `what`).
fn ports(decls: &[Decl], what: &str) -> Vec<PortSpec> {
    decls
        .iter()
        .map(|d| {
            let text = if d.comment.is_empty() {
                what
            } else {
                d.comment.as_str()
            };
            PortSpec::new(&d.name, &d.unit, d.start, text)
        })
        .collect()
}

impl Compiled {
    /// Description and value-reference layout, with `params` and `starts` as the current
    /// parameter values and state start values.
    pub fn describe(
        &self,
        params: &[f64],
        starts: &[f64],
    ) -> Result<(ModuleDescription, Layout), SourceError> {
        let m = &self.model;
        let mut parameters = ports(&m.params, "parameter");
        for (p, v) in parameters.iter_mut().zip(params) {
            p.start = *v;
        }
        let mut states = ports(&m.states, "state");
        for (s, v) in states.iter_mut().zip(starts) {
            s.start = *v;
        }
        let sig = Signature {
            model_name: EQUATIONS_ID,
            parameters: &parameters,
            states: &states,
            inputs: &ports(&m.inputs, "input"),
            outputs: &ports(&m.outputs, "output"),
            feedthrough: &self.structure.feedthrough,
            max_output_derivative_order: 1,
            linear_time_invariant: self.structure.linear_time_invariant,
        };
        // The checker already refused duplicate names, so this cannot fail in practice.
        describe(&sig).map_err(|e| SourceError {
            line: 1,
            column: 1,
            message: format!("{e}"),
        })
    }
}

/// The description an equation module with this source would have (variables with
/// units and start values, feedthrough, capabilities), or the first error in the source.
/// For the page's editor: no module is built and nothing is integrated.
pub fn describe_equations(source: &str) -> Result<ModuleDescription, SourceError> {
    let c = compile_source(source)?;
    let params: Vec<f64> = c.model.params.iter().map(|p| p.start).collect();
    let starts: Vec<f64> = c.model.states.iter().map(|s| s.start).collect();
    Ok(c.describe(&params, &starts)?.0)
}

/// The variables an equation module with this source lets a scenario set: its parameters
/// and state start values (not the `der()` variables); the first error in the source as text.
pub fn settable_variables(source: &str) -> Result<Vec<Variable>, String> {
    let desc = describe_equations(source).map_err(|e| e.to_string())?;
    let settable = |v: &Variable| {
        v.causality == Causality::Parameter
            || (v.causality == Causality::Local && !v.name.starts_with("der("))
    };
    Ok(desc.variables.into_iter().filter(settable).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::module::Causality;

    #[test]
    fn describe_lists_variables_with_units_starts_and_comments() {
        let src =
            "parameter k = 2 \"N/m\" // spring stiffness\ninput F \"N\"\nstate x = 0.5 \"m\"\n\
                   der(x) = -k*x + F\noutput y \"m\" = x\n";
        let d = describe_equations(src).expect("valid");
        assert_eq!(d.model_name, EQUATIONS_ID);
        let k = d.variable("k").expect("k");
        assert_eq!(
            (k.causality, k.start, k.unit.as_str()),
            (Causality::Parameter, Some(2.0), "N/m")
        );
        assert_eq!(k.description, "spring stiffness");
        assert_eq!(d.variable("x").and_then(|x| x.start), Some(0.5));
        assert_eq!(d.variable("der(x)").map(|v| v.unit.as_str()), Some("m/s"));
        assert_eq!(d.inputs().len(), 1);
        assert_eq!(d.outputs()[0].description, "output");
        assert!(describe_equations("state x\n").is_err());
    }
}
