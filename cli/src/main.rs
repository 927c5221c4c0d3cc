//! `cosim`: the command-line front end of Cosim Playground, on the same core as the page.
//!
//! Exit status: 0 on success, 1 when the scenario or the run fails (the message names the
//! field or the module and time) or standard output could not be written, 2 for a wrong
//! command line, 130 when interrupted (Ctrl-C; what was computed is written first).

mod analysis;
mod args;
mod commands;
mod defects;
mod energy;
mod fmus;
mod io;
mod link;
mod mpi;
mod parallel;
mod ssp;

use std::process::ExitCode;

fn main() -> ExitCode {
    let mut argv = Vec::new();
    for (i, a) in std::env::args_os().skip(1).enumerate() {
        match a.into_string() {
            Ok(s) => argv.push(s),
            Err(raw) => {
                io::note(&format!(
                    "error: argument {} ({}) is not valid UTF-8; cosim takes names and paths in UTF-8\n",
                    i + 1,
                    raw.to_string_lossy()
                ));
                return ExitCode::from(2);
            }
        }
    }
    let parsed = args::split_limits(argv)
        .and_then(|(rest, limits)| args::Command::parse(&rest).map(|c| (c, limits)));
    let (command, limits) = match parsed {
        Ok(c) => c,
        Err(msg) => {
            io::note(&format!("error: {msg}\n\n{}\n", args::USAGE));
            return ExitCode::from(2);
        }
    };
    match commands::execute(command, &limits) {
        Ok(()) => ExitCode::SUCCESS,
        Err(io::Failure::OutputClosed) => ExitCode::from(1),
        Err(io::Failure::Message(msg)) => {
            io::note(&format!("error: {}\n", cosim_core::error::cap_message(msg)));
            if commands::interrupted() {
                return ExitCode::from(130);
            }
            ExitCode::from(1)
        }
    }
}
