//! `weft demo`: the README's main command, `weft eval --quick` into a default
//! output directory, printing the summary tables of both sides: the CPU studies
//! (chapters 4 and 5) and the GPU part of `--quick` (a few cells of every GPU
//! study, `eval::gpu_study::GpuSize::Smoke`, with the papers' claims).

use std::path::PathBuf;

/// Run the quick evaluation (CPU studies and the GPU part, small inputs) and print the summaries.
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

/// Runs `eval --quick` (CPU and GPU parts).
pub fn run(args: Args) -> anyhow::Result<()> {
    eval_quick(args)
}

/// `eval --quick` into the demo's folder.
fn eval_quick(args: Args) -> anyhow::Result<()> {
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
        machine: None,
        no_sweeps: true,
        report: None,
        cache: None,
        keep_traces: false,
        input_scale: 1,
        replicas: weft_testsuite::eval::DEFAULT_REPLICAS,
        from_records: None,
    })
}
