//! Sorted position indexes: look-ups by name or value reference in O(log n) without
//! copying the keys. Positions with equal keys stay in ascending order, so a look-up
//! returns the first position with the key, which is what a linear search from the front
//! returns (and what the coupling graph returned before it had indexes).

use alloc::string::String;
use alloc::vec::Vec;

/// Positions `0..names.len()` sorted by (hash of the name, name, position), for
/// [`NameIndex::find`]. Ordering by a hash first keeps a binary search on the inline
/// 64-bit keys (names are compared only when hashes are equal), so look-ups stay fast when
/// the names no longer fit in the cache; colliding hashes only cost string comparisons.
#[derive(Clone, Debug, Default)]
pub(crate) struct NameIndex(Vec<(u64, usize)>);

impl NameIndex {
    /// The index of `names`; look-ups must pass the same list.
    pub(crate) fn new(names: &[String]) -> NameIndex {
        let mut sorted: Vec<(u64, usize)> = names
            .iter()
            .enumerate()
            .map(|(p, n)| (fnv1a(n), p))
            .collect();
        sorted.sort_unstable_by(|&(ha, a), &(hb, b)| {
            ha.cmp(&hb)
                .then_with(|| names[a].cmp(&names[b]))
                .then(a.cmp(&b))
        });
        NameIndex(sorted)
    }

    /// The first position of `name` in `names`.
    pub(crate) fn find(&self, names: &[String], name: &str) -> Option<usize> {
        let h = fnv1a(name);
        // The name is read only on equal hashes.
        let k = self
            .0
            .partition_point(|&(hp, p)| hp < h || (hp == h && names[p].as_str() < name));
        self.0
            .get(k)
            .filter(|&&(hp, p)| hp == h && names[p] == name)
            .map(|&(_, p)| p)
    }
}

/// FNV-1a, 64 bit: a fixed, deterministic hash (the order must not depend on a seed).
fn fnv1a(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// Sorts `positions` by `key`, equal keys by position.
pub(crate) fn sort_by_key_then_position<K: Ord>(positions: &mut [usize], key: impl Fn(usize) -> K) {
    positions.sort_unstable_by(|&a, &b| key(a).cmp(&key(b)).then(a.cmp(&b)));
}

/// The positions in `sorted` (as [`sort_by_key_then_position`] leaves them) whose key is
/// `wanted`, in ascending order.
pub(crate) fn all_with<K: Ord>(sorted: &[usize], key: impl Fn(usize) -> K, wanted: K) -> &[usize] {
    let start = sorted.partition_point(|&p| key(p) < wanted);
    let len = sorted[start..].partition_point(|&p| key(p) == wanted);
    &sorted[start..start + len]
}

/// The first position in `sorted` whose key is `wanted`.
pub(crate) fn first_with<K: Ord>(
    sorted: &[usize],
    key: impl Fn(usize) -> K,
    wanted: K,
) -> Option<usize> {
    all_with(sorted, key, wanted).first().copied()
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;
    use alloc::vec;

    #[test]
    fn finds_the_first_of_equal_names_and_nothing_for_absent_ones() {
        let names: Vec<String> = ["b", "a", "c", "a", "b"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let index = NameIndex::new(&names);
        assert_eq!(index.find(&names, "a"), Some(1));
        assert_eq!(index.find(&names, "b"), Some(0));
        assert_eq!(index.find(&names, "c"), Some(2));
        assert_eq!(index.find(&names, "d"), None);
        assert_eq!(index.find(&names, ""), None);
        assert_eq!(NameIndex::new(&[]).find(&[], "a"), None);
    }

    #[test]
    fn all_with_returns_every_position_of_a_key_in_order() {
        let keys = [3, 1, 3, 2, 3];
        let mut sorted = vec![0, 1, 2, 3, 4];
        sort_by_key_then_position(&mut sorted, |p| keys[p]);
        assert_eq!(all_with(&sorted, |p| keys[p], 3), &[0, 2, 4]);
        assert_eq!(all_with(&sorted, |p| keys[p], 2), &[3]);
        assert!(all_with(&sorted, |p| keys[p], 0).is_empty());
        assert_eq!(first_with(&sorted, |p| keys[p], 1), Some(1));
    }
}
