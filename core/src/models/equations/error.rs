//! Source positions ([`Span`]) and the error every stage of the equation compiler returns
//! ([`SourceError`]): a 1-based line and column and a message, shown as
//! `line 9, column 17: unknown name `Fx`; did you mean `Fk`?`.

use alloc::string::String;
use core::fmt;
use serde::Serialize;

/// A byte range `start..end` of the source text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Span {
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Self {
        Span { start, end }
    }

    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }
}

/// A parse or check error of an equation module, at a 1-based line and column (columns
/// count characters, not bytes).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SourceError {
    /// Line, starting at 1.
    pub line: u32,
    /// Column in characters, starting at 1.
    pub column: u32,
    /// What is wrong, in one sentence.
    pub message: String,
}

impl SourceError {
    /// An error at byte offset `at` of `source` (clamped to the source length).
    pub(crate) fn at(source: &str, at: usize, message: impl Into<String>) -> Self {
        let (line, column) = line_column(source, at);
        SourceError {
            line,
            column,
            message: message.into(),
        }
    }
}

impl fmt::Display for SourceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}, column {}: {}",
            self.line, self.column, self.message
        )
    }
}

#[cfg(feature = "std")]
impl std::error::Error for SourceError {}

/// 1-based line and character column of byte offset `at`.
pub(crate) fn line_column(source: &str, at: usize) -> (u32, u32) {
    let mut at = at.min(source.len());
    while !source.is_char_boundary(at) {
        at -= 1;
    }
    let before = &source[..at];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before[line_start..].chars().count() + 1;
    (line as u32, column as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_columns_are_one_based_and_count_characters() {
        let src = "ab\nµx = 1\n";
        assert_eq!(line_column(src, 0), (1, 1));
        assert_eq!(line_column(src, 3), (2, 1));
        // `x` follows the two-byte `µ`: column 2, not 3.
        assert_eq!(line_column(src, 5), (2, 2));
        assert_eq!(line_column(src, 999), (3, 1));
    }
}
