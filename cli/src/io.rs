//! Bounded input and careful output: files and standard input are read up to a size limit
//! (so `/dev/zero` cannot fill memory), standard output that is closed (`| head -1`) or
//! full ends the command with a non-zero status instead of a panic, standard error is
//! written without ever panicking, and `--out` may not name an input file.

use std::fmt;
use std::fs::File;
use std::io::{self, BufWriter, Read, Write};
use std::path::Path;

/// Why a command failed: a message for standard error, or nothing to add (standard output
/// was closed by its reader: the usual end of `cosim … | head`).
#[derive(Debug)]
pub enum Failure {
    Message(String),
    OutputClosed,
}

impl From<String> for Failure {
    fn from(m: String) -> Self {
        Failure::Message(m)
    }
}

impl From<&str> for Failure {
    fn from(m: &str) -> Self {
        Failure::Message(m.to_string())
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Message(m) => f.write_str(m),
            Failure::OutputClosed => f.write_str("standard output was closed"),
        }
    }
}

/// A write error on `what` as a [`Failure`] (quiet for a closed pipe).
pub fn write_failure(what: &str, e: io::Error) -> Failure {
    match e.kind() {
        io::ErrorKind::BrokenPipe => Failure::OutputClosed,
        _ => Failure::Message(format!("cannot write to {what}: {e}")),
    }
}

/// Writes to standard error, ignoring failures (there is nowhere left to report them).
pub fn note(text: &str) {
    let mut e = io::stderr().lock();
    let _ = e.write_all(text.as_bytes());
    let _ = e.flush();
}

/// Where a command's result goes: a file (`--out`) or standard output, buffered.
pub struct Output {
    sink: BufWriter<Box<dyn Write>>,
    what: String,
}

impl Output {
    /// Standard output.
    pub fn stdout() -> Output {
        Output {
            sink: BufWriter::with_capacity(1 << 16, Box::new(io::stdout())),
            what: "standard output".into(),
        }
    }

    /// `file` (created or truncated), or standard output for `None`.
    pub fn to(file: Option<&Path>) -> Result<Output, Failure> {
        match file {
            None => Ok(Output::stdout()),
            Some(p) => {
                let f =
                    File::create(p).map_err(|e| format!("cannot write {}: {e}", p.display()))?;
                Ok(Output {
                    sink: BufWriter::with_capacity(1 << 16, Box::new(f)),
                    what: p.display().to_string(),
                })
            }
        }
    }

    /// Writes `text`.
    pub fn write(&mut self, text: &str) -> Result<(), Failure> {
        self.sink
            .write_all(text.as_bytes())
            .map_err(|e| write_failure(&self.what, e))
    }

    /// Writes `text` and a newline.
    pub fn line(&mut self, text: &str) -> Result<(), Failure> {
        self.write(text)?;
        self.write("\n")
    }

    /// Flushes what is buffered (also on a closed pipe, reported as such).
    pub fn finish(mut self) -> Result<(), Failure> {
        self.sink.flush().map_err(|e| write_failure(&self.what, e))
    }
}

/// Reads `path` (or standard input for `-`) as bytes, refusing more than `limit` bytes
/// without reading further.
pub fn read_bytes(path: &Path, limit: usize, what: &str) -> Result<Vec<u8>, Failure> {
    let name = if path.as_os_str() == "-" {
        "standard input".to_string()
    } else {
        path.display().to_string()
    };
    let too_big = || {
        Failure::Message(format!(
            "{name}: the {what} is larger than the limit of {limit} bytes"
        ))
    };
    let source: Box<dyn Read> = if path.as_os_str() == "-" {
        Box::new(io::stdin())
    } else {
        let f = File::open(path).map_err(|e| format!("cannot read {name}: {e}"))?;
        // Regular files say their size: refuse without reading.
        if f.metadata()
            .map(|m| m.len() > limit as u64)
            .unwrap_or(false)
        {
            return Err(too_big());
        }
        Box::new(f)
    };
    let mut bytes = Vec::new();
    source
        .take(limit as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read {name}: {e}"))?;
    if bytes.len() > limit {
        return Err(too_big());
    }
    Ok(bytes)
}

/// As [`read_bytes`], as UTF-8 text.
pub fn read_text(path: &Path, limit: usize, what: &str) -> Result<String, Failure> {
    let bytes = read_bytes(path, limit, what)?;
    String::from_utf8(bytes).map_err(|e| {
        Failure::Message(format!(
            "{}: the {what} is not UTF-8 text (invalid byte at offset {})",
            path.display(),
            e.utf8_error().valid_up_to()
        ))
    })
}

/// Refuses an `--out` file that is the input `input` (it would be overwritten before or
/// while it is read).
pub fn refuse_same_file(input: &Path, out: Option<&Path>) -> Result<(), Failure> {
    let Some(out) = out else { return Ok(()) };
    if input.as_os_str() == "-" {
        return Ok(());
    }
    let same = match (input.canonicalize(), out.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        // `out` does not exist yet: it cannot be the input.
        _ => false,
    };
    // Hard links name one file under two paths.
    #[cfg(unix)]
    let same = same || {
        use std::os::unix::fs::MetadataExt;
        match (std::fs::metadata(input), std::fs::metadata(out)) {
            (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
            _ => false,
        }
    };
    if same {
        return Err(Failure::Message(format!(
            "--out {} is the input file; choose another file so the scenario is not overwritten",
            out.display()
        )));
    }
    Ok(())
}
