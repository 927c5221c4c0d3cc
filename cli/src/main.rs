//! `cosim`: the command-line front end of Cosim Playground, on the same core as the page.
//!
//! Exit status: 0 on success, 1 when the scenario or the run fails (the message names the
//! field or the module and time), 2 for a wrong command line.

mod analysis;
mod args;
mod commands;
mod defects;
mod fmus;
mod link;
mod parallel;

use std::process::ExitCode;

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let command = match args::Command::parse(&argv) {
        Ok(c) => c,
        Err(msg) => {
            eprintln!("error: {msg}\n\n{}", args::USAGE);
            return ExitCode::from(2);
        }
    };
    match commands::execute(command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("error: {msg}");
            ExitCode::from(1)
        }
    }
}
