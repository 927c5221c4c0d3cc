//! Tokens of the equation language: identifiers, numbers (`1`, `2.5`, `.5`, `1e6`,
//! `1.5E-3`), unit strings (`"N/m"`), `( ) , = + - * / ^`, and line ends (`;` counts as a
//! line end). `//` starts a comment that runs to the end of the line.

use super::error::{SourceError, Span};
use alloc::format;
use alloc::vec::Vec;

/// Kind of a token; identifier and string texts are read back from the source by span.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Tok {
    Ident,
    Number(f64),
    /// A quoted string; the span includes the quotes.
    Str,
    LParen,
    RParen,
    Comma,
    Eq,
    Plus,
    Minus,
    Star,
    Slash,
    Caret,
    /// End of a line (or `;`).
    Newline,
    Eof,
}

/// A token and where it is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Token {
    pub tok: Tok,
    pub span: Span,
}

impl Tok {
    /// How the token is named in "expected ..., found ..." messages.
    pub fn describe(self) -> &'static str {
        match self {
            Tok::Ident => "a name",
            Tok::Number(_) => "a number",
            Tok::Str => "a unit string",
            Tok::LParen => "`(`",
            Tok::RParen => "`)`",
            Tok::Comma => "`,`",
            Tok::Eq => "`=`",
            Tok::Plus => "`+`",
            Tok::Minus => "`-`",
            Tok::Star => "`*`",
            Tok::Slash => "`/`",
            Tok::Caret => "`^`",
            Tok::Newline => "the end of the line",
            Tok::Eof => "the end of the source",
        }
    }
}

/// All tokens of `src`, ending with [`Tok::Eof`]; the first malformed token is an error.
pub(crate) fn lex(src: &str) -> Result<Vec<Token>, SourceError> {
    let bytes = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let start = i;
        let single = match c {
            b'(' => Some(Tok::LParen),
            b')' => Some(Tok::RParen),
            b',' => Some(Tok::Comma),
            b'=' => Some(Tok::Eq),
            b'+' => Some(Tok::Plus),
            b'-' => Some(Tok::Minus),
            b'*' => Some(Tok::Star),
            b'^' => Some(Tok::Caret),
            b'\n' | b';' => Some(Tok::Newline),
            _ => None,
        };
        if let Some(tok) = single {
            out.push(Token {
                tok,
                span: Span::new(start, start + 1),
            });
            i += 1;
            continue;
        }
        match c {
            b' ' | b'\t' | b'\r' => i += 1,
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' => {
                out.push(Token {
                    tok: Tok::Slash,
                    span: Span::new(start, start + 1),
                });
                i += 1;
            }
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' && bytes[i] != b'\n' {
                    i += 1;
                }
                if bytes.get(i) != Some(&b'"') {
                    return Err(SourceError::at(
                        src,
                        start,
                        "unterminated unit string: add the closing `\"`",
                    ));
                }
                i += 1;
                out.push(Token {
                    tok: Tok::Str,
                    span: Span::new(start, i),
                });
            }
            b'0'..=b'9' | b'.' => {
                i = number_end(src, start)?;
                let text = &src[start..i];
                let value: f64 = text.parse().map_err(|_| {
                    SourceError::at(src, start, format!("malformed number `{text}`"))
                })?;
                if !value.is_finite() {
                    return Err(SourceError::at(
                        src,
                        start,
                        format!("number `{text}` is too large"),
                    ));
                }
                out.push(Token {
                    tok: Tok::Number(value),
                    span: Span::new(start, i),
                });
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                    i += 1;
                }
                out.push(Token {
                    tok: Tok::Ident,
                    span: Span::new(start, i),
                });
            }
            _ => {
                let ch = src[start..].chars().next().unwrap_or('?');
                return Err(SourceError::at(
                    src,
                    start,
                    format!("unexpected character `{ch}`"),
                ));
            }
        }
    }
    out.push(Token {
        tok: Tok::Eof,
        span: Span::new(src.len(), src.len()),
    });
    Ok(out)
}

