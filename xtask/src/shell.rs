//! Running external programs: echo each command, check its status, time out the ones
//! that may hang (rustup's download server is unreachable on some machines).
use std::env;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

/// xtask errors are messages for a person; there is nothing to match on.
pub type Result<T> = std::result::Result<T, String>;

/// The workspace root (the parent of `xtask/`).
pub fn repo_root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().unwrap_or(manifest).to_path_buf()
}

/// The cargo that started us (rustup's proxy sets `CARGO`), so nested builds use the same toolchain.
pub fn cargo() -> Command {
    Command::new(env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

/// A command line as a person would type it, with the environment variables we set.
pub fn show(cmd: &Command) -> String {
    let mut s = String::new();
    for (k, v) in cmd.get_envs() {
        if let Some(v) = v {
            s.push_str(&format!("{}={} ", k.to_string_lossy(), v.to_string_lossy()));
        }
    }
    s.push_str(&cmd.get_program().to_string_lossy());
    for a in cmd.get_args() {
        let a = a.to_string_lossy();
        if a.contains(' ') {
            s.push_str(&format!(" '{a}'"));
        } else {
            s.push(' ');
            s.push_str(&a);
        }
    }
    s
}

/// The program's file name and its first few arguments, for one-line summaries.
pub fn short(cmd: &Command) -> String {
    let program = Path::new(cmd.get_program())
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    let args: Vec<String> = cmd
        .get_args()
        .take(4)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let more = if cmd.get_args().count() > 4 {
        " ..."
    } else {
        ""
    };
    format!("{program} {}{more}", args.join(" "))
}

/// Runs a command with inherited stdio; an error if it cannot start or exits non-zero.
pub fn run(cmd: &mut Command) -> Result<()> {
    println!("$ {}", show(cmd));
    let status = cmd
        .status()
        .map_err(|e| format!("cannot start `{}`: {e}", show(cmd)))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`{}` failed ({status})", short(cmd)))
    }
}

/// Runs a command quietly and returns its stdout, or an error with its stderr.
pub fn output(cmd: &mut Command) -> Result<String> {
    let out = cmd
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot start `{}`: {e}", show(cmd)))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(format!(
            "`{}` failed ({}): {}",
            show(cmd),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// Runs a command, killing it after `limit`. `Ok(true)` if it finished successfully in time.
pub fn run_with_timeout(cmd: &mut Command, limit: Duration) -> Result<bool> {
    println!("$ {}   (time limit {} s)", show(cmd), limit.as_secs());
    let mut child = cmd
        .stdin(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start `{}`: {e}", show(cmd)))?;
    let start = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Ok(status.success()),
            Ok(None) if start.elapsed() >= limit => {
                // Killing only our own child; it may leave a partial download behind, which
                // the next attempt overwrites.
                let _ = child.kill();
                let _ = child.wait();
                println!("   ... gave up after {} s", limit.as_secs());
                return Ok(false);
            }
            Ok(None) => thread::sleep(Duration::from_millis(200)),
            Err(e) => return Err(format!("waiting for `{}`: {e}", show(cmd))),
        }
    }
}

/// Finds an executable on `PATH` (and in `~/.cargo/bin`, where `cargo install` puts tools
/// even when a non-login shell has not added it to `PATH`).
pub fn which(name: &str) -> Option<PathBuf> {
    if name.contains('/') {
        let p = PathBuf::from(name);
        return is_executable(&p).then_some(p);
    }
    let mut dirs: Vec<PathBuf> = env::var_os("PATH")
        .map(|p| env::split_paths(&p).collect())
        .unwrap_or_default();
    if let Some(home) = env::var_os("CARGO_HOME") {
        dirs.push(PathBuf::from(home).join("bin"));
    }
    if let Some(home) = env::var_os("HOME") {
        dirs.push(PathBuf::from(home).join(".cargo/bin"));
    }
    dirs.into_iter()
        .map(|d| d.join(name))
        .find(|p| is_executable(p))
}

fn is_executable(p: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        p.metadata()
            .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
            .unwrap_or(false)
    }
    #[cfg(not(unix))]
    {
        p.is_file()
    }
}

/// Whether we run as root (apt-get needs it; CI runs as root).
pub fn is_root() -> bool {
    output(Command::new("id").arg("-u"))
        .map(|s| s.trim() == "0")
        .unwrap_or(false)
}

/// Prints a section header so long logs are easy to scan.
pub fn section(title: &str) {
    println!("\n==> {title}");
}

/// `1m 05s` / `12.3 s` for log lines.
pub fn fmt_duration(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s >= 60.0 {
        format!("{}m {:02}s", (s / 60.0) as u64, (s % 60.0) as u64)
    } else {
        format!("{s:.1} s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hanging_command_is_killed_at_the_limit() {
        // `sleep 30` would succeed if it were left to finish; Ok(false) means it was killed.
        let ok = run_with_timeout(Command::new("sleep").arg("30"), Duration::from_millis(300));
        assert_eq!(ok, Ok(false));
        assert_eq!(
            run_with_timeout(&mut Command::new("true"), Duration::from_secs(10)),
            Ok(true)
        );
    }
}
