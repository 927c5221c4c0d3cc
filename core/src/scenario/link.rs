//! Scenarios shared as links: the one implementation the page (through `cosim-wasm`) and
//! the CLI (`cosim link encode|decode`) both use.
//!
//! A link carries the scenario in the URL fragment, so it never reaches a server:
//!
//! ```text
//! https://…/#s1.jZLBbtswDIZfhdDZCWwnaVbfimGHXjtgl6IHWqItorJkSHS2oOi7j47TotmwYTAgWxRF8v_
//!            └┬┘└──────────────────────────┬───────────────────────────┘
//!   link format   base64url (RFC 4648 §5, no padding) of
//!   version       raw deflate (RFC 1951) of the canonical JSON ‖ CRC-32 of that JSON
//! ```
//!
//! - The canonical JSON is `serde_json`'s compact form of [`Scenario`]: fields in schema
//!   order, parameters sorted (a `BTreeMap`), numbers in shortest round-trip form. The same
//!   scenario therefore always gives the same link.
//! - The CRC-32 (IEEE, as in gzip and PNG; 4 bytes, little-endian) costs 6 link characters
//!   and buys detection of damaged links: a link cut short or with a mistyped character
//!   fails with a message instead of opening a silently different scenario. Adler-32 (the
//!   zlib trailer) was tried first and is too weak here: one mistyped character inside a
//!   back-reference changed three copies of "int" to "grr" with an unchanged Adler-32 (the
//!   fuzz test below found it); a CRC cannot be fooled by such symmetric changes.
//! - The link format version (`s1`) is independent of the scenario's `schema_version`:
//!   the JSON inside goes through [`parse`], so a link written by an older build opens
//!   through the same migration as an old file. A future `s2` (another compression, say)
//!   gets its own branch in [`decode_link`] while `s1` links keep opening.
//!
//! Decoding is strict and bounded: at most [`MAX_LINK_CHARS`] characters, strict base64url
//! (no padding, no stray characters, zero trailing bits), at most [`MAX_LINK_JSON_BYTES`]
//! inflated (so a small "zip bomb" link cannot exhaust memory), exactly the 4 CRC bytes
//! after the deflate stream, a matching CRC, valid UTF-8. Every failure is a [`ScenarioError`]; nothing here panics.

use super::parse::parse;
#[cfg(doc)]
use super::parse::MAX_SCENARIO_BYTES;
use super::schema::Scenario;
use crate::error::ScenarioError;
use alloc::boxed::Box;
use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use miniz_oxide::inflate::core::{decompress, inflate_flags, DecompressorOxide};
use miniz_oxide::inflate::TINFLStatus;

/// Version tag of the current link format, followed by `.` and the payload.
pub const LINK_VERSION: &str = "s1";

pub use crate::limits::{MAX_LINK_CHARS, MAX_LINK_JSON_BYTES};

/// Compression level 0..=10 of miniz_oxide; 9 is zlib's "best", small inputs compress fast.
const LEVEL: u8 = 9;

/// The link fragment of `scenario`, without the leading `#`: `s1.` + payload.
///
/// Refused exactly when [`decode_link`] would refuse the link (too long, inflating beyond
/// [`MAX_LINK_JSON_BYTES`], or a document the parser refuses): the link is decoded again
/// before it is handed out, so every link this gives opens.
pub fn encode_link(scenario: &Scenario) -> Result<String, ScenarioError> {
    // Serialising plain data structures into a String cannot fail.
    let json = serde_json::to_string(scenario).unwrap_or_default();
    if json.len() > MAX_LINK_JSON_BYTES {
        return Err(err(format!(
            "the scenario is {} bytes of JSON; a link carries at most {MAX_LINK_JSON_BYTES} \
             (share the scenario file instead)",
            json.len()
        )));
    }
    let mut packed = miniz_oxide::deflate::compress_to_vec(json.as_bytes(), LEVEL);
    packed.extend_from_slice(&crc32(json.as_bytes()).to_le_bytes());
    let payload_chars = packed.len().div_ceil(3) * 4;
    if payload_chars > MAX_LINK_CHARS {
        return Err(err(format!(
            "the link would be about {payload_chars} characters; links carry at most \
             {MAX_LINK_CHARS} (share the scenario file instead)"
        )));
    }
    let mut out = String::with_capacity(LINK_VERSION.len() + 1 + payload_chars);
    out.push_str(LINK_VERSION);
    out.push('.');
    URL_SAFE_NO_PAD.encode_string(&packed, &mut out);
    match decode_link(&out) {
        Ok(_) => Ok(out),
        Err(e) => Err(err(format!(
            "this scenario would make a link that does not open: {}",
            e.message
        ))),
    }
}

/// Reads a scenario from a link: a whole URL, a fragment with or without `#`, or the bare
/// `s1.…` text. The scenario is parsed (with migration of older schema versions) but not
/// validated; callers validate as for any other document.
pub fn decode_link(link: &str) -> Result<Scenario, ScenarioError> {
    let json = decode_link_json(link)?;
    parse(&json)
}