/// End of the number starting at `start`: digits, an optional fraction and an optional
/// exponent, which must have digits.
fn number_end(src: &str, start: usize) -> Result<usize, SourceError> {
    let b = src.as_bytes();
    let digits = |mut i: usize| {
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        i
    };
    let mut i = digits(start);
    let int_digits = i - start;
    if b.get(i) == Some(&b'.') {
        let j = digits(i + 1);
        if int_digits == 0 && j == i + 1 {
            return Err(SourceError::at(
                src,
                start,
                "a `.` must belong to a number such as `0.5`",
            ));
        }
        i = j;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        let mut j = i + 1;
        if matches!(b.get(j), Some(b'+' | b'-')) {
            j += 1;
        }
        let k = digits(j);
        if k == j {
            return Err(SourceError::at(
                src,
                i,
                "malformed number: expected digits after the exponent `e`",
            ));
        }
        i = k;
    }
    if i < b.len() && (b[i].is_ascii_alphabetic() || b[i] == b'_') {
        return Err(SourceError::at(
            src,
            i,
            "a number must not be followed directly by a name (write `2*x`)",
        ));
    }
    Ok(i)
}

/// The text of a `//` comment later on the line containing byte `from`, trimmed; empty
/// if there is none. Quotes are skipped, so `"N//m"` is not a comment.
pub(crate) fn trailing_comment(src: &str, from: usize) -> &str {
    let rest = src.get(from..).unwrap_or("");
    let line = rest.split('\n').next().unwrap_or("");
    let mut quoted = false;
    let mut prev_slash = false;
    for (i, c) in line.char_indices() {
        match c {
            '"' => quoted = !quoted,
            '/' if !quoted && prev_slash => return line[i + 1..].trim(),
            // Another statement follows on this line; the comment is not ours.
            ';' if !quoted => return "",
            _ => {}
        }
        prev_slash = c == '/' && !quoted;
    }
    ""
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    fn kinds(src: &str) -> Vec<Tok> {
        lex(src)
            .expect("lexes")
            .into_iter()
            .map(|t| t.tok)
            .collect()
    }

    #[test]
    fn numbers_with_fractions_and_exponents() {
        assert_eq!(
            kinds("1 2.5 .5 1e6 1.5E-3 7."),
            vec![
                Tok::Number(1.0),
                Tok::Number(2.5),
                Tok::Number(0.5),
                Tok::Number(1e6),
                Tok::Number(1.5e-3),
                Tok::Number(7.0),
                Tok::Eof
            ]
        );
        assert_eq!(lex("x = 1e+").unwrap_err().column, 6);
        assert!(lex("1e999").is_err());
        assert!(lex("2x").is_err());
    }

    #[test]
    fn trailing_comments_become_descriptions() {
        let src = "parameter m = 10 \"N//m\" // mass of body 1\nstate x";
        assert_eq!(trailing_comment(src, 11), "mass of body 1");
        assert_eq!(trailing_comment(src, src.len() - 1), "");
        assert_eq!(trailing_comment("a / b", 0), "");
        assert_eq!(trailing_comment("state x; state y // y", 7), "");
    }

    #[test]
    fn comments_strings_and_line_ends() {
        let toks = kinds("a // b c\n\"N/m\"; b");
        assert_eq!(
            toks,
            vec![
                Tok::Ident,
                Tok::Newline,
                Tok::Str,
                Tok::Newline,
                Tok::Ident,
                Tok::Eof
            ]
        );
        let e = lex("x \"kg").unwrap_err();
        assert_eq!((e.line, e.column), (1, 3));
        let e = lex("a\n  @").unwrap_err();
        assert_eq!(
            (e.line, e.column, e.message.as_str()),
            (2, 3, "unexpected character `@`")
        );
    }
}
