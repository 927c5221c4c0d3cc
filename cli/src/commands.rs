//! What each command does. Errors come back as the message printed after `error:`.

use crate::analysis;
use crate::args::{Command, USAGE};
use crate::io::{self, Failure, Output};
use cosim_core::error::ScenarioError;
use cosim_core::limits::Limits;
use cosim_core::scenario::{self, Scenario};
use cosim_core::simulation::{self, Simulation};
use std::io::IsTerminal;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Set by Ctrl-C: a long run stops at its next chunk and writes what it computed.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Whether Ctrl-C was pressed.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::Relaxed)
}

/// From now on Ctrl-C sets [`interrupted`] instead of ending the process.
pub fn stop_on_ctrl_c() {
    let _ = ctrlc::set_handler(|| INTERRUPTED.store(true, Ordering::Relaxed));
}

/// Macro-steps between checks for Ctrl-C, progress and rows to write.
const CHUNK: u32 = 4096;

pub fn execute(command: Command, limits: &Limits) -> Result<(), Failure> {
    let mut out = Output::stdout();
    match command {
        Command::Help => out.line(USAGE)?,
        Command::Version => out.line(&format!("cosim {}", env!("CARGO_PKG_VERSION")))?,
        Command::Presets => {
            let presets = scenario::presets();
            let width = presets.iter().map(|p| p.id.len()).max().unwrap_or(0);
            for p in presets {
                out.line(&format!("{:<width$} {}", p.id, p.scenario.title))?;
            }
        }
        Command::Preset(name) => {
            let s = scenario::preset(&name).ok_or_else(|| {
                let ids: Vec<&str> = scenario::presets().iter().map(|p| p.id).collect();
                format!("no preset named `{name}`; presets are {}", ids.join(", "))
            })?;
            out.line(&scenario::to_json(&s))?;
        }
        Command::Models => {
            for m in cosim_core::models::catalog() {
                out.line(&format!("{}: {}", m.id, m.summary))?;
                for p in &m.parameters {
                    let start = p.start.map(|v| format!("{v}")).unwrap_or_default();
                    out.line(&format!(
                        "    {:<8} {:>10} {:<8} {}",
                        p.name, start, p.unit, p.description
                    ))?;
                }
            }
        }
        Command::Validate(path) => {
            let v = load(&path, limits)?;
            out.line(&format!(
                "ok: {} modules, {} macro-steps",
                v.scenario.modules.len(),
                v.grid.steps
            ))?;
        }
        Command::Link(link) => crate::link::execute(link, &mut out)?,
        Command::Ssp(ssp) => crate::ssp::execute(ssp, &mut out)?,
        Command::Defects(args) => {
            let (csv, report) = crate::defects::run(&args)?;
            write_out(args.out.as_deref(), &csv)?;
            // The report goes with the CSV's destination, as for `convergence`.
            if args.out.is_some() {
                out.write(&report)?;
            } else {
                io::note(&report);
            }
        }
        Command::Run {
            scenario,
            out: file,
            threads,
            mpi,
        } => {
            io::refuse_same_file(&scenario, file.as_deref())?;
            let v = load(&scenario, limits)?;
            if mpi {
                return crate::mpi::run(&v, file.as_deref(), out);
            }
            let executor: Option<Box<dyn cosim_core::master::Executor>> = match threads {
                Some(n) => Some(Box::new(crate::parallel::ThreadPoolExecutor::new(n)?)),
                None => None,
            };
            return run(&v, executor, file.as_deref(), out);
        }
        Command::Energy(path) => {
            let v = load(&path, limits)?;
            let mut sim = Simulation::new(&v).map_err(|e| e.to_string())?;
            sim.run_to_end().map_err(|e| e.to_string())?;
            out.write(&crate::energy::report(&sim)?)?;
        }
        Command::Stability(path) => {
            out.write(&analysis::stability(&load_for_analysis(&path, limits)?)?)?
        }
        Command::Map(args) => {
            io::refuse_same_file(&args.scenario, args.out.as_deref())?;
            let (csv, summary) = analysis::map(&load_for_analysis(&args.scenario, limits)?, &args)?;
            write_out(args.out.as_deref(), &csv)?;
            io::note(&format!("{summary}\n"));
            if interrupted() {
                return Err("interrupted".into());
            }
        }
        Command::Convergence {
            scenario,
            out: file,
        } => {
            io::refuse_same_file(&scenario, file.as_deref())?;
            let (csv, slopes) = analysis::convergence(&load_for_analysis(&scenario, limits)?)?;
            write_out(file.as_deref(), &csv)?;
            // Slopes go with the CSV's destination: stdout when the CSV went to a file.
            if file.is_some() {
                out.write(&slopes)?;
            } else {
                io::note(&slopes);
            }
            if interrupted() {
                return Err("interrupted".into());
            }
        }
    }
    out.finish()
}

