//! `weft sim`: full-system (manycore) simulation of a memory trace.

use anyhow::{anyhow, Context};
use std::io::IsTerminal;
use std::path::PathBuf;
use weft_memsim::config::MachineConfig;
use weft_memsim::dram_backend::Scheduler;
use weft_memsim::oracle::Oracle;
use weft_memsim::run::{config_scheduler, simulate_trace_file, RunOptions};

/// Simulate a per-core memory trace on a manycore (cores, L1, mesh NoC, S-NUCA LLC,
/// memory controllers, DDR4).
#[derive(clap::Args, Debug)]
#[command(after_help = "\
The trace is binary (WEFTTRC header, as `weft run --trace` writes it) or text, one
record per line: `<core> <gap> <R|W> <hex address>` (`#` starts a comment), where gap
is the number of non-memory instructions before the access. A trace naming more cores
than the machine has is an error.

Examples:
  weft sim --machine table5.2 --trace app.trace --json
  weft sim --machine table5.2 --trace app.trace --scheduler par-bs
  weft sim --machine my-machine.toml --trace app.txt --oracle blp-ideal --seed 7")]
pub struct Args {
    /// Machine preset (table5.2, table4.2, dramsim3-ddr4-2400) or TOML file.
    #[arg(long, default_value = "table5.2")]
    pub machine: String,
    /// Trace file (binary or text).
    #[arg(long)]
    pub trace: PathBuf,
    /// Print the statistics as one JSON object.
    #[arg(long)]
    pub json: bool,
    /// Memory scheduler: fcfs | fr-fcfs | par-bs | tcm (default: the machine's).
    #[arg(long)]
    pub scheduler: Option<String>,
    /// Oracle mode: none | mlp-ideal | blp-ideal | ideal.
    #[arg(long, default_value = "none")]
    pub oracle: String,
    /// Seed (TCM's shuffles); equal inputs and seed give byte-identical output.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

/// Parses the policy options shared by `weft sim` and `weft bench sim`.
pub fn options(
    cfg: &MachineConfig,
    scheduler: Option<&str>,
    oracle: &str,
    seed: u64,
) -> anyhow::Result<RunOptions> {
    let scheduler = match scheduler {
        None => config_scheduler(cfg),
        Some(s) => Scheduler::parse(s).ok_or_else(|| {
            anyhow!("unknown scheduler `{s}` (expected fcfs, fr-fcfs, par-bs or tcm)")
        })?,
    };
    let oracle = Oracle::parse(oracle).ok_or_else(|| {
        anyhow!("unknown oracle `{oracle}` (expected none, mlp-ideal, blp-ideal or ideal)")
    })?;
    Ok(RunOptions {
        scheduler,
        oracle,
        seed,
    })
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let cfg = MachineConfig::load(&args.machine)
        .with_context(|| format!("machine `{}`", args.machine))?;
    let opts = options(&cfg, args.scheduler.as_deref(), &args.oracle, args.seed)?;
    let bar = (!args.quiet && std::io::stderr().is_terminal()).then(|| {
        let b = indicatif::ProgressBar::new_spinner();
        b.set_message("simulating");
        b
    });
    let stats = simulate_trace_file(&cfg, &args.trace, &opts, |n| {
        if let Some(b) = &bar {
            b.set_message(format!("{n} records retired"));
            b.tick();
        }
    })
    .with_context(|| format!("simulating {}", args.trace.display()))?;
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&stats)?);
    } else {
        println!("machine            {}", cfg.name);
        println!("records            {}", stats.records);
        println!("cycles             {}", stats.cycles);
        println!("instructions       {}", stats.instructions);
        println!("blp (= mlp)        {:.3}", stats.blp);
        println!("clp                {:.3}", stats.clp);
        println!("llc hit rate       {:.4}", stats.llc_hit_rate);
        println!("llc mpki           {:.3}", stats.llc_mpki);
        println!("row hit rate       {:.4}", stats.row_hit_rate);
        println!(
            "avg L1-miss lat.   {:.1} (network {:.1}, llc {:.1}, dram {:.1})",
            stats.avg_mem_latency,
            stats.avg_network_latency,
            stats.avg_llc_latency,
            stats.avg_dram_latency
        );
        println!(
            "noc avg/max lat.   {:.1} / {}",
            stats.noc.avg_latency, stats.noc.max_latency
        );
        println!(
            "intra/inter MLP    {:.2} / {:.2}   intra/inter CLP {:.2} / {:.2} (per {}-cycle window)",
            stats.intra_core_mlp, stats.inter_core_mlp, stats.intra_core_clp, stats.inter_core_clp, stats.epoch_cycles
        );
    }
    Ok(())
}
