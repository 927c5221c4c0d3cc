//! Command-line parsing (small enough not to need a parser crate).

use crate::analysis::MapArgs;
use cosim_core::limits::{Limit, Limits};
use std::path::PathBuf;

pub const USAGE: &str = "\
usage: cosim <command> [arguments]

commands:
  presets                           list the built-in scenarios
  preset NAME                       print a built-in scenario as JSON
  models                            list the built-in models with their parameters
  validate SCENARIO.json            check a scenario and report the first problem
  run SCENARIO.json [--out FILE] [--threads N] [--mpi]
                                    run a scenario; write time, every output and the
                                    reference as CSV to FILE (default: standard output);
                                    a `chain` scenario writes its watched masses, cut
                                    forces, coupling-body states, H and k. --threads N
                                    steps the modules of each sweep (fixed-step Jacobi,
                                    every run of an error-controlled attempt) on N
                                    threads (default 1; same bytes for every N).
                                    --mpi (under mpirun -n R, a build with the `mpi`
                                    feature) steps a chain's subsystems on R processes;
                                    rank 0 writes the same bytes as one process
  energy SCENARIO.json              run a scenario with power bonds; print mean dP,
                                    dE(T), E0, E(T) and E(T)/E0 as key=value lines
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
  ssp import SYSTEM.ssp             print the scenario of an SSP system (SSP 1.0/2.0:
                                    FMUs, connections, parameter sets) as JSON
  ssp export SCENARIO.json --out SYSTEM.ssp
                                    write a scenario of binary modules as an .ssp
  --version                         print the version

SCENARIO.json may be `-` for standard input; `run`, `validate` and the analyses also
take an SSP system (a file ending in .ssp).

limits (any command; work beyond them is refused before it starts, see docs/limits.md):
  --max-memory-mb N                 recorded outputs of a run, in MiB (default 2048)
  --max-micro-steps N               RK4 micro-steps of a run (default 2e9)
  --max-map-work N                  map cells × macro-steps per cell (default 4e9)
  --max-convergence-steps N         macro-steps of a convergence study (default 4e8)
  --max-matrix-dimension N          states in one dense matrix (default 1000)";

/// Takes the `--max-…` limit flags out of `argv` (they may stand anywhere).
pub fn split_limits(argv: Vec<String>) -> Result<(Vec<String>, Limits), String> {
    let mut limits = Limits::CLI;
    let mut rest = Vec::with_capacity(argv.len());
    let mut it = argv.into_iter();
    while let Some(a) = it.next() {
        let Some(which) = Limit::ALL.into_iter().find(|l| l.flag() == a) else {
            rest.push(a);
            continue;
        };
        let v = it.next().ok_or_else(|| format!("{a} needs a number"))?;
        // Accepts `2e9` as well as `2000000000`.
        let n = v
            .parse::<u64>()
            .ok()
            .or_else(|| {
                v.parse::<f64>()
                    .ok()
                    .filter(|x| x.is_finite() && *x >= 1.0 && *x < 1.8e19)
                    .map(|x| x as u64)
            })
            .filter(|n| *n >= 1)
            .ok_or_else(|| format!("{a} `{v}`: expected a whole number ≥ 1"))?;
        limits.set(which, which.from_flag_value(n));
    }
    Ok((rest, limits))
}

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
        /// `--mpi`: this process is one rank of an MPI job (cli/src/mpi/).
        mpi: bool,
    },
    Stability(PathBuf),
    /// `energy SCENARIO.json` (cli/src/energy.rs).
    Energy(PathBuf),
    Map(MapArgs),
    Convergence {
        scenario: PathBuf,
        out: Option<PathBuf>,
    },
    /// `defects E…` (cli/src/defects.rs).
    Defects(crate::defects::DefectsArgs),
    /// `link encode|decode` (cli/src/link.rs).
    Link(crate::link::LinkCommand),
    /// `ssp import|export` (cli/src/ssp.rs).
    Ssp(crate::ssp::SspCommand),
    Help,
    /// `--version`: the program name and version.
    Version,
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
            "energy" => positional(1, "SCENARIO.json").map(|p| Command::Energy(p.into())),
            "map" => MapArgs::parse(&rest).map(Command::Map),
            "run" | "convergence" => {
                let mut scenario = None;
                let mut out = None;
                let mut threads = None;
                let mut mpi = false;
                let mut i = 0;
                while i < rest.len() {
                    match rest[i] {
                        "--mpi" if cmd == "run" => {
                            mpi = true;
                            i += 1;
                        }
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
                    if mpi && threads.is_some() {
                        return Err("--mpi and --threads: give one (ranks step their modules \
                                    one after the other)"
                            .into());
                    }
                    Ok(Command::Run {
                        scenario,
                        out,
                        threads,
                        mpi,
                    })
                } else {
                    Ok(Command::Convergence { scenario, out })
                }
            }
            "defects" => crate::defects::DefectsArgs::parse(&rest).map(Command::Defects),
            "link" => crate::link::parse(&rest).map(Command::Link),
            "ssp" => crate::ssp::parse(&rest).map(Command::Ssp),
            "help" | "--help" | "-h" => Ok(Command::Help),
            "--version" | "-V" | "version" if rest.is_empty() => Ok(Command::Version),
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
                threads: None,
                mpi: false
            })
        );
        assert_eq!(
            parse("run s.json --threads 3"),
            Ok(Command::Run {
                scenario: "s.json".into(),
                out: None,
                threads: Some(3),
                mpi: false
            })
        );
        assert_eq!(
            parse("run s.json --mpi"),
            Ok(Command::Run {
                scenario: "s.json".into(),
                out: None,
                threads: None,
                mpi: true
            })
        );
        assert!(parse("run s.json --mpi --threads 2")
            .unwrap_err()
            .contains("give one"));
        assert!(parse("run s.json --threads 0")
            .unwrap_err()
            .contains("--threads"));
    }

    #[test]
    fn limit_flags_stand_anywhere() {
        let argv = |s: &str| s.split_whitespace().map(String::from).collect::<Vec<_>>();
        let (rest, l) =
            split_limits(argv("run --max-memory-mb 16 s.json --max-micro-steps 2e3")).unwrap();
        assert_eq!(rest, argv("run s.json"));
        assert_eq!((l.run_memory_bytes, l.micro_steps), (16 << 20, 2000));
        assert_eq!(l.map_work, Limits::CLI.map_work);
        assert!(split_limits(argv("run s.json --max-map-work")).is_err());
        assert!(split_limits(argv("run s.json --max-map-work 0")).is_err());
        assert!(split_limits(argv("run s.json --max-map-work lots")).is_err());
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
