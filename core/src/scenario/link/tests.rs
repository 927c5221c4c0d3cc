//! Link round trips for every preset, one test per failure the decoder names, and a
//! deterministic fuzz run (xorshift) showing that random text, truncated links and
//! single-character tamperings give errors (or the identical scenario), never a panic.

use super::*;
use crate::scenario::presets;
use alloc::string::ToString;
use alloc::vec;

#[test]
fn every_preset_survives_a_round_trip() {
    for p in presets() {
        let link = encode_link(&p.scenario).expect("a preset makes a link");
        assert!(link.starts_with("s1."), "{link}");
        assert!(
            link.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b)),
            "{link}"
        );
        let back = decode_link(&link).unwrap_or_else(|e| panic!("{}: {e}", p.id));
        assert_eq!(back, p.scenario, "{}", p.id);
        // Deterministic: the same scenario always gives the same link.
        assert_eq!(encode_link(&back).expect("links again"), link, "{}", p.id);
        // A whole URL or a fragment opens the same scenario.
        let url = alloc::format!("https://example.org/cosim/#{link}");
        assert_eq!(decode_link(&url).unwrap(), p.scenario);
        assert_eq!(decode_link(&alloc::format!("#{link}")).unwrap(), p.scenario);
    }
}

fn message(link: &str) -> String {
    decode_link(link).unwrap_err().to_string()
}

/// Deflate ‖ CRC-32 of arbitrary bytes.
fn pack(bytes: &[u8]) -> Vec<u8> {
    let mut packed = miniz_oxide::deflate::compress_to_vec(bytes, 6);
    packed.extend_from_slice(&crc32(bytes).to_le_bytes());
    packed
}

/// An `s1` link around already packed bytes.
fn link_of(packed: &[u8]) -> String {
    let mut s = String::from("s1.");
    URL_SAFE_NO_PAD.encode_string(packed, &mut s);
    s
}

/// A valid `s1` link around arbitrary bytes (which need not be a scenario).
fn wrap(bytes: &[u8]) -> String {
    link_of(&pack(bytes))
}

#[test]
fn crc32_matches_the_standard_check_value() {
    // The check value of CRC-32/ISO-HDLC for "123456789".
    assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
}

#[test]
fn each_failure_has_its_own_message() {
    let good = encode_link(&presets()[0].scenario).expect("links");
    assert!(message("").contains("not a scenario link"));
    assert!(message("https://example.org/").contains("not a scenario link"));
    assert!(message("#preset=two-mass").contains("not a scenario link"));
    assert!(message("s1.").contains("cut short"));
    assert!(message(&good.replacen("s1.", "s2.", 1)).contains("`s2` is not supported"));
    let bad_char = alloc::format!("{}*{}", &good[..10], &good[11..]);
    assert!(
        message(&bad_char).contains("character 8 (`*`)"),
        "{}",
        message(&bad_char)
    );
    assert!(
        message(&alloc::format!("{good}==")).contains("damaged"),
        "{}",
        message(&alloc::format!("{good}=="))
    );
    assert!(
        message(&good[..good.len() - 6]).contains("truncated"),
        "{}",
        message(&good[..good.len() - 6])
    );
    assert!(
        message(&good[..40]).contains("truncated"),
        "{}",
        message(&good[..40])
    );
    // Standard base64 characters are not base64url.
    assert!(
        message(&good.replace('-', "+").replace('_', "/")).contains("damaged")
            || !good.contains(['-', '_'])
    );
}

