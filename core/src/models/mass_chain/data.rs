//! The random data of the mass chain (seed 002, Example 2), drawn from a seeded
//! generator so that every run, every segmentation and the monolithic reference see the
//! same chain bit for bit (docs/methods.md §14, "The mass chain").
//!
//! - Which masses carry an impulse and which a contact: exactly `round(share·N)` of the
//!   `N` masses each, the first entries of a Fisher–Yates shuffle of `0..N` (two
//!   independent streams, so a mass may carry both).
//! - Per mass `i` (0-based, global): the impulse amplitude `±U[ΔF_min, ΔF_max]`, and the
//!   start values `x₀ ∈ U[−x_max, x_max]`, `v₀ ∈ U[−v_max, v_max]`, each from a hash of
//!   `(seed, stream, i)`, independent of the segmentation. A contact mass starts at
//!   `−|x₀|`, on the free side of its wall, so that no contact starts at e^{B·x₀} (up to
//!   1.4e215 N for x₀ = 1e-3 m; seed 002 gives no start values, only ranges).
//!
//! - With `per_mass` (what the scenario's `chain` generator uses): each mass carries an
//!   impulse with probability `share` from its own hash, `unit(seed, stream, i) < share`,
//!   so the count is binomial (≈ share·N ± √(share·N)) but a segment draws its masses in
//!   O(n) instead of shuffling all N: 2,399 segments of a 10^6-mass chain would otherwise
//!   shuffle 2.4·10^9 entries to build.
//!
//! The generator is SplitMix64 (Steele, Lea & Flood, OOPSLA 2014), whose output for a
//! given state is fixed, so the data never depend on a library version.

use alloc::vec;
use alloc::vec::Vec;

/// SplitMix64's output function applied to `z`.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A uniform number in [0, 1) for `(seed, stream, index)`.
pub fn unit(seed: u64, stream: u64, index: u64) -> f64 {
    let z = mix(mix(mix(seed) ^ stream) ^ index);
    (z >> 11) as f64 / (1u64 << 53) as f64
}

/// Streams of the generator.
const IMPULSE_SET: u64 = 1;
const CONTACT_SET: u64 = 2;
const IMPULSE_SIZE: u64 = 3;
const IMPULSE_SIGN: u64 = 4;
const START_X: u64 = 5;
const START_V: u64 = 6;

/// Membership of `count` of `total` indices: the first `count` of a seeded Fisher–Yates
/// shuffle of `0..total`.
fn chosen(seed: u64, stream: u64, total: usize, count: usize) -> Vec<bool> {
    let mut order: Vec<usize> = (0..total).collect();
    for i in 0..count.min(total) {
        let span = total - i;
        let j = i + ((unit(seed, stream, i as u64) * span as f64) as usize).min(span - 1);
        order.swap(i, j);
    }
    let mut member = vec![false; total];
    for &i in &order[..count.min(total)] {
        member[i] = true;
    }
    member
}

/// What the generator draws for a chain.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Draw {
    /// Seed of the generator.
    pub seed: u64,
    /// Masses in the whole chain.
    pub total: usize,
    /// Share of masses with an impulse (seed: 0.3).
    pub impulse_share: f64,
    /// Share of masses with a contact (seed: 0.1).
    pub contact_share: f64,
    /// Smallest and largest impulse amplitude |ΔF| in N (seed: 1e6, 5e6).
    pub impulse_range: (f64, f64),
    /// Largest |x₀| in m and |v₀| in m/s (seed: 1e-3, 10).
    pub start_range: (f64, f64),
    /// Membership per mass from its own hash (binomial count) instead of the exact-count
    /// shuffle.
    pub per_mass: bool,
}

/// The data of one mass.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MassData {
    /// Impulse amplitude ΔF in N (0 without an impulse).
    pub impulse: f64,
    /// Whether the mass has a contact.
    pub contact: bool,
    /// Start position in m.
    pub x0: f64,
    /// Start velocity in m/s.
    pub v0: f64,
}

impl Draw {
    /// The data of masses `first..first + count` (0-based global indices).
    pub fn masses(&self, first: usize, count: usize) -> Vec<MassData> {
        let round = |share: f64| libm::round(share * self.total as f64) as usize;
        let member = |stream: u64, share: f64| -> Vec<bool> {
            if self.per_mass {
                (first..first + count)
                    .map(|i| unit(self.seed, stream, i as u64) < share)
                    .collect()
            } else {
                chosen(self.seed, stream, self.total, round(share))[first..first + count].to_vec()
            }
        };
        let impulses = member(IMPULSE_SET, self.impulse_share);
        let contacts = member(CONTACT_SET, self.contact_share);
        (first..first + count)
            .zip(impulses.into_iter().zip(contacts))
            .map(|(i, (impulse, contact))| {
                let u = |stream| unit(self.seed, stream, i as u64);
                let (lo, hi) = self.impulse_range;
                let size = lo + (hi - lo) * u(IMPULSE_SIZE);
                let sign = if u(IMPULSE_SIGN) < 0.5 { -1.0 } else { 1.0 };
                let (x_max, v_max) = self.start_range;
                let x0 = x_max * (2.0 * u(START_X) - 1.0);
                MassData {
                    impulse: if impulse { sign * size } else { 0.0 },
                    contact,
                    x0: if contact { -libm::fabs(x0) } else { x0 },
                    v0: v_max * (2.0 * u(START_V) - 1.0),
                }
            })
            .collect()
    }
}
