//! Command-line parsing (small enough not to need a parser crate).

use crate::analysis::MapArgs;
use std::path::PathBuf;

pub const USAGE: &str = "\
usage: cosim <command> [arguments]

commands:
  presets                           list the built-in scenarios
  preset NAME                       print a built-in scenario as JSON
  models                            list the built-in models with their parameters
  validate SCENARIO.json            check a scenario and report the first problem
  run SCENARIO.json [--out FILE] [--threads N]
                                    run a scenario; write time, every output and the
                                    reference as CSV to FILE (default: standard output);
                                    a `chain` scenario writes its watched masses, cut
                                    forces, coupling-body states, H and k. --threads N
                                    steps the modules of a fixed-step Jacobi sweep on N
                                    threads (default 1; same bytes for every N)
  stability SCENARIO.json           spectral radius and eigenvalues of the propagation
                                    matrix for the scenario's method and macro-step
  map SCENARIO.json --x PARAM:FROM:TO:N[:log] --y PARAM:FROM:TO:N[:log]
      [--metric rho|eg|el] [--out FILE] [--threads N]
                                    metric over two parameters as CSV x,y,value,status;
                                    PARAM is module.parameter (e.g. mass2.ck),
                                    master.macro_step or master.correction.alpha;
                                    threads default to all cores
  convergence SCENARIO.json [--out FILE]
                                    local error against the macro-step for orders 0-4
                                    (with and without correction) as CSV, plus slopes
  defects E1|E2|E3|E4|E5|E6 [--slaves euler|exact] [--init consistent|zero]
      [--orders 0,1,2] [--fit LO:HI] [--out FILE]
                                    the defect-control experiments of seed 003 on the
                                    rotational oscillator: CSV of defects, errors and
                                    Theorem-1 bounds against h or tol (E1, E2: the
                                    response), plus fitted log-log slopes
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
    Run {
        scenario: PathBuf,
        out: Option<PathBuf>,
        /// `--threads N`; `None`: one after the other.
        threads: Option<usize>,
    },
    Stability(PathBuf),
    Map(MapArgs),
    Convergence {
        scenario: PathBuf,
        out: Option<PathBuf>,
    },
    /// `defects E…` (cli/src/defects.rs).
    Defects(crate::defects::DefectsArgs),
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
            "stability" => positional(1, "SCENARIO.json").map(|p| Command::Stability(p.into())),
            "map" => MapArgs::parse(&rest).map(Command::Map),
            "run" | "convergence" => {
                let mut scenario = None;
                let mut out = None;
                let mut threads = None;
                let mut i = 0;
                while i < rest.len() {
                    match rest[i] {
                        "--threads" if cmd == "run" => {
                            let v = rest.get(i + 1).ok_or("--threads needs a number")?;
                            let n: usize = v.parse().ok().filter(|n| *n >= 1).ok_or_else(|| {
                                format!("--threads `{v}`: expected a whole number ≥ 1")
                            })?;
                            threads = Some(n);
                            i += 2;
                        }
                        "--out" | "-o" => {
                            let f = rest.get(i + 1).ok_or("--out needs a file name")?;
                            out = Some(PathBuf::from(f));
                            i += 2;
                        }
                        flag if flag.starts_with("--") => {
                            return Err(format!("unknown option `{flag}`"))
                        }
                        path if scenario.is_none() => {
                            scenario = Some(PathBuf::from(path));
                            i += 1;
                        }
                        extra => return Err(format!("unexpected argument `{extra}`")),
                    }
                }
                let scenario = scenario.ok_or(format!("`{cmd}` needs a SCENARIO.json"))?;
                if cmd == "run" {
                    Ok(Command::Run {
                        scenario,
                        out,
                        threads,
                    })
                } else {
                    Ok(Command::Convergence { scenario, out })
                }
            }
            "defects" => crate::defects::DefectsArgs::parse(&rest).map(Command::Defects),
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
        assert_eq!(
            parse("preset two-mass-oscillator"),
            Ok(Command::Preset("two-mass-oscillator".into()))
        );
        assert_eq!(
            parse("run s.json --out r.csv"),
            Ok(Command::Run {
                scenario: "s.json".into(),
                out: Some("r.csv".into()),
                threads: None
            })
        );
        assert_eq!(
            parse("run s.json --threads 3"),
            Ok(Command::Run {
                scenario: "s.json".into(),
                out: None,
                threads: Some(3)
            })
        );
        assert!(parse("run s.json --threads 0")
            .unwrap_err()
            .contains("--threads"));
    }

    #[test]
    fn mistakes_are_reported() {
        assert!(parse("").is_err());
        assert!(parse("frobnicate").unwrap_err().contains("unknown command"));
        assert!(parse("run").unwrap_err().contains("SCENARIO"));
        assert!(parse("run a.json b.json")
            .unwrap_err()
            .contains("unexpected"));
        assert!(parse("run a.json --out").unwrap_err().contains("--out"));
        assert!(parse("preset").is_err());
        assert!(parse("map s.json --x mass2.ck:1:2 --y mass2.dk:1:2:3")
            .unwrap_err()
            .contains("--x"));
        assert!(
            parse("map s.json --x mass2.ck:1:2:3:lin --y mass2.dk:1:2:3")
                .unwrap_err()
                .contains("log")
        );
        assert!(parse("map s.json --x mass2.ck:1:2:3")
            .unwrap_err()
            .contains("--y"));
        assert!(parse("map s.json --x a.b:1:2:3 --y a.c:1:2:3 --threads 0")
            .unwrap_err()
            .contains("--threads"));
        assert!(parse("map s.json --x a.b:1:2:3 --y a.c:1:2:3 --metric foo")
            .unwrap_err()
            .contains("rho"));
        assert!(parse("stability").is_err());
    }

    #[test]
    fn analysis_commands_parse() {
        assert_eq!(
            parse("stability s.json"),
            Ok(Command::Stability("s.json".into()))
        );
        assert_eq!(
            parse("convergence s.json --out c.csv"),
            Ok(Command::Convergence {
                scenario: "s.json".into(),
                out: Some("c.csv".into())
            })
        );
        let Ok(Command::Map(m)) = parse("map s.json --x mass2.ck:1:1e10:64:log --y master.macro_step:1e-6:1e-3:8 --metric eg --threads 3")
        else {
            panic!("map parses")
        };
        assert_eq!(
            (m.x.points, m.x.log, m.x.to, m.y.log, m.threads),
            (64, true, 1e10, false, Some(3))
        );
        assert_eq!(m.y.parameter, "master.macro_step");
        assert_eq!(
            m.metric,
            cosim_core::analysis::sweep::MapMetric::GlobalError
        );
    }
}
