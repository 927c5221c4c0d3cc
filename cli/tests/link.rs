//! `cosim link encode|decode` end to end: every preset round-trips through a link, a URL
//! prefix is accepted on both sides, and a damaged link or a malformed scenario fails with
//! exit status 1 and a message saying what is wrong.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn cosim(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_cosim"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cosim runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin.as_bytes())
        .expect("stdin written");
    child.wait_with_output().expect("cosim finishes")
}

fn text(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

#[test]
fn every_preset_round_trips_through_a_link() {
    let list = cosim(&["presets"], "");
    let ids: Vec<String> = text(&list)
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(String::from))
        .collect();
    assert!(!ids.is_empty());
    for id in ids {
        let doc = text(&cosim(&["preset", &id], ""));
        let link = cosim(
            &[
                "link",
                "encode",
                "-",
                "--base",
                "https://example.org/cosim/",
            ],
            &doc,
        );
        assert!(
            link.status.success(),
            "{id}: {}",
            String::from_utf8_lossy(&link.stderr)
        );
        let link = text(&link);
        assert!(link.starts_with("https://example.org/cosim/#s1."), "{link}");
        let back = cosim(&["link", "decode", &link], "");
        assert!(
            back.status.success(),
            "{id}: {}",
            String::from_utf8_lossy(&back.stderr)
        );
        let a: serde_json::Value = serde_json::from_str(&doc).expect("preset JSON");
        let b: serde_json::Value = serde_json::from_str(&text(&back)).expect("decoded JSON");
        assert_eq!(a, b, "{id}");
        // From standard input, too.
        let again = cosim(&["link", "decode", "-"], &format!("{link}\n"));
        assert_eq!(text(&again), text(&back), "{id}");
    }
}

#[test]
fn bad_links_and_invalid_scenarios_fail_clearly() {
    let out = cosim(&["link", "decode", "s1.AAAA"], "");
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("error: the link is"),
        "{out:?}"
    );

    let out = cosim(&["link", "decode", "https://example.org/"], "");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a scenario link"));

    let doc = text(&cosim(&["preset", "two-mass-oscillator"], ""));
    let bad = doc.replacen("\"macro_step\": 0.0001", "\"macro_step\": \"fast\"", 1);
    assert_ne!(bad, doc);
    let out = cosim(&["link", "encode", "-"], &bad);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("master.macro_step"),
        "{out:?}"
    );

    let out = cosim(&["link", "frobnicate"], "");
    assert_eq!(out.status.code(), Some(2));
}
