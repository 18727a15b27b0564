//! `weft`: the command-line tool. It parses arguments and wires the crates
//! together; every algorithm lives in a library crate.

mod cmd;

use clap::{Parser, Subcommand};

/// Loop scheduling for memory parallelism: optimizer, runtime and simulators.
#[derive(Parser)]
#[command(name = "weft", version, about, long_about = None, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a runtime scheduler (Algorithm 4 or 5) on an instance file.
    Schedule(cmd::schedule::Args),
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    let result: anyhow::Result<()> = match cli.command {
        Command::Schedule(a) => cmd::schedule::run(a),
    };
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
