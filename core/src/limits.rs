//! The one place that holds the limits on what a scenario, link or analysis may ask for.
//!
//! Every operation estimates its cost from the scenario alone (no allocation, no step taken)
//! and is refused before it starts when the estimate exceeds a limit, with a message that
//! gives the estimate, the limit and the setting that raises it ([`BudgetExceeded`]).
//! The command line takes [`Limits::CLI`] and raises single limits with flags
//! (`--max-memory-mb`, …); the page keeps the tighter [`Limits::PAGE`]. The fixed limits of
//! the format (document, link and message sizes, parameter magnitudes) are the constants
//! below, shared by every reader and writer (a link `encode_link` makes is within what
//! `decode_link` accepts). docs/limits.md lists every limit with its default.

use alloc::format;
use alloc::string::String;
use core::fmt;

/// Largest accepted scenario document, in bytes (a link or upload beyond this is refused
/// before parsing, so absurd input cannot exhaust memory).
pub const MAX_SCENARIO_BYTES: usize = 4 << 20;

/// Longest link payload accepted, in characters (a scenario of a few modules is a few
/// hundred; browsers keep fragments of this size). `encode_link` and `decode_link` share it.
pub const MAX_LINK_CHARS: usize = 1 << 18;

/// Largest scenario JSON a link may inflate to, in bytes. Deflate compresses at most
/// about 1032:1, so without this limit a 256 KiB link could inflate to 256 MiB.
/// (Below [`MAX_SCENARIO_BYTES`], the limit for a scenario file.)
pub const MAX_LINK_JSON_BYTES: usize = 1 << 20;

/// Longest error message kept, in characters: a message quoting hostile input (a huge
/// name, thousands of list entries) stays readable and small.
pub const MAX_MESSAGE_CHARS: usize = 2000;

/// Largest magnitude of a parameter or start value: beyond it products such as `c·ΔT²`
/// overflow in the matrices built from them (a sanity bound, not a setting).
pub const MAX_PARAMETER_MAGNITUDE: f64 = 1e100;

/// Largest `.fmu` file read, in bytes (the CLI reads no further; archives of the example
/// modules are a few hundred KiB).
pub const MAX_FMU_FILE_BYTES: usize = 64 << 20;

/// Budgets of one run or analysis (all counts, none a wall time: equal on every machine).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Bytes of what a run records: time, every output and its reference at every
    /// communication point, plus the per-step columns.
    pub run_memory_bytes: u64,
    /// Micro-steps of all fixed-step module integrators (RK4) over the whole run.
    pub micro_steps: u64,
    /// Cells × macro-steps per cell of a parameter map (the work of a map).
    pub map_work: u64,
    /// Macro-steps of all runs of a convergence study (every order, every macro-step, with
    /// and without correction).
    pub convergence_steps: u64,
    /// Largest dimension of a dense matrix built from all modules' states together (the
    /// exact monolithic reference, propagation matrices, Jacobians of the coupled system):
    /// their cost grows with its cube.
    pub matrix_dimension: u64,
}

impl Limits {
    /// The command line's defaults: a few GB and minutes of work at most.
    pub const CLI: Limits = Limits {
        run_memory_bytes: 2 << 30,
        micro_steps: 2_000_000_000,
        map_work: 4_000_000_000,
        convergence_steps: 400_000_000,
        matrix_dimension: 1000,
    };

    /// The page's defaults: a browser tab's worker (memory) and a person waiting (work).
    pub const PAGE: Limits = Limits {
        run_memory_bytes: 256 << 20,
        micro_steps: 200_000_000,
        map_work: 400_000_000,
        convergence_steps: 40_000_000,
        matrix_dimension: 400,
    };

    /// `estimate` of `what` against `limit` of `which`: `Ok` when it fits.
    pub fn check(
        &self,
        which: Limit,
        what: impl Into<String>,
        estimate: f64,
    ) -> Result<(), BudgetExceeded> {
        let limit = self.get(which);
        // NaN or ∞ estimates (absurd inputs) never fit.
        if estimate.is_finite() && estimate <= limit as f64 {
            return Ok(());
        }
        Err(BudgetExceeded {
            what: what.into(),
            which,
            estimate,
            limit,
        })
    }

    /// The value of one limit.
    pub fn get(&self, which: Limit) -> u64 {
        match which {
            Limit::RunMemory => self.run_memory_bytes,
            Limit::MicroSteps => self.micro_steps,
            Limit::MapWork => self.map_work,
            Limit::ConvergenceSteps => self.convergence_steps,
            Limit::MatrixDimension => self.matrix_dimension,
        }
    }