/// The scenario JSON a link carries, checked as described in the module doc.
pub fn decode_link_json(link: &str) -> Result<String, ScenarioError> {
    let fragment = match link.find('#') {
        Some(i) => &link[i + 1..],
        None => link,
    };
    let Some((version, payload)) = fragment.split_once('.') else {
        return Err(err(format!(
            "not a scenario link: expected `{LINK_VERSION}.` followed by the encoded scenario"
        )));
    };
    match version {
        LINK_VERSION => decode_s1(payload),
        v if v.len() <= 8 && v.starts_with('s') => Err(err(format!(
            "link format `{v}` is not supported by this build (it reads `{LINK_VERSION}`); \
             open it with a newer version of the playground"
        ))),
        _ => Err(err(format!(
            "not a scenario link: expected `{LINK_VERSION}.` followed by the encoded scenario"
        ))),
    }
}

/// Format `s1`: base64url(deflate(JSON) ‖ CRC-32(JSON)).
fn decode_s1(payload: &str) -> Result<String, ScenarioError> {
    if payload.is_empty() {
        return Err(err(
            "the link is empty after `s1.`: it was probably cut short",
        ));
    }
    if payload.len() > MAX_LINK_CHARS {
        return Err(err(format!(
            "the link is too long: {} characters, the limit is {MAX_LINK_CHARS}",
            payload.len()
        )));
    }
    let packed = URL_SAFE_NO_PAD.decode(payload).map_err(|e| match e {
        base64::DecodeError::InvalidByte(at, byte) => err(format!(
            "the link is damaged: character {} ({}) is not allowed in a link",
            at + 1,
            describe_byte(byte)
        )),
        base64::DecodeError::InvalidLength(_) | base64::DecodeError::InvalidLastSymbol(..) => {
            err("the link is truncated or damaged: its length or last character is not possible")
        }
        base64::DecodeError::InvalidPadding => {
            err("the link is damaged: it ends in `=` padding, which links do not use")
        }
    })?;
    let (bytes, used) = inflate(&packed, MAX_LINK_JSON_BYTES)?;
    let trailer: [u8; 4] = match packed.get(used..) {
        Some(t) if t.len() == 4 => [t[0], t[1], t[2], t[3]],
        Some(t) if t.len() < 4 => {
            return Err(err(
                "the link is truncated: the encoded scenario ends early",
            ))
        }
        _ => {
            return Err(err(
                "the link is damaged: there is data after the end of the scenario",
            ))
        }
    };
    if u32::from_le_bytes(trailer) != crc32(&bytes) {
        return Err(err(
            "the link is damaged: its checksum does not match the content",
        ));
    }
    String::from_utf8(bytes)
        .map_err(|_| err("the link is damaged: the decoded scenario is not UTF-8 text"))
}

/// Inflates one raw deflate stream into at most `limit` bytes; returns the bytes and how
/// much of `input` the stream used.
fn inflate(input: &[u8], limit: usize) -> Result<(Vec<u8>, usize), ScenarioError> {
    let flags = inflate_flags::TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF;
    let mut state = Box::<DecompressorOxide>::default();
    let mut out = vec![0u8; input.len().saturating_mul(4).clamp(64, limit.max(64))];
    let (mut in_pos, mut out_pos) = (0usize, 0usize);
    loop {
        let rest = input.get(in_pos..).unwrap_or(&[]);
        let (status, used_in, used_out) = decompress(&mut state, rest, &mut out, out_pos, flags);
        in_pos = in_pos.saturating_add(used_in);
        out_pos = out_pos.saturating_add(used_out);
        match status {
            TINFLStatus::Done => {
                out.truncate(out_pos);
                return Ok((out, in_pos));
            }
            TINFLStatus::HasMoreOutput => {
                if out.len() >= limit {
                    return Err(err(format!(
                        "the link's scenario is too large: over {limit} bytes of JSON"
                    )));
                }
                let grown = out.len().saturating_mul(2).min(limit);
                out.resize(grown, 0);
            }
            TINFLStatus::FailedCannotMakeProgress | TINFLStatus::NeedsMoreInput => {
                return Err(err(
                    "the link is truncated: the encoded scenario ends early",
                ));
            }
            _ => {
                return Err(err(
                    "the link is damaged: the encoded scenario is not valid compressed data",
                ))
            }
        }
    }
}

/// CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320), bit by bit: links are small,
/// so a 1 KiB table would buy nothing measurable.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = (crc >> 1) ^ (0xEDB8_8320 & (crc & 1).wrapping_neg());
        }
    }
    !crc
}

fn describe_byte(b: u8) -> String {
    if b.is_ascii_graphic() {
        format!("`{}`", char::from(b))
    } else {
        format!("byte 0x{b:02x}")
    }
}

/// Link errors concern the whole document, so they carry no field path; each message
/// starts with "the link" or "not a scenario link" so a person knows which input is wrong.
fn err(message: impl Into<String>) -> ScenarioError {
    ScenarioError::at("", message)
}

#[cfg(test)]
mod tests;
