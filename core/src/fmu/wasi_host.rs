//! [`WasiHost`]: what the WASI imports of one binary-module instance remember between
//! calls (the bounded module log, the random sequence, the resource files and open
//! descriptors, a refused write), whichever engine runs the module.

use super::wasi_fs::ResourceTree;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// Host-side state the imports see.
pub struct WasiHost {
    log: String,
    max_log: usize,
    pub(super) rng: u64,
    /// The `.fmu`'s `resources/` folder and the files the module opened.
    pub(super) fs: ResourceTree,
    /// A write the module attempted during the current call (it fails the call).
    refused: Option<String>,
}

impl WasiHost {
    /// A host whose log keeps its last `max_log` bytes, with `fs` as the module's files.
    pub fn new(max_log: usize, fs: ResourceTree) -> Self {
        WasiHost {
            log: String::new(),
            max_log,
            rng: 0x9E37_79B9_7F4A_7C15,
            fs,
            refused: None,
        }
    }

    /// Bytes of log kept.
    pub(super) fn max_log(&self) -> usize {
        self.max_log
    }

    /// Records a refused write; the FMI call in progress then fails with `message`.
    pub(super) fn refuse(&mut self, message: String) {
        self.append(&format!("[host] {message}\n"));
        self.refused.get_or_insert(message);
    }

    /// The refused write of the call that just ended, if any (and forgets it).
    pub fn take_refused(&mut self) -> Option<String> {
        self.refused.take()
    }

    /// Whether a refused write waits to be taken (a test engine stops a sequence there).
    #[cfg(test)]
    pub(super) fn refusal_pending(&self) -> bool {
        self.refused.is_some()
    }

    pub(super) fn append(&mut self, text: &str) {
        self.log.push_str(text);
        if self.log.len() > self.max_log {
            let mut cut = self.log.len() - self.max_log;
            while !self.log.is_char_boundary(cut) {
                cut += 1;
            }
            self.log.drain(..cut);
        }
    }

    /// Everything the module logged so far (bounded).
    pub fn log(&self) -> &str {
        &self.log
    }

    /// The last `n` lines of the log, joined with ` | `.
    pub fn log_tail(&self, n: usize) -> String {
        let lines: Vec<&str> = self.log.lines().filter(|l| !l.trim().is_empty()).collect();
        lines[lines.len().saturating_sub(n)..].join(" | ")
    }
}