    /// Sets one limit (the CLI's flags).
    pub fn set(&mut self, which: Limit, value: u64) {
        match which {
            Limit::RunMemory => self.run_memory_bytes = value,
            Limit::MicroSteps => self.micro_steps = value,
            Limit::MapWork => self.map_work = value,
            Limit::ConvergenceSteps => self.convergence_steps = value,
            Limit::MatrixDimension => self.matrix_dimension = value,
        }
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits::CLI
    }
}

/// One of the [`Limits`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// [`Limits::run_memory_bytes`].
    RunMemory,
    /// [`Limits::micro_steps`].
    MicroSteps,
    /// [`Limits::map_work`].
    MapWork,
    /// [`Limits::convergence_steps`].
    ConvergenceSteps,
    /// [`Limits::matrix_dimension`].
    MatrixDimension,
}

impl Limit {
    /// Every limit, in the order docs/limits.md lists them.
    pub const ALL: [Limit; 5] = [
        Limit::RunMemory,
        Limit::MicroSteps,
        Limit::MapWork,
        Limit::ConvergenceSteps,
        Limit::MatrixDimension,
    ];

    /// The command-line flag that sets it (memory in MiB, the rest as counts).
    pub fn flag(self) -> &'static str {
        match self {
            Limit::RunMemory => "--max-memory-mb",
            Limit::MicroSteps => "--max-micro-steps",
            Limit::MapWork => "--max-map-work",
            Limit::ConvergenceSteps => "--max-convergence-steps",
            Limit::MatrixDimension => "--max-matrix-dimension",
        }
    }

    /// The flag's value for a limit of `value` (MiB for memory).
    pub fn flag_value(self, value: u64) -> u64 {
        match self {
            Limit::RunMemory => value >> 20,
            _ => value,
        }
    }

    /// The limit for a flag's value `value` (MiB for memory), saturating.
    pub fn from_flag_value(self, value: u64) -> u64 {
        match self {
            Limit::RunMemory => value.saturating_mul(1 << 20),
            _ => value,
        }
    }

    fn unit(self) -> &'static str {
        match self {
            Limit::RunMemory => "bytes",
            Limit::MicroSteps => "micro-steps",
            Limit::MapWork => "cell-steps",
            Limit::ConvergenceSteps => "macro-steps",
            Limit::MatrixDimension => "rows",
        }
    }
}

/// An operation refused before it started: what it would need and what is allowed.
#[derive(Clone, Debug, PartialEq)]
pub struct BudgetExceeded {
    /// What was estimated, e.g. `recorded outputs (4 outputs × 10000001 points)`.
    pub what: String,
    /// The limit that refused it.
    pub which: Limit,
    /// The estimate (in the limit's unit).
    pub estimate: f64,
    /// The limit.
    pub limit: u64,
}

impl fmt::Display for BudgetExceeded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let unit = self.which.unit();
        write!(
            f,
            "{} need{} about {} {unit}; the limit is {} {unit} (nothing was started; \
             on the command line `{} N` raises it, see docs/limits.md)",
            self.what,
            if self.what.ends_with('s') { "" } else { "s" },
            human(self.estimate),
            self.limit,
            self.which.flag()
        )
    }
}

/// `1.2e9`-style numbers for estimates that may be huge or not finite.
fn human(x: f64) -> String {
    if !x.is_finite() {
        return String::from("an unbounded number of");
    }
    if x < 1e6 {
        return format!("{x:.0}");
    }
    format!("{x:.2e}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;

    #[test]
    fn a_budget_message_names_estimate_limit_and_flag() {
        let e = Limits::PAGE
            .check(Limit::MicroSteps, "RK4 micro-steps", 1e12)
            .unwrap_err();
        let text = e.to_string();
        assert!(text.contains("1.00e12"), "{text}");
        assert!(text.contains("200000000"), "{text}");
        assert!(text.contains("--max-micro-steps"), "{text}");
        assert!(Limits::PAGE
            .check(Limit::MicroSteps, "x", f64::NAN)
            .is_err());
        assert!(Limits::PAGE.check(Limit::MicroSteps, "x", 2e8).is_ok());
    }

    #[test]
    fn page_limits_are_tighter_than_the_command_line_s() {
        for l in Limit::ALL {
            assert!(Limits::PAGE.get(l) < Limits::CLI.get(l), "{l:?}");
            let mut m = Limits::PAGE;
            m.set(l, l.from_flag_value(l.flag_value(Limits::CLI.get(l))));
            assert_eq!(m.get(l), Limits::CLI.get(l));
        }
    }
}
