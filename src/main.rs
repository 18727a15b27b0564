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
    /// Loop report: nests, IVs, trip counts, accesses, dependences, parallel regions.
    Analyze(cmd::analyze::Args),
    /// Optimize LLVM IR through a pass pipeline (like LLVM's `opt`).
    Opt(cmd::opt::Args),
    /// Optimize a program and link it with the runtime into an executable.
    Build(cmd::build::Args),
    /// Run a program built by `weft build`, natively or in trace mode.
    Run(cmd::run::Args),
    /// Run the evaluation studies (ch. 4 BLP, ch. 5 MLP/CLP): tables, plots, summary.json.
    Eval(cmd::eval::Args),
    /// Speed figures (`weft bench dram`: DRAM model vs DRAMsim3).
    Bench(cmd::bench::Args),
    /// Simulate a memory trace (`--dram-only`: DRAM controllers and devices only).
    Sim(cmd::sim::Args),
    /// Simulate a GPU workload on a GPU machine (SMs, warps, caches on the shared memory model).
    Gpusim(cmd::gpusim::Args),
    /// The quick evaluation with default output: `weft eval --quick --out weft-demo`.
    Demo(cmd::demo::Args),
    /// Run a runtime scheduler (Algorithm 4 or 5) on an instance file.
    Schedule(cmd::schedule::Args),
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    let result: anyhow::Result<()> = match cli.command {
        Command::Analyze(a) => cmd::analyze::run(a),
        Command::Opt(a) => cmd::opt::run(a),
        Command::Build(a) => cmd::build::run(a),
        Command::Run(a) => cmd::run::run(a),
        Command::Eval(a) => cmd::eval::run(a),
        Command::Demo(a) => cmd::demo::run(a),
        Command::Sim(a) => cmd::sim::run(a),
        Command::Gpusim(a) => cmd::gpusim::run(a),
        Command::Bench(a) => cmd::bench::run(a),
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
