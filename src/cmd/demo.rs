//! `weft demo`: the README's main command, `weft eval --quick` into a default
//! output directory, printing the summary table.

use std::path::PathBuf;

/// Run the quick evaluation (both studies, small inputs) and print the summary.
#[derive(clap::Args, Debug)]
#[command(after_help = "Example:
  weft demo                 # = weft eval --quick --out weft-demo
  weft demo --out /tmp/d --jobs 2")]
pub struct Args {
    /// Output directory.
    #[arg(long, value_name = "DIR", default_value = "weft-demo")]
    pub out: PathBuf,
    /// Parallel jobs (default: available cores).
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
    /// Print summary.json instead of the table.
    #[arg(long)]
    pub json: bool,
}

/// Runs `eval --quick`.
pub fn run(args: Args) -> anyhow::Result<()> {
    super::eval::run(super::eval::Args {
        quick: true,
        out: args.out,
        jobs: args.jobs,
        quiet: args.quiet,
        json: args.json,
        study: Vec::new(),
        bench: Vec::new(),
        versions: Vec::new(),
        tiny: false,
        inputs: None,
        no_sweeps: true,
        report: None,
        cache: None,
        keep_traces: false,
        input_scale: 1,
    })
}