/// `cosim run`: rows are written as they are computed when the CSV's columns are known
/// up front (fixed-grid runs), otherwise at the end; Ctrl-C or a failing step still writes
/// every row computed so far. Progress goes to standard error when it is a terminal.
fn run(
    v: &scenario::ValidatedScenario,
    executor: Option<Box<dyn cosim_core::master::Executor>>,
    file: Option<&Path>,
    stdout: Output,
) -> Result<(), Failure> {
    let mut sim = Simulation::with_executor(v, executor).map_err(|e| e.to_string())?;
    let mut out = match file {
        Some(_) => Output::to(file)?,
        None => stdout,
    };
    stop_on_ctrl_c();
    let streaming = Simulation::streaming_columns(v);
    if let Some(columns) = streaming {
        out.write(&sim.csv_header(columns))?;
    }
    let progress = std::io::stderr().is_terminal();
    let started = Instant::now();
    let mut last_report = started;
    let mut written = 0;
    let outcome = loop {
        if interrupted() {
            break Err(format!(
                "interrupted at t = {} s; the CSV holds the {} points computed",
                sim.result().time.last().copied().unwrap_or(f64::NAN),
                sim.result().time.len()
            ));
        }
        let step = sim.advance(CHUNK);
        if let Some(columns) = streaming {
            let n = sim.result().time.len();
            out.write(&sim.csv_rows(columns, written..n))?;
            written = n;
        }
        match step {
            Ok(true) => break Ok(()),
            Ok(false) => {}
            Err(e) => break Err(e.to_string()),
        }
        if progress && last_report.elapsed() > Duration::from_secs(1) {
            last_report = Instant::now();
            io::note(&format!(
                "\r{:5.1} % of the run, {} macro-steps, {:.0} s",
                100.0 * sim.progress(),
                sim.steps_done(),
                started.elapsed().as_secs_f64()
            ));
        }
    };
    if progress && last_report != started {
        io::note("\n");
    }
    if streaming.is_none() {
        out.write(&sim.to_csv())?;
    }
    out.finish()?;
    outcome?;
    io::note(&format!("{}\n", simulation::summary(&sim)));
    Ok(())
}

/// Writes `text` to `out`, or to standard output.
fn write_out(out: Option<&Path>, text: &str) -> Result<(), Failure> {
    let mut o = Output::to(out)?;
    o.write(text)?;
    o.finish()
}

fn load(path: &Path, limits: &Limits) -> Result<scenario::ValidatedScenario, Failure> {
    load_as(path, |s| s.validate_within(limits))
}

/// As [`load`], for `stability`, `map` and `convergence`: they analyse one step's propagation
/// matrix and never run to `run.stop`, so any stop time is accepted.
fn load_for_analysis(path: &Path, limits: &Limits) -> Result<scenario::ValidatedScenario, Failure> {
    load_as(path, |s| s.validate_for_analysis_within(limits))
}

fn load_as(
    path: &Path,
    validate: impl Fn(&Scenario) -> Result<scenario::ValidatedScenario, ScenarioError>,
) -> Result<scenario::ValidatedScenario, Failure> {
    let s = if crate::ssp::is_ssp(path) {
        crate::ssp::read_ssp(path)?
    } else {
        let text = io::read_text(path, scenario::MAX_SCENARIO_BYTES, "scenario")?;
        let mut s = scenario::parse(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        crate::fmus::embed(&mut s, path).map_err(|e| format!("{}: {e}", path.display()))?;
        s
    };
    Ok(validate(&s).map_err(|e| format!("{}: {e}", path.display()))?)
}
