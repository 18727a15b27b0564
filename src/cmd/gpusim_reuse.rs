//! `weft gpusim reuse`: runs a GPU workload with an L1 trace recorder, tags the
//! trace with kernel, TB, warp and parent, and prints LASER's reuse
//! characterisation and LaPerm's shared-footprint ratios
//! (`weft_memsim::gpu::reuse`; `docs/gpu-sched.md`).

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{anyhow, Context};
use weft_memsim::config::MachineConfig;
use weft_memsim::gpu::config::TbSchedKind;
use weft_memsim::gpu::dp::DpMode;
use weft_memsim::gpu::GpuOptions;
use weft_testsuite::eval::gpu_sched;

/// Reuse characterisation of one run.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  weft gpusim reuse --app bfs --dp cdp
  weft gpusim reuse --machine k20-spawn --app sssp --dp dtbl --json --out r   # r/reuse.json, r/reuse.svg")]
pub struct Args {
    /// GPU machine preset or TOML file.
    #[arg(long, value_name = "PRESET|FILE", default_value = "k20c-dtbl")]
    pub machine: String,
    /// Workload file (TOML).
    #[arg(long, value_name = "FILE", conflicts_with = "app")]
    pub workload: Option<PathBuf>,
    /// A shipped workload by name.
    #[arg(long, value_name = "NAME")]
    pub app: Option<String>,
    /// Graph file replacing the shipped workload's generated graph.
    #[arg(long, value_name = "FILE", requires = "app")]
    pub graph: Option<PathBuf>,
    /// A `[defs]` constant's value (as `weft gpusim --define`; repeatable).
    #[arg(long, short = 'D', value_name = "NAME=VALUE", value_parser = super::gpusim::parse_define)]
    pub define: Vec<(String, i64)>,
    /// Device launches (as `weft gpusim --dp`). Default cdp: the characterisation
    /// is about parents and children.
    #[arg(long, value_name = "MODE", default_value = "cdp")]
    pub dp: String,
    /// Thread-block dispatcher of the traced run (default: the machine's).
    #[arg(long, value_name = "POLICY")]
    pub tb_sched: Option<String>,
    /// Loads only (the thesis's monitors see reads); default: loads and stores.
    #[arg(long)]
    pub reads_only: bool,
    /// Seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
    /// Directory for `reuse.json` and the histogram plot `reuse.svg`.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

/// Runs the traced simulation and the analysis.
pub fn run(args: Args) -> anyhow::Result<()> {
    let machine =
        MachineConfig::load(&args.machine).context("loading the machine configuration")?;
    let dp = DpMode::parse(&args.dp).ok_or_else(|| anyhow!("unknown --dp mode `{}`", args.dp))?;
    let tb_sched = args
        .tb_sched
        .as_deref()
        .map(|s| TbSchedKind::parse(s).ok_or_else(|| anyhow!("unknown TB scheduler `{s}`")))
        .transpose()?;
    let wl = super::gpusim::load_workload(
        args.workload.as_deref(),
        args.app.as_deref(),
        args.graph.as_deref(),
        &args.define,
    )?;
    let opts = GpuOptions {
        tb_sched,
        seed: args.seed,
        dp: Some(dp),
        ..GpuOptions::default()
    };
    let report = gpu_sched::trace_reuse(&machine, Arc::new(wl), &opts, args.reads_only)
        .map_err(|e| anyhow!("{e}"))?;
    if let Some(dir) = &args.out {
        std::fs::create_dir_all(dir)?;
        std::fs::write(
            dir.join("reuse.json"),
            serde_json::to_string_pretty(&report)?,
        )?;
        gpu_sched::plot_reuse(&report, &dir.join("reuse.svg"))?;
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", gpu_sched::reuse_text(&report));
    }
    Ok(())
}
