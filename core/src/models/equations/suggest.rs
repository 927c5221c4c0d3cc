//! "Did you mean ...?": the closest known name to a misspelt one, by edit distance.

use alloc::vec;
use alloc::vec::Vec;

/// Names longer than this get no suggestion (the distance costs length squared).
const MAX_SUGGEST_LEN: usize = 64;

/// The closest known name within edit distance max(1, len/3), if any.
pub(crate) fn suggest<'a>(name: &str, known: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let len = name.chars().count();
    if len > MAX_SUGGEST_LEN {
        return None;
    }
    let limit = (len / 3).max(1);
    known
        .filter(|k| k.len() <= 4 * MAX_SUGGEST_LEN)
        .map(|k| (distance(name, k), k))
        // A name equal to the input is no suggestion (it is unknown for another reason).
        .filter(|(d, _)| (1..=limit).contains(d))
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// The closest of `known` within edit distance `limit` (never `name` itself).
pub(crate) fn nearest<'a>(
    name: &str,
    known: impl Iterator<Item = &'a str>,
    limit: usize,
) -> Option<&'a str> {
    if name.chars().count() > MAX_SUGGEST_LEN {
        return None;
    }
    known
        .filter(|k| k.len() <= 4 * MAX_SUGGEST_LEN)
        .map(|k| (distance(name, k), k))
        .filter(|(d, _)| (1..=limit).contains(d))
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// Levenshtein distance in characters.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_within_a_third_of_the_length() {
        assert_eq!(distance("kitten", "sitting"), 3);
        assert_eq!(suggest("Fx", ["Fk", "x"].into_iter()), Some("Fk"));
        assert_eq!(suggest("omega", ["x", "v"].into_iter()), None);
        assert_eq!(suggest("time", ["time", "tim"].into_iter()), Some("tim"));
        assert_eq!(suggest("time", ["time"].into_iter()), None);
        assert_eq!(
            suggest("dampng", ["damping", "d"].into_iter()),
            Some("damping")
        );
    }
}
