//! `weft run`: execute a program built by `weft build`, natively or in trace mode.

use std::path::PathBuf;
use std::process::Command;

use anyhow::{bail, Context as _, Result};

/// Arguments of `weft run`.
#[derive(clap::Args)]
#[command(after_help = "Examples:
  weft run ./spmv --trace spmv.trace --cores 16       # per-core trace for `weft sim`
  weft run ./spmv --cores 2 --stats stats.json       # native, 2 worker threads
  weft run ./prog --cores 4 -- input.mtx 10          # arguments after `--`
In trace mode the executor runs the schedule sequentially and tags each record with its
virtual core (WEFT_TRACE, WEFT_CORES); only functions instrumented by `instrument-trace`
produce records. The program runs with ASLR off (reproducible addresses and traces) unless
--randomize-layout is given.")]
pub struct Args {
    /// The executable.
    pub exe: PathBuf,
    /// Write the memory trace here (trace mode).
    #[arg(long)]
    pub trace: Option<PathBuf>,
    /// Number of cores: worker threads natively, virtual cores in trace mode.
    #[arg(long)]
    pub cores: Option<u32>,
    /// Write the runtime's statistics (inspector time, coverage ratio) as JSON here.
    #[arg(long)]
    pub stats: Option<PathBuf>,
    /// Machine preset or TOML for the runtime's bank maps (default: table5.2).
    #[arg(long)]
    pub machine: Option<String>,
    /// Keep address-space layout randomisation (by default the program runs with
    /// ASLR off, like `setarch -R`, so its addresses, banks and traces are the
    /// same on every run).
    #[arg(long)]
    pub randomize_layout: bool,
    /// Arguments passed to the program.
    #[arg(last = true)]
    pub args: Vec<String>,
}

/// Runs `weft run`.
pub fn run(args: Args) -> Result<()> {
    if !args.exe.is_file() {
        bail!(
            "{} does not exist (build it with `weft build`)",
            args.exe.display()
        );
    }
    if args.cores == Some(0) {
        bail!("--cores must be at least 1");
    }
    let mut cmd = Command::new(&args.exe);
    cmd.args(&args.args);
    if !args.randomize_layout {
        weft_passes::link::reproducible_layout(&mut cmd);
    }
    if let Some(t) = &args.trace {
        cmd.env("WEFT_TRACE", t);
    }
    if let Some(p) = args.cores {
        cmd.env("WEFT_CORES", p.to_string());
    }
    if let Some(s) = &args.stats {
        cmd.env("WEFT_STATS", s);
    }
    if let Some(m) = &args.machine {
        cmd.env("WEFT_MACHINE", m);
    }
    let status = cmd
        .status()
        .with_context(|| format!("running {}", args.exe.display()))?;
    if !status.success() {
        bail!("{} exited with {status}", args.exe.display());
    }
    Ok(())
}
