//! [`OutputHistory`]: the last few stacked output samples with their times, in a ring
//! buffer allocated once, so the macro-step loop never allocates.

use alloc::vec;
use alloc::vec::Vec;

/// The newest `capacity` samples `(t, y)` of the stacked outputs; sample 0 is the newest.
#[derive(Clone, Debug)]
pub struct OutputHistory {
    n: usize,
    capacity: usize,
    len: usize,
    /// Slot of the newest sample.
    head: usize,
    times: Vec<f64>,
    values: Vec<f64>,
}

impl OutputHistory {
    /// Room for `capacity ≥ 1` samples of `n` signals.
    pub fn new(capacity: usize, n: usize) -> Self {
        let capacity = capacity.max(1);
        OutputHistory {
            n,
            capacity,
            len: 0,
            head: 0,
            times: vec![0.0; capacity],
            values: vec![0.0; capacity * n],
        }
    }

    /// Samples held (at most the capacity).
    pub fn len(&self) -> usize {
        self.len
    }

    /// True before the first push.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Adds the newest sample, dropping the oldest when full. `y.len()` must be `n`.
    pub fn push(&mut self, t: f64, y: &[f64]) {
        // The next slot by a compare, not a modulo (a division at every step).
        self.head = if self.len == 0 || self.head + 1 == self.capacity {
            0
        } else {
            self.head + 1
        };
        self.len = (self.len + 1).min(self.capacity);
        self.times[self.head] = t;
        self.values[self.head * self.n..(self.head + 1) * self.n].copy_from_slice(y);
    }

    /// Removes every sample.
    pub fn clear(&mut self) {
        self.len = 0;
        self.head = 0;
    }

    /// Ring slot of sample `j ≤ capacity` (a compare, not a division: it runs for every
    /// sample of every input at every step).
    #[inline]
    fn slot(&self, j: usize) -> usize {
        if j <= self.head {
            self.head - j
        } else {
            self.head + self.capacity - j
        }
    }

    /// Time of sample `j` (0 = newest, `j < len`).
    pub fn time(&self, j: usize) -> f64 {
        self.times[self.slot(j)]
    }

    /// Stacked outputs of sample `j` (0 = newest, `j < len`).
    pub fn sample(&self, j: usize) -> &[f64] {
        let s = self.slot(j);
        &self.values[s * self.n..(s + 1) * self.n]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_newest_samples_newest_first() {
        let mut h = OutputHistory::new(3, 2);
        assert!(h.is_empty());
        for k in 0..5 {
            let t = k as f64;
            h.push(t, &[t, -t]);
        }
        assert_eq!(h.len(), 3);
        assert_eq!([h.time(0), h.time(1), h.time(2)], [4.0, 3.0, 2.0]);
        assert_eq!(h.sample(1), &[3.0, -3.0]);
        h.clear();
        h.push(9.0, &[1.0, 2.0]);
        assert_eq!((h.len(), h.time(0), h.sample(0)), (1, 9.0, &[1.0, 2.0][..]));
    }
}
