//! String and Binary outputs of a binary module: read with `fmi3GetString` /
//! `fmi3GetBinary` whenever the outputs change (after initialisation, every
//! `fmi3DoStep`, the end of an event iteration, a restored state) and kept for the record
//! ([`crate::module::Module::text_outputs`]). They are not ports: the master carries
//! numbers, and a connection from one is refused by name (`scenario::binary`).

use super::model_description::ModelDescription;
use super::typed_access::TypedFns;
use super::typed_ports::{element_name, extents};
use super::typed_values::TypedValues;
use super::variable_types::VariableType;
use super::{BinaryModule, FmuError};
use crate::module::{ModuleError, TextOutput};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// The String and Binary outputs of a module and their last values.
#[derive(Default)]
pub(super) struct TextOutputs {
    /// (FMI value reference, type, number of elements) of each output variable.
    vars: Vec<(u32, VariableType, usize)>,
    /// One entry per element, in declaration order.
    pub(super) values: Vec<TextOutput>,
}

/// Bytes as lower-case hex, two digits each.
fn hex(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(2 * bytes.len());
    for b in bytes {
        out.push_str(&format!("{b:02x}"));
    }
    out
}

impl TextOutputs {
    /// Whether there is no text output to read after a step.
    pub(super) fn is_empty(&self) -> bool {
        self.vars.is_empty()
    }

    /// The String and Binary outputs `md` declares whose get function the module exports.
    pub(super) fn new(md: &ModelDescription, fns: &TypedFns) -> Result<Self, FmuError> {
        let mut out = TextOutputs::default();
        for v in &md.all_variables {
            let text = matches!(v.ty, VariableType::String | VariableType::Binary);
            if !text || v.causality != "output" || !fns.has(v.ty) {
                continue;
            }
            let extents = extents(v, &md.all_variables)?;
            let len = extents.iter().product::<u64>() as usize;
            for k in 0..len {
                let name = match v.dimensions.is_empty() {
                    true => v.name.clone(),
                    false => element_name(&v.name, &extents, k as u64),
                };
                out.values.push(TextOutput {
                    name,
                    binary: v.ty == VariableType::Binary,
                    value: String::new(),
                });
            }
            out.vars.push((v.value_ref, v.ty, len));
        }
        Ok(out)
    }
}

impl BinaryModule {
    /// Reads every String and Binary output into `texts`.
    pub(super) fn read_text_outputs(&mut self) -> Result<(), ModuleError> {
        let mut at = 0;
        for k in 0..self.texts.vars.len() {
            let (vr, ty, len) = self.texts.vars[k];
            let values = self.get_typed(vr, ty, len)?;
            let texts: Vec<String> = match values {
                TypedValues::String(v) => v,
                TypedValues::Binary(v) => v.iter().map(|b| hex(b)).collect(),
                _ => Vec::new(),
            };
            for (slot, text) in self.texts.values[at..at + len].iter_mut().zip(texts) {
                slot.value = text;
            }
            at += len;
        }
        Ok(())
    }
}
