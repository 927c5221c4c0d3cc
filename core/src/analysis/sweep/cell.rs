//! One evaluated point of a sweep or map: the value and how far to trust it.

use crate::error::MasterError;

/// What a map or sweep computes at each point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MapMetric {
    /// `ρ(Φ)` (stability where `ρ ≤ 1 + 1e-12`).
    SpectralRadius,
    /// `e_g,NRMSE` over the scenario's run interval (accurate where `≤ 0.01`).
    GlobalError,
    /// `e_l,NRMSE` over the scenario's run interval.
    LocalError,
}

/// How a cell's value came about.
#[derive(Clone, Debug, PartialEq)]
pub enum CellStatus {
    /// Computed normally.
    Ok,
    /// Computed, but rounding may decide it: `|ρ − 1|` is below the eigenvalue round-off,
    /// or `I − G_p L` has a condition number above
    /// [`super::CORRECTOR_CONDITION_LIMIT`] (the paper's jitter at high d_k, tiny ΔT).
    IllConditioned,
    /// The run overflowed: the error is `+∞`.
    Diverged,
    /// Nothing could be computed (value NaN, never to be drawn as a number).
    Failed(MasterError),
}

impl CellStatus {
    /// Compact code for transfer to the page: 0 ok, 1 ill-conditioned, 2 diverged, 3 failed.
    pub fn code(&self) -> u8 {
        match self {
            CellStatus::Ok => 0,
            CellStatus::IllConditioned => 1,
            CellStatus::Diverged => 2,
            CellStatus::Failed(_) => 3,
        }
    }

    /// Short name for CSV files: `ok`, `ill_conditioned`, `diverged`, `failed`.
    pub fn name(&self) -> &'static str {
        ["ok", "ill_conditioned", "diverged", "failed"][self.code() as usize]
    }
}

/// A value with its status.
#[derive(Clone, Debug, PartialEq)]
pub struct Cell {
    /// The metric; `+∞` when diverged, NaN only together with [`CellStatus::Failed`].
    pub value: f64,
    /// See [`CellStatus`].
    pub status: CellStatus,
}

impl Cell {
    pub(super) fn new(value: f64, status: CellStatus) -> Self {
        // A non-finite value that is not a flagged divergence would be a silent NaN.
        if value.is_nan() {
            return Cell::failed(MasterError::InvalidSettings(
                "the metric evaluated to NaN".into(),
            ));
        }
        Cell { value, status }
    }

    pub(super) fn failed(e: MasterError) -> Self {
        Cell {
            value: f64::NAN,
            status: CellStatus::Failed(e),
        }
    }
}