#[test]
fn wrong_content_is_reported() {
    assert!(message(&wrap(b"not json")).contains("malformed JSON"));
    assert!(message(&wrap(&[0xff, 0xfe, 0x00])).contains("not UTF-8"));
    let e = decode_link(&wrap(br#"{"schema_version":1,"modules":[],"connections":[],"master":{"algorithm":"jacobi","macro_step":"x"},"run":{"stop":1}}"#))
        .unwrap_err();
    assert_eq!(
        e.path, "master.macro_step",
        "JSON errors inside a link still name the field"
    );
    // Bytes after the CRC.
    let mut packed = pack(b"{}");
    packed.push(0);
    assert!(
        message(&link_of(&packed)).contains("after the end"),
        "{}",
        message(&link_of(&packed))
    );
    // A changed CRC.
    let mut packed = pack(b"{}");
    let n = packed.len();
    packed[n - 1] ^= 1;
    assert!(
        message(&link_of(&packed)).contains("checksum"),
        "{}",
        message(&link_of(&packed))
    );
    // The CRC cut off.
    let packed = pack(b"{}");
    assert!(message(&link_of(&packed[..packed.len() - 2])).contains("truncated"));
}

#[test]
fn size_limits_hold() {
    // 4 MiB of spaces deflate to a few KiB: a small link that must not inflate fully.
    let bomb = wrap(&vec![b' '; 4 << 20]);
    assert!(bomb.len() < 20_000, "{}", bomb.len());
    assert!(message(&bomb).contains("too large"), "{}", message(&bomb));
    let long = alloc::format!("s1.{}", "A".repeat(MAX_LINK_CHARS + 1));
    assert!(message(&long).contains("too long"));
    // Just under the inflated limit is fine as far as the link layer goes.
    let mut doc = vec![b' '; MAX_LINK_JSON_BYTES - 2];
    doc.extend_from_slice(b"{}");
    assert!(decode_link_json(&wrap(&doc)).is_ok());
}

/// Marsaglia's xorshift64: reproducible pseudo-random numbers without a dependency.
struct XorShift(u64);
impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const URL_SAFE: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

#[test]
fn fuzz_random_text_gives_errors_not_panics() {
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
    for i in 0..4000 {
        let len = rng.below(200);
        let bytes: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        let text = String::from_utf8_lossy(&bytes);
        assert!(decode_link(&text).is_err());
        // Random payloads in the link alphabet, which get past the base64 layer.
        let payload: String = (0..len)
            .map(|_| char::from(URL_SAFE[rng.below(64)]))
            .collect();
        let r = decode_link(&alloc::format!("s1.{payload}"));
        assert!(
            r.is_err(),
            "random payload {i} decoded to a scenario: {payload}"
        );
        // Random bytes that pass base64 and reach the inflater.
        let mut link = String::from("s1.");
        URL_SAFE_NO_PAD.encode_string(&bytes, &mut link);
        assert!(decode_link(&link).is_err());
    }
}

#[test]
fn fuzz_truncated_and_tampered_links_give_errors_not_panics() {
    let mut rng = XorShift(0x2545_F491_4F6C_DD1D);
    for p in presets() {
        let link = encode_link(&p.scenario).expect("a preset makes a link");
        // Every truncation fails: the CRC comes last.
        for end in 0..link.len() {
            assert!(
                decode_link(&link[..end]).is_err(),
                "{} cut at {end} opened",
                p.id
            );
        }
        // Single-character tamperings: an error, or (when only unused bits changed) the
        // identical scenario; never a different one.
        for _ in 0..1500 {
            let mut bytes = link.clone().into_bytes();
            let at = 3 + rng.below(bytes.len() - 3);
            let replacement = if rng.below(4) == 0 {
                rng.next() as u8
            } else {
                URL_SAFE[rng.below(64)]
            };
            if bytes[at] == replacement {
                continue;
            }
            bytes[at] = replacement;
            let text = String::from_utf8_lossy(&bytes);
            if let Ok(s) = decode_link(&text) {
                assert_eq!(
                    s, p.scenario,
                    "{}: tampering at {at} opened a different scenario",
                    p.id
                );
            }
        }
    }
}

/// A fixed document and its link, written down once: the same bytes must come out on
/// every platform and build (`wasm/tests/link_in_browser.rs` checks the same pair in
/// Chromium), so a link made in the page and one made by the CLI are interchangeable.
/// If a deliberate change of the encoder alters it, old links must still decode: keep the
/// old string in a decode test.
const GOLDEN_DOC: &str = r#"{"schema_version":1,"title":"golden","modules":[{"name":"m","model":"TwoMassOscillator.Mass1","parameters":{"m1":2.5}}],"connections":[],"master":{"algorithm":"jacobi","macro_step":0.001},"run":{"stop":1}}"#;
const GOLDEN_LINK: &str = "s1.JU9LTsQwDL2L11XVIrHJHRAbdghVJvFMg5K4OA6MVPXu47Q7-_n9vEP1K2Vc_khq5AJuHkCjJgIHd06BCgwQqHqJm54EMCBzaIkquM8dCuZOzhdMyeaPf37DWt-rjymhsox9nY2xoRhdLQzcDnkG9zK-HgNUTtbgxEhXDmYS6IYtKRzH1wCeSyHfC_RQAzJWvQSY7ixR12yaH_T8HXsT9MKLUTZw0zhN9hU9VHBj62MuC0vo8smi6bdR8XT5VkXRpZkMrOnWJ6snrfSo83gadiIbaR6nfqYbyeWh0sjeTKzd73gCRMynBQ";

#[test]
fn golden_link_is_stable() {
    let s = parse(GOLDEN_DOC).unwrap();
    assert_eq!(encode_link(&s).expect("links"), GOLDEN_LINK);
    assert_eq!(decode_link(GOLDEN_LINK).unwrap(), s);
}
