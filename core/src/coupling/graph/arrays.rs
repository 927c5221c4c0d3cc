//! Connections of whole arrays: `m.a` names the ports `m.a[1]`, `m.a[2]`, ... (or
//! `m.a[1,1]`, ... for more dimensions) when `a` is not a port itself, and joins an
//! array of the same shape element by element.

use super::{CouplingGraph, PortLookup, PortSide};
use crate::error::CouplingError;
use crate::module::ModuleDescription;
use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

impl CouplingGraph {
    /// The (output, input) pairs of one connection, arrays expanded.
    pub(super) fn connection_ports(
        &self,
        modules: &[(String, ModuleDescription)],
        lookup: &PortLookup,
        (from, to): &(String, String),
    ) -> Result<Vec<(usize, usize)>, CouplingError> {
        {
            let o = self.find_port(modules, lookup, from, PortSide::Output);
            let i = self.find_port(modules, lookup, to, PortSide::Input);
            if let (Ok(o), Ok(i)) = (&o, &i) {
                return Ok(vec![(*o, *i)]);
            }
            let side = |found: Result<usize, CouplingError>, port: &str, side: PortSide| match found
            {
                Ok(k) => Ok((vec![k], String::from("a scalar"))),
                Err(e) => {
                    let elements = self.elements(port, side);
                    match elements.is_empty() {
                        true => Err(e),
                        false => {
                            let shape = self.shape_of(side, &elements);
                            Ok((elements, shape))
                        }
                    }
                }
            };
            let (outs, from_shape) = side(o, from, PortSide::Output)?;
            let (ins, to_shape) = side(i, to, PortSide::Input)?;
            if from_shape != to_shape || outs.len() != ins.len() {
                return Err(CouplingError::PortMismatch {
                    kind: "dimension",
                    from: from.clone(),
                    from_is: from_shape,
                    to: to.clone(),
                    to_is: to_shape,
                });
            }
            Ok(outs.into_iter().zip(ins).collect())
        }
    }

    fn side_name(&self, side: PortSide, k: usize) -> &str {
        match side {
            PortSide::Output => &self.output_names[k],
            PortSide::Input => &self.input_names[k],
        }
    }

    /// The ports `port[...]` of one side, in declaration (row-major) order.
    fn elements(&self, port: &str, side: PortSide) -> Vec<usize> {
        let Some(m) = port
            .split_once('.')
            .and_then(|(module, _)| self.module_index(module))
        else {
            return Vec::new();
        };
        let (range, names) = match side {
            PortSide::Output => (self.output_ranges[m].clone(), &self.output_names),
            PortSide::Input => (self.input_ranges[m].clone(), &self.input_names),
        };
        let prefix = format!("{port}[");
        range
            .filter(|&k| {
                names[k]
                    .strip_prefix(&prefix)
                    .is_some_and(|rest| rest.ends_with(']') && !rest.contains('.'))
            })
            .collect()
    }

    /// `an array [n]`, `an array [n,m]`: the last element's index is the shape.
    fn shape_of(&self, side: PortSide, ports: &[usize]) -> String {
        let last = ports.last().map(|&k| self.side_name(side, k)).unwrap_or("");
        let index = last.rfind('[').map_or("", |at| &last[at..]);
        format!("an array {index}")
    }
}
