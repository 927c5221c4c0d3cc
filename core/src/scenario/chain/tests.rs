//! The `chain` generator: the split, the expansion, refusals before any allocation, and a
//! 10^4-mass chain in a link.

use super::*;
use crate::scenario::{encode_link, parse, MAX_LINK_CHARS};

fn chain_json(masses: u64, subsystems: u64) -> String {
    format!(
        r#"{{"schema_version": 1, "chain": {{"masses": {masses}, "subsystems": {subsystems}}},
           "master": {{"algorithm": "jacobi", "macro_step": 1e-6}},
           "run": {{"stop": 1e-5}}}}"#
    )
}

#[test]
fn ten_thousand_masses_split_into_191_contiguous_segments() {
    let s = parse(&chain_json(10_000, 191)).expect("parses");
    let chain = s.chain.clone().expect("chain");
    let sizes: Vec<u64> = (0..191).map(|i| chain.segment(i).1).collect();
    assert_eq!(sizes.iter().filter(|n| **n == 53).count(), 68);
    assert_eq!(sizes.iter().filter(|n| **n == 52).count(), 123);
    let mut next = 1;
    for i in 0..191 {
        let (first, n) = chain.segment(i);
        assert_eq!(first, next);
        assert_eq!(chain.segment_of(first), i);
        assert_eq!(chain.segment_of(first + n - 1), i);
        next = first + n;
    }
    assert_eq!(next, 10_001);
    // Seed 002 plots mass 6,891; every cut is recorded with its four coupling states.
    assert_eq!(chain.watched(), [6891]);
    let (modules, connections, plot) = chain.expand();
    assert_eq!((modules.len(), connections.len()), (381, 6 * 190));
    assert_eq!(plot.len(), 2 + 5 * 190);
    assert_eq!(plot[0], format!("s{}.x_watch", chain.segment_of(6891) + 1));
    let v = s.validate().expect("valid");
    assert_eq!(v.scenario.modules.len(), 381);
    assert_eq!(v.scenario.modules[0].parameters["banded"], 1.0);
}

#[test]
fn a_link_for_ten_thousand_masses_fits_in_a_url() {
    let s = parse(&chain_json(10_000, 191)).expect("parses");
    let link = encode_link(&s).expect("encodes");
    assert!(link.len() < 400, "{} characters", link.len());
    assert!(link.len() <= MAX_LINK_CHARS);
}

#[test]
fn bad_chains_are_refused_with_the_limit_before_expansion() {
    for (masses, subsystems, field, needle) in [
        (1, 1, "chain.masses", "at least 2"),
        (10, 0, "chain.subsystems", "at least 1"),
        (10, 11, "chain.subsystems", "at most one subsystem per mass"),
        (2_000_000, 2399, "chain.masses", "limit of 1000000"),
        (100_000, 10, "chain.subsystems", "at least 100 subsystems"),
        (u64::MAX, 1, "chain.masses", "limit"),
    ] {
        let e = parse(&chain_json(masses, subsystems))
            .expect("parses")
            .validate()
            .expect_err("refused");
        let text = format!("{e}");
        assert!(text.contains(field) && text.contains(needle), "{text}");
    }
    let big = parse(&chain_json(100_000, 240)).expect("parses");
    let e = big
        .chain
        .expect("chain")
        .check_for_page()
        .expect_err("too big for the page");
    assert!(
        format!("{e}").contains("cosim run chain.json --threads"),
        "{e}"
    );
    // Parameters the generator fixes, or unknown ones, are refused by name.
    let mut s = parse(&chain_json(10, 2)).expect("parses");
    let chain = s.chain.as_mut().expect("chain");
    chain.parameters.insert("first".into(), 3.0);
    let e = s.validate().expect_err("refused");
    assert!(format!("{e}").contains("chain.parameters.first"), "{e}");
    // Watched masses: in range, one per segment.
    let mut s = parse(&chain_json(10, 2)).expect("parses");
    s.chain.as_mut().expect("chain").watch = Some(alloc::vec![2, 3]);
    assert!(format!("{}", s.validate().expect_err("same segment")).contains("same segment"));
    s.chain.as_mut().expect("chain").watch = Some(alloc::vec![11]);
    assert!(format!("{}", s.validate().expect_err("range")).contains("chain.watch[0]"));
    // Modules beside a chain are refused.
    let mut s = parse(&chain_json(10, 2)).expect("parses");
    s.plot.push("s1.x_first".into());
    assert!(format!("{}", s.validate().expect_err("plot")).contains("plot"));
}
