//! `weft demo`: the README's main command, `weft eval --quick` into a default
//! output directory, printing the summary table, then a small GPU part: the
//! shipped BFS on the `k20c-dtbl` GPU under the GTO and LRR warp schedulers
//! (`weft gpusim`, on the same memory model).

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

/// Runs `eval --quick`, then the GPU part (not with `--json`).
pub fn run(args: Args) -> anyhow::Result<()> {
    let json = args.json;
    eval_quick(args)?;
    if !json {
        gpu_part()?;
    }
    Ok(())
}

/// The GPU part: BFS (the shipped workload on its generated R-MAT graph) on
/// `k20c-dtbl` under GTO and LRR, one line each.
fn gpu_part() -> anyhow::Result<()> {
    use std::sync::Arc;
    use weft_memsim::gpu::config::WarpSchedKind;
    use weft_memsim::gpu::{GpuOptions, GpuSim};
    let machine = weft_memsim::config::MachineConfig::load("k20c-dtbl")?;
    let wl = Arc::new(super::gpusim::load_workload(None, Some("bfs"), None)?);
    println!();
    println!("GPU (weft gpusim --machine k20c-dtbl --app bfs): 13 SMs, shared L2/DRAM model");
    println!(
        "{:<6} {:>10} {:>7} {:>8} {:>8} {:>9} {:>6}",
        "warps", "cycles", "IPC", "L1 hit", "L2 hit", "row hit", "BLP"
    );
    for (name, kind) in [("gto", WarpSchedKind::Gto), ("lrr", WarpSchedKind::Lrr)] {
        let opts = GpuOptions {
            warp_sched: Some(kind),
            seed: 1,
            ..Default::default()
        };
        let s = GpuSim::build(&machine, wl.clone(), &opts)?.run(|_| {})?;
        let dram = |k: &str| s.dram.get(k).and_then(|v| v.as_f64()).unwrap_or(f64::NAN);
        println!(
            "{:<6} {:>10} {:>7.3} {:>8.3} {:>8.3} {:>9.3} {:>6.2}",
            name,
            s.cycles,
            s.ipc,
            s.l1_hit_rate,
            s.l2_hit_rate,
            dram("row_hit_rate"),
            dram("blp")
        );
    }
    Ok(())
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
    })
}
