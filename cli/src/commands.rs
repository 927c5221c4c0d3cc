//! What each command does. Errors come back as the message printed after `error:`.

use crate::analysis;
use crate::args::{Command, USAGE};
use cosim_core::scenario;
use cosim_core::simulation::{self, Simulation};
use std::io::{Read, Write};
use std::path::Path;
use std::time::Instant;

pub fn execute(command: Command) -> Result<(), String> {
    match command {
        Command::Help => {
            println!("{USAGE}");
            Ok(())
        }
        Command::Presets => {
            let presets = scenario::presets();
            let width = presets.iter().map(|p| p.id.len()).max().unwrap_or(0);
            for p in presets {
                println!("{:<width$} {}", p.id, p.scenario.title);
            }
            Ok(())
        }
        Command::Preset(name) => {
            let s = scenario::preset(&name).ok_or_else(|| {
                let ids: Vec<&str> = scenario::presets().iter().map(|p| p.id).collect();
                format!("no preset named `{name}`; presets are {}", ids.join(", "))
            })?;
            println!("{}", scenario::to_json(&s));
            Ok(())
        }
        Command::Models => {
            for m in cosim_core::models::catalog() {
                println!("{}: {}", m.id, m.summary);
                for p in &m.parameters {
                    let start = p.start.map(|v| format!("{v}")).unwrap_or_default();
                    println!(
                        "    {:<8} {:>10} {:<8} {}",
                        p.name, start, p.unit, p.description
                    );
                }
            }
            Ok(())
        }
        Command::Validate(path) => {
            let v = load(&path)?;
            println!(
                "ok: {} modules, {} macro-steps",
                v.scenario.modules.len(),
                v.grid.steps
            );
            Ok(())
        }
        Command::Link(link) => crate::link::execute(link),
        Command::Defects(args) => {
            let (csv, report) = crate::defects::run(&args)?;
            write_out(args.out.as_deref(), &csv)?;
            // The report goes with the CSV's destination, as for `convergence`.
            if args.out.is_some() {
                print!("{report}");
            } else {
                eprint!("{report}");
            }
            Ok(())
        }
        Command::Run {
            scenario,
            out,
            threads,
        } => {
            let v = load(&scenario)?;
            let executor: Option<Box<dyn cosim_core::master::Executor>> = match threads {
                Some(n) => Some(Box::new(crate::parallel::ThreadPoolExecutor::new(n)?)),
                None => None,
            };
            let mut sim = Simulation::with_executor(&v, executor).map_err(|e| e.to_string())?;
            run_with_progress(&mut sim)?;
            let csv = sim.to_csv();
            match out {
                Some(file) => std::fs::write(&file, csv)
                    .map_err(|e| format!("cannot write {}: {e}", file.display()))?,
                None => std::io::stdout()
                    .write_all(csv.as_bytes())
                    .map_err(|e| format!("cannot write to standard output: {e}"))?,
            }
            eprintln!("{}", simulation::summary(&sim));
            Ok(())
        }
        Command::Stability(path) => {
            print!("{}", analysis::stability(&load(&path)?)?);
            Ok(())
        }
        Command::Map(args) => {
            let (csv, summary) = analysis::map(&load(&args.scenario)?, &args)?;
            write_out(args.out.as_deref(), &csv)?;
            eprintln!("{summary}");
            Ok(())
        }
        Command::Convergence { scenario, out } => {
            let (csv, slopes) = analysis::convergence(&load(&scenario)?)?;
            write_out(out.as_deref(), &csv)?;
            // Slopes go with the CSV's destination: stdout when the CSV went to a file.
            if out.is_some() {
                print!("{slopes}");
            } else {
                eprint!("{slopes}");
            }
            Ok(())
        }
    }
}

/// Runs to the end in chunks; a run longer than two seconds reports its progress on
/// standard error every two seconds (short runs print nothing extra).
fn run_with_progress(sim: &mut Simulation) -> Result<(), String> {
    let start = Instant::now();
    let mut last = start;
    let mut printed = false;
    while !sim.advance(16).map_err(|e| e.to_string())? {
        if last.elapsed().as_secs_f64() >= 2.0 {
            last = Instant::now();
            printed = true;
            eprint!(
                "\rprogress {:5.1} %, {} macro-steps, {:.0} s",
                100.0 * sim.progress(),
                sim.steps_done(),
                start.elapsed().as_secs_f64()
            );
        }
    }
    if printed {
        eprintln!();
    }
    Ok(())
}

/// Writes `text` to `out`, or to standard output.
fn write_out(out: Option<&Path>, text: &str) -> Result<(), String> {
    match out {
        Some(file) => {
            std::fs::write(file, text).map_err(|e| format!("cannot write {}: {e}", file.display()))
        }
        None => std::io::stdout()
            .write_all(text.as_bytes())
            .map_err(|e| format!("cannot write to standard output: {e}")),
    }
}

fn load(path: &Path) -> Result<scenario::ValidatedScenario, String> {
    let text = if path.as_os_str() == "-" {
        let mut s = String::new();
        std::io::stdin()
            .read_to_string(&mut s)
            .map_err(|e| format!("cannot read standard input: {e}"))?;
        s
    } else {
        std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?
    };
    let mut s = scenario::parse(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    crate::fmus::embed(&mut s, path).map_err(|e| format!("{}: {e}", path.display()))?;
    s.validate().map_err(|e| format!("{}: {e}", path.display()))
}
