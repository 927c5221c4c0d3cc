//! The `cosim` binary against hostile use (issue 16): closed or full standard output,
//! non-UTF-8 arguments, `--out` naming the input, endless input, links `encode` makes but
//! `decode` refuses, a convergence study listing 200,000 orders, and Ctrl-C mid-run. Each
//! ends with a clear message (or quietly for a closed pipe), never a panic.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

fn cosim() -> Command {
    Command::new(env!("CARGO_BIN_EXE_cosim"))
}

fn run(args: &[&str]) -> Output {
    cosim().args(args).output().expect("cosim runs")
}

fn dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("cosim-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn preset_file(name: &str, change: impl FnOnce(&mut serde_json::Value)) -> PathBuf {
    let out = run(&["preset", "two-mass-oscillator"]);
    let mut doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    change(&mut doc);
    let p = dir().join(name);
    std::fs::write(&p, doc.to_string()).unwrap();
    p
}

fn no_panic(out: &Output) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(!stderr.contains("panicked"), "{stderr}");
    stderr
}

#[test]
fn a_closed_standard_output_ends_quietly_with_a_failure_status() {
    let s = preset_file("closed.json", |_| {});
    let mut child = cosim()
        .args(["run", s.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Read one line, then close the pipe, as `| head -1` does.
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.starts_with("time,"), "{first}");
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(no_panic(&out), "", "a closed pipe needs no message");
}

#[test]
fn a_full_standard_output_is_an_error_not_a_panic() {
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        return; // not on this system
    };
    for args in [
        &["presets"][..],
        &["preset", "two-mass-oscillator"],
        &["help"],
    ] {
        let out = cosim()
            .args(args)
            .stdout(full.try_clone().unwrap())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert!(no_panic(&out).contains("cannot write to standard output"));
    }
}

#[cfg(unix)]
#[test]
fn a_non_utf8_argument_is_named_not_a_panic() {
    use std::os::unix::ffi::OsStrExt;
    let arg = std::ffi::OsStr::from_bytes(b"s\xff.json");
    let out = cosim().arg("validate").arg(arg).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(no_panic(&out).contains("argument 2"), "{:?}", out);
}

