//! Command-line parsing (small enough not to need a parser crate).

use std::path::PathBuf;

pub const USAGE: &str = "\
usage: cosim <command> [arguments]

commands:
  presets                           list the built-in scenarios
  preset NAME                       print a built-in scenario as JSON
  models                            list the built-in models with their parameters
  validate SCENARIO.json            check a scenario and report the first problem
  run SCENARIO.json [--out FILE]    run a scenario; write time, every output and the
                                    reference as CSV to FILE (default: standard output)
  link encode SCENARIO.json [--base URL]
                                    print the scenario as a link fragment `s1.…`
                                    (or `URL#s1.…` with --base)
  link decode LINK                  print the scenario a link carries, as JSON; LINK
                                    may be a whole URL, `#s1.…`, `s1.…` or `-`

SCENARIO.json may be `-` for standard input.";

/// A parsed command line.
#[derive(Debug, PartialEq)]
pub enum Command {
    Presets,
    Preset(String),
    Models,
    Validate(PathBuf),
    Run { scenario: PathBuf, out: Option<PathBuf> },
    /// `link encode|decode` (cli/src/link.rs).
    Link(crate::link::LinkCommand),
    Help,
}

impl Command {
    pub fn parse(argv: &[String]) -> Result<Command, String> {
        let mut it = argv.iter().map(String::as_str);
        let cmd = it.next().ok_or("no command given")?;
        let rest: Vec<&str> = it.collect();
        let positional = |n: usize, what: &str| -> Result<String, String> {
            match rest.as_slice() {
                [one] if n == 1 && !one.starts_with("--") => Ok(one.to_string()),
                _ => Err(format!("`{cmd}` takes exactly one argument: {what}")),
            }
        };
        match cmd {
            "presets" | "models" if !rest.is_empty() => Err(format!("`{cmd}` takes no arguments")),
            "presets" => Ok(Command::Presets),
            "models" => Ok(Command::Models),
            "preset" => positional(1, "NAME").map(Command::Preset),
            "validate" => positional(1, "SCENARIO.json").map(|p| Command::Validate(p.into())),
            "run" => {
                let mut scenario = None;
                let mut out = None;
                let mut i = 0;
                while i < rest.len() {
                    match rest[i] {
                        "--out" | "-o" => {
                            let f = rest.get(i + 1).ok_or("--out needs a file name")?;
                            out = Some(PathBuf::from(f));
                            i += 2;
                        }
                        flag if flag.starts_with("--") => return Err(format!("unknown option `{flag}`")),
                        path if scenario.is_none() => {
                            scenario = Some(PathBuf::from(path));
                            i += 1;
                        }
                        extra => return Err(format!("unexpected argument `{extra}`")),
                    }
                }
                let scenario = scenario.ok_or("`run` needs a SCENARIO.json")?;
                Ok(Command::Run { scenario, out })
            }
            "link" => crate::link::parse(&rest).map(Command::Link),
            "help" | "--help" | "-h" => Ok(Command::Help),
            other => Err(format!("unknown command `{other}`")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<Command, String> {
        Command::parse(&s.split_whitespace().map(String::from).collect::<Vec<_>>())
    }

    #[test]
    fn commands_parse() {
        assert_eq!(parse("presets"), Ok(Command::Presets));
        assert_eq!(parse("preset two-mass-oscillator"), Ok(Command::Preset("two-mass-oscillator".into())));
        assert_eq!(
            parse("run s.json --out r.csv"),
            Ok(Command::Run { scenario: "s.json".into(), out: Some("r.csv".into()) })
        );
        assert_eq!(parse("run s.json"), Ok(Command::Run { scenario: "s.json".into(), out: None }));
    }

    #[test]
    fn mistakes_are_reported() {
        assert!(parse("").is_err());
        assert!(parse("frobnicate").unwrap_err().contains("unknown command"));
        assert!(parse("run").unwrap_err().contains("SCENARIO"));
        assert!(parse("run a.json b.json").unwrap_err().contains("unexpected"));
        assert!(parse("run a.json --out").unwrap_err().contains("--out"));
        assert!(parse("preset").is_err());
    }
}
