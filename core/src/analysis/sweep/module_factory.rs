//! [`ModuleFactory`]: where a sweep gets module instances for the points it evaluates.
//! Analysis reads linear blocks through FMI calls and never learns how a module is made;
//! the composition root implements this trait over the scenario's module specs.

use crate::analysis::LinearBlock;
use crate::module::Subsystem;
use alloc::format;
use alloc::string::String;
use core::fmt;

/// Builds the modules of a linear analysis afresh, by index in block order.
pub trait ModuleFactory: fmt::Debug + Send + Sync {
    /// Module `m` built with `params` (name, value) in place of its own values and
    /// instantiated (FMI Instantiated state, not yet initialised); the error as text.
    fn instantiate(&self, m: usize, params: &[(&str, f64)]) -> Result<Subsystem, String>;

    /// Checks that module `m` has a parameter or start value `name` and accepts a value
    /// for it; the error as text.
    fn check_parameter(&self, m: usize, name: &str) -> Result<(), String>;

    /// Module `m` with `params`, instantiated and initialised at `t_start`, with its
    /// linear block (directional derivatives at its start values).
    fn read(
        &self,
        m: usize,
        t_start: f64,
        params: &[(&str, f64)],
    ) -> Result<(Subsystem, LinearBlock), String> {
        let mut sub = self.instantiate(m, params)?;
        sub.enter_initialization_mode(None, t_start, None)
            .map_err(|e| format!("{e}"))?;
        let block = LinearBlock::from_subsystem(&mut sub).map_err(|e| format!("{e}"))?;
        Ok((sub, block))
    }
}