#[test]
fn out_may_not_overwrite_the_scenario() {
    let s = preset_file("same.json", |_| {});
    let before = std::fs::read(&s).unwrap();
    let also = dir().join("./same.json");
    for cmd in ["run", "convergence"] {
        let out = run(&[cmd, s.to_str().unwrap(), "--out", also.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(1));
        assert!(no_panic(&out).contains("is the input file"));
    }
    #[cfg(unix)]
    {
        let link = dir().join("hard-link.json");
        let _ = std::fs::remove_file(&link);
        std::fs::hard_link(&s, &link).unwrap();
        let out = run(&["run", s.to_str().unwrap(), "--out", link.to_str().unwrap()]);
        assert!(no_panic(&out).contains("is the input file"));
    }
    assert_eq!(std::fs::read(&s).unwrap(), before, "the scenario is intact");
}

#[test]
fn endless_input_is_cut_at_the_limit() {
    // More than any limit, fed until cosim stops reading.
    for args in [
        &["validate", "-"][..],
        &["link", "decode", "-"],
        &["link", "encode", "-"],
    ] {
        let mut child = cosim()
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let chunk = vec![b' '; 1 << 16];
        let mut fed = 0usize;
        // Stops when cosim closes its end (it refused) or after 64 MiB.
        while fed < 64 << 20 && stdin.write_all(&chunk).is_ok() {
            fed += chunk.len();
        }
        drop(stdin);
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert!(no_panic(&out).contains("larger than the limit"), "{args:?}");
        assert!(fed < 64 << 20, "{args:?}: read {fed} bytes");
    }
    if std::path::Path::new("/dev/zero").exists() {
        let out = run(&["validate", "/dev/zero"]);
        assert!(no_panic(&out).contains("larger than the limit"));
    }
}

#[test]
fn a_huge_fmu_file_is_refused_without_being_read() {
    // 1 GiB that takes no disk (sparse): refused from its size.
    let fmu = dir().join("huge.fmu");
    let f = std::fs::File::create(&fmu).unwrap();
    f.set_len(1 << 30).unwrap();
    let s = preset_file("huge-fmu.json", |d| {
        d["modules"][0] =
            serde_json::json!({"name": "mass1", "model": "Binary", "source": "huge.fmu"});
    });
    let out = run(&["validate", s.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = no_panic(&out);
    assert!(
        stderr.contains("larger than the limit of 67108864 bytes"),
        "{stderr}"
    );
    let _ = std::fs::remove_file(&fmu);
}

#[test]
fn link_encode_refuses_what_decode_would_refuse() {
    // An incompressible title of 600 KB: within a scenario file, beyond a link.
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let title: String = (0..600_000)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            char::from(b'!' + (x % 90) as u8)
        })
        .collect();
    let s = preset_file("long-title.json", |d| d["title"] = title.into());
    let out = run(&["link", "encode", s.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(no_panic(&out).contains("share the scenario file instead"));
    // A scenario that links at all decodes again.
    let s = preset_file("short.json", |_| {});
    let link = run(&["link", "encode", s.to_str().unwrap()]);
    assert!(link.status.success());
    let back = run(&[
        "link",
        "decode",
        String::from_utf8_lossy(&link.stdout).trim(),
    ]);
    assert!(back.status.success(), "{}", no_panic(&back));
}

#[test]
fn a_convergence_study_listing_200000_orders_runs_on_a_bounded_pool() {
    let s = preset_file("orders.json", |d| {
        d["analysis"] = serde_json::json!({"view": "convergence",
            "orders": vec![1; 200_000], "macro_steps": [1e-3, 5e-4]});
    });
    let out = run(&["convergence", s.to_str().unwrap()]);
    let stderr = no_panic(&out);
    assert!(out.status.success(), "{stderr}");
    // One curve per distinct order, with and without correction: two, not 400,000.
    let csv = String::from_utf8_lossy(&out.stdout);
    assert_eq!(csv.lines().count(), 1 + 2 * 2, "{csv}");
}

#[cfg(unix)]
#[test]
fn ctrl_c_ends_a_run_cleanly_with_what_was_computed() {
    // 2 million macro-steps: far longer than the test waits.
    let s = preset_file("long.json", |d| {
        d["master"]["macro_step"] = 5e-6.into();
        d["run"]["stop"] = 10.0.into();
        d["master"]["start_up"] = "ramp_up".into();
        d["reference"] = false.into();
    });
    let mut child = cosim()
        .args(["run", s.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut header = String::new();
    stdout.read_line(&mut header).unwrap();
    let mut row = String::new();
    // Rows arrive while the run goes on (streamed, not kept to the end).
    stdout.read_line(&mut row).unwrap();
    assert!(row.starts_with("0e0,"), "{row}");
    let kill = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let mut rest = String::new();
    stdout.read_to_string(&mut rest).unwrap();
    let out = child.wait_with_output().unwrap();
    let stderr = no_panic(&out);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("interrupted at t ="), "{stderr}");
    let rows = 1 + rest.lines().count();
    assert!(rows < 2_000_001, "stopped before the end: {rows} rows");
    // Every row written is whole.
    let columns = header.split(',').count();
    assert!(rest.lines().all(|l| l.split(',').count() == columns));
}

#[cfg(unix)]
#[test]
fn ctrl_c_ends_a_convergence_study_cleanly_with_what_was_computed() {
    // 10,000 (order, macro-step) pairs of 10^5 macro-steps: far longer than the test waits.
    let s = preset_file("long_convergence.json", |d| {
        d["run"]["stop"] = 10.0.into();
        d["analysis"] = serde_json::json!({"view": "convergence",
            "orders": [0, 1, 2, 3, 4], "macro_steps": vec![1e-4; 1000]});
    });
    let child = cosim()
        .args(["convergence", s.to_str().unwrap()])
        .args(["--max-convergence-steps", "1e12"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Nothing is printed before the end, so the only sign that Ctrl-C is being handled is
    // time: two seconds is far longer than reading the scenario (milliseconds).
    std::thread::sleep(std::time::Duration::from_secs(2));
    let kill = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let out = child.wait_with_output().unwrap();
    let stderr = no_panic(&out);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(
        stderr.contains("interrupted: the CSV holds the"),
        "{stderr}"
    );
    let csv = String::from_utf8_lossy(&out.stdout);
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("order,corrected,macro_step,local_error,spectral_radius,status")
    );
    let rows: Vec<&str> = lines.collect();
    assert!(
        rows.len() < 10_000,
        "stopped before the end: {} rows",
        rows.len()
    );
    // Every row written is whole.
    assert!(rows.iter().all(|l| l.split(',').count() == 6), "{csv}");
}
