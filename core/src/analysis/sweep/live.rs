//! [`LiveModules`]: module instances kept from one sweep point to the next. A point resets
//! the instance, sets its parameter values (settable before initialisation, like FMI
//! `fixed` parameters) and reads the block again, instead of building the module anew;
//! a module that refuses is rebuilt by its [`ModuleFactory`] at every point.

use super::ModuleFactory;
use crate::analysis::LinearBlock;
use crate::module::{Subsystem, ValueRef};
use alloc::vec::Vec;

enum Slot {
    /// Not instantiated yet (or dropped after a failed point).
    Empty,
    /// An instance; `proven` once a point was read through it.
    Ready { sub: Subsystem, proven: bool },
    /// The module does not take its parameters this way: rebuild at every point.
    Refused,
}

/// One slot per module; kept by one tile (or one sweep) and never shared.
pub(super) struct LiveModules(Vec<Slot>);

impl LiveModules {
    pub(super) fn new(modules: usize) -> Self {
        LiveModules((0..modules).map(|_| Slot::Empty).collect())
    }

    /// Block of module `m` (instantiated by `modules`) with `params` set, or `None` when
    /// the caller must rebuild the module (refused, or this point's values were rejected:
    /// the rebuild then reports why).
    pub(super) fn read(
        &mut self,
        m: usize,
        modules: &dyn ModuleFactory,
        t_start: f64,
        params: &[(&str, f64)],
    ) -> Option<LinearBlock> {
        let slot = &mut self.0[m];
        if matches!(slot, Slot::Empty) {
            *slot = match modules.instantiate(m, &[]) {
                Ok(sub) => Slot::Ready { sub, proven: false },
                Err(_) => Slot::Refused,
            };
        }
        let Slot::Ready { sub, proven } = slot else {
            return None;
        };
        match read_with(sub, t_start, params) {
            Some(block) => {
                *proven = true;
                Some(block)
            }
            None => {
                // A module that never took a point refuses the mechanism; one that did
                // only rejected these values, so start afresh next time.
                *slot = if *proven { Slot::Empty } else { Slot::Refused };
                None
            }
        }
    }
}

fn read_with(sub: &mut Subsystem, t_start: f64, params: &[(&str, f64)]) -> Option<LinearBlock> {
    sub.reset().ok()?;
    let desc = sub.description();
    let vrs: Vec<ValueRef> = params
        .iter()
        .map(|(name, _)| desc.variable(name).map(|v| v.value_ref))
        .collect::<Option<_>>()?;
    let values: Vec<f64> = params.iter().map(|(_, v)| *v).collect();
    sub.set_float64(&vrs, &values).ok()?;
    sub.enter_initialization_mode(None, t_start, None).ok()?;
    LinearBlock::from_subsystem(sub).ok()
}
