//! `cosim link encode|decode`: scenario links on the command line, through the same core
//! functions the page uses (`cosim_core::scenario::{encode_link, decode_link}`), so a link
//! made in the page decodes here to the identical scenario and vice versa.

use crate::io::{self, Failure, Output};
use cosim_core::scenario;
use std::path::{Path, PathBuf};

/// A `link` subcommand.
#[derive(Debug, PartialEq)]
pub enum LinkCommand {
    /// Scenario file (or `-`) to a link, optionally prefixed by `base#`.
    Encode {
        scenario: PathBuf,
        base: Option<String>,
    },
    /// Link text (or `-` for standard input) to the scenario JSON.
    Decode { link: String },
}

/// Parses the arguments after `link`.
pub fn parse(rest: &[&str]) -> Result<LinkCommand, String> {
    match rest {
        ["encode", file] if !file.starts_with("--") => Ok(LinkCommand::Encode {
            scenario: file.into(),
            base: None,
        }),
        ["encode", file, "--base", url] | ["encode", "--base", url, file] => {
            Ok(LinkCommand::Encode {
                scenario: file.into(),
                base: Some(url.to_string()),
            })
        }
        ["decode", link] => Ok(LinkCommand::Decode {
            link: link.to_string(),
        }),
        [] => Err("`link` needs `encode SCENARIO.json` or `decode LINK`".into()),
        [sub, ..] if *sub != "encode" && *sub != "decode" => Err(format!(
            "unknown `link` subcommand `{sub}`; use encode or decode"
        )),
        _ => Err("usage: `link encode SCENARIO.json [--base URL]` or `link decode LINK`".into()),
    }
}

/// Runs a `link` subcommand, printing its result to `out`.
pub fn execute(command: LinkCommand, out: &mut Output) -> Result<(), Failure> {
    match command {
        LinkCommand::Encode {
            scenario: path,
            base,
        } => {
            let text = io::read_text(&path, scenario::MAX_SCENARIO_BYTES, "scenario")?;
            // Parsed, not validated: as in the page, a link may name module files
            // (binary modules' `source`) that are loaded only when the scenario runs.
            let s = scenario::parse(&text).map_err(|e| format!("{}: {e}", path.display()))?;
            // Refused exactly when decoding would refuse the link.
            let link = scenario::encode_link(&s).map_err(|e| format!("{}: {e}", path.display()))?;
            match base {
                Some(url) => {
                    out.line(&format!("{}#{link}", url.split('#').next().unwrap_or("")))?
                }
                None => out.line(&link)?,
            }
            Ok(())
        }
        LinkCommand::Decode { link } => {
            let text = if link == "-" {
                // A whole URL may stand before the payload.
                io::read_text(Path::new("-"), scenario::MAX_LINK_CHARS + 8192, "link")?
            } else {
                link
            };
            let s = scenario::decode_link(text.trim()).map_err(|e| e.to_string())?;
            out.line(&scenario::to_json(&s))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subcommands_parse() {
        assert_eq!(
            parse(&["encode", "s.json"]),
            Ok(LinkCommand::Encode {
                scenario: "s.json".into(),
                base: None
            })
        );
        assert_eq!(
            parse(&["encode", "s.json", "--base", "https://x/"]),
            Ok(LinkCommand::Encode {
                scenario: "s.json".into(),
                base: Some("https://x/".into())
            })
        );
        assert_eq!(
            parse(&["decode", "s1.abc"]),
            Ok(LinkCommand::Decode {
                link: "s1.abc".into()
            })
        );
        assert!(parse(&[]).is_err());
        assert!(parse(&["zip", "a"]).unwrap_err().contains("unknown"));
        assert!(parse(&["decode"]).is_err());
    }
}
