//! Property-based tests (proptest, modest case counts to stay fast) of the three parsers
//! that take untrusted text: the scenario parser, the link codec and the equation parser.
//! None may panic; every refusal is a bounded message; every link `encode_link` gives
//! opens to the same scenario; unknown fields are refused in every object of every preset.

use cosim_core::error::MAX_MESSAGE_CHARS;
use cosim_core::models::equations::describe_equations;
use cosim_core::scenario::{self, decode_link, encode_link, Scenario};
use proptest::prelude::*;
use serde_json::Value;

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// A message within the cap (the cap's own "… (N more characters)" included).
fn bounded(message: &str) -> bool {
    message.chars().count() <= MAX_MESSAGE_CHARS + 40
}

/// Every object of `v` with its path (maps whose keys are free, `parameters`, skipped).
fn objects(v: &Value, path: String, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            out.push(path.clone());
            for (k, child) in m {
                // Maps keyed by module or parameter names: validation checks their keys.
                if k == "parameters" || k == "module_steps" {
                    continue;
                }
                let p = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                objects(child, p, out);
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                objects(child, format!("{path}[{i}]"), out);
            }
        }
        _ => {}
    }
}

fn object_at<'a>(v: &'a mut Value, path: &str) -> &'a mut Value {
    let mut cur = v;
    for part in path.split('.').filter(|p| !p.is_empty()) {
        let (key, indices) = part.split_once('[').unwrap_or((part, ""));
        cur = &mut cur[key];
        for i in indices.split('[').filter(|s| !s.is_empty()) {
            cur = &mut cur[i.trim_end_matches(']').parse::<usize>().unwrap()];
        }
    }
    cur
}

#[test]
fn an_unknown_field_is_refused_in_every_object_of_every_preset() {
    let mut checked = 0;
    for p in scenario::presets() {
        let doc = serde_json::to_value(&p.scenario).unwrap();
        let mut paths = Vec::new();
        objects(&doc, String::new(), &mut paths);
        for path in paths {
            let mut d = doc.clone();
            object_at(&mut d, &path)["zz_unknown"] = Value::from(1);
            let e = match scenario::parse(&d.to_string()) {
                Ok(_) => panic!("{}: an unknown field in `{path}` was accepted", p.id),
                Err(e) => e,
            };
            // Untagged and single-key values (`atol`, `order`) cannot name the field; their
            // error stands at the object or the one holding it.
            let named = e.message.contains("zz_unknown") || path.starts_with(&e.path);
            assert!(named, "{}: {path}: {e}", p.id);
            checked += 1;
        }
    }
    assert!(checked > 100, "{checked}");
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn the_scenario_parser_never_panics_on_any_text(text in "\\PC{0,400}") {
        if let Err(e) = scenario::parse(&text) {
            prop_assert!(bounded(&e.message));
        }
    }

    #[test]
    fn json_like_text_is_parsed_or_refused_with_a_bounded_message(
        text in "[\\[\\]{}\",:0-9a-z_. e+-]{0,300}"
    ) {
        match scenario::parse(&text) {
            Ok(s) => { let _ = s.validate(); }
            Err(e) => prop_assert!(bounded(&e.message)),
        }
    }

    #[test]
    fn link_decoding_never_panics(payload in "[A-Za-z0-9_-]{0,600}") {
        let _ = decode_link(&format!("s1.{payload}"));
    }
}

proptest! {
    #![proptest_config(config(24))]

    /// Titles from empty to beyond what a link carries, compressible or not: every link
    /// made opens to the same scenario, and a refusal is exactly a link decode refuses.
    #[test]
    fn every_link_encode_gives_opens_and_refusals_match_decoding(
        len in prop_oneof![0usize..2000, 200_000usize..1_200_000],
        seed in any::<u64>(),
        repetitive in any::<bool>(),
    ) {
        let mut s: Scenario = scenario::presets()[0].scenario.clone();
        let mut x = seed | 1;
        s.title = (0..len)
            .map(|_| {
                x ^= x << 13; x ^= x >> 7; x ^= x << 17;
                if repetitive { 'a' } else { char::from(b'!' + (x % 90) as u8) }
            })
            .collect();
        match encode_link(&s) {
            Ok(link) => prop_assert_eq!(decode_link(&link).expect("a made link opens"), s),
            Err(e) => {
                prop_assert!(e.message.contains("link"), "{}", e);
                // What decode would get: the same scenario's JSON is beyond a link's limits.
                let json = serde_json::to_string(&s).unwrap();
                prop_assert!(json.len() > scenario::MAX_LINK_JSON_BYTES || len > 100_000);
            }
        }
    }
}

/// Tokens of the equation language, so random sources reach the checker, not only the lexer.
fn source_token() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "state ",
        "output ",
        "input ",
        "parameter ",
        "x",
        "y",
        "v",
        "time",
        "pi",
        "tme",
        "der(",
        "sin(",
        "sinn(",
        ")",
        "(",
        " = ",
        "+",
        "-",
        "*",
        "/",
        "^",
        "1",
        "2.5e3",
        "1e999",
        "\n",
        " ",
        ",",
        "\"m\"",
    ])
}

proptest! {
    #![proptest_config(config(512))]

    #[test]
    fn the_equation_parser_never_panics_and_never_suggests_the_name_itself(
        tokens in prop::collection::vec(source_token(), 0..60)
    ) {
        let source: String = tokens.concat();
        if let Err(e) = describe_equations(&source) {
            let m = e.message.as_str();
            prop_assert!(bounded(m));
            // "unknown … `a`; did you mean `b`?" never has a == b.
            if let Some((head, tail)) = m.split_once("; did you mean `") {
                let unknown = head.rsplit('`').nth(1).unwrap_or("");
                let suggestion = tail.split('`').next().unwrap_or("");
                prop_assert_ne!(unknown, suggestion, "{}", m);
            }
        }
    }
}
