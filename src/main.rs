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
    Gpusim(Box<cmd::gpusim::Args>),
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
        Command::Gpusim(a) => cmd::gpusim::run(*a),
        Command::Bench(a) => cmd::bench::run(a),
        Command::Schedule(a) => cmd::schedule::run(a),
    };
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {}", error_chain(&e));
            std::process::ExitCode::FAILURE
        }
    }
}

/// The error and its causes joined by `: `, leaving out a cause whose text
/// its parent already ends with (a typed error that prints its source and
/// also reports it as its source would otherwise say everything twice).
fn error_chain(e: &anyhow::Error) -> String {
    let mut out = String::new();
    let mut parent = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if !parent.is_empty() && parent.ends_with(&text) {
            continue;
        }
        if !out.is_empty() {
            out.push_str(": ");
        }
        out.push_str(&text);
        parent = text;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::error_chain;

    #[test]
    fn causes_already_in_the_message_are_not_repeated() {
        #[derive(Debug)]
        struct Read(std::io::Error);
        impl std::fmt::Display for Read {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "cannot read x.toml: {}", self.0)
            }
        }
        impl std::error::Error for Read {
            fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
                Some(&self.0)
            }
        }
        let io = std::io::Error::from_raw_os_error(21);
        let e = anyhow::Error::new(Read(io)).context("loading the machine");
        let s = error_chain(&e);
        assert_eq!(s.matches("os error 21").count(), 1, "{s}");
        assert!(
            s.starts_with("loading the machine: cannot read x.toml: "),
            "{s}"
        );
        let plain = anyhow::anyhow!("inner").context("outer");
        assert_eq!(error_chain(&plain), "outer: inner");
    }
}
