//! The String and Binary outputs of a run ([`TextSignal`]): the value changes of each, as
//! recorded at the communication points, and their CSV cells (a String quoted as RFC 4180
//! asks, a Binary as hex).

use crate::master::CoupledSystem;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// One String or Binary output over a run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TextSignal {
    /// `module.output` (`module.output[i]` for an element).
    pub name: String,
    /// True for a Binary output (values are lower-case hex).
    pub binary: bool,
    /// (recorded point, value) where the value changed, the first point included.
    pub changes: Vec<(usize, String)>,
}

impl TextSignal {
    /// The value at recorded point `row` (empty before the first record).
    pub fn at(&self, row: usize) -> &str {
        let k = self.changes.partition_point(|(r, _)| *r <= row);
        match k {
            0 => "",
            k => &self.changes[k - 1].1,
        }
    }

    /// The CSV cell at `row`: hex for a Binary; a String in double quotes, each quote
    /// doubled (RFC 4180), so commas, quotes and line breaks survive.
    pub fn csv_cell(&self, row: usize) -> String {
        let value = self.at(row);
        match self.binary {
            true => value.into(),
            false => format!("\"{}\"", value.replace('"', "\"\"")),
        }
    }
}

/// One signal per String or Binary output of every module, in module order.
pub(super) fn signals(system: &CoupledSystem) -> Vec<TextSignal> {
    let mut out = Vec::new();
    for m in 0..system.n_modules() {
        for t in system.subsystem(m).text_outputs() {
            out.push(TextSignal {
                name: format!("{}.{}", system.name(m), t.name),
                binary: t.binary,
                changes: Vec::new(),
            });
        }
    }
    out
}

/// Records the values at point `row` where they changed.
pub(super) fn record(texts: &mut [TextSignal], row: usize, system: &CoupledSystem) {
    if texts.is_empty() {
        return;
    }
    let values = (0..system.n_modules()).flat_map(|m| system.subsystem(m).text_outputs());
    for (signal, t) in texts.iter_mut().zip(values) {
        if signal.changes.last().is_none_or(|(_, v)| *v != t.value) {
            signal.changes.push((row, t.value.clone()));
        }
    }
}
