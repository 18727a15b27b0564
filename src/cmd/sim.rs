//! `weft sim`: run a memory trace through the simulators. `--dram-only` feeds
//! the trace straight to the memory controllers (`weft_memsim::dram`).

use std::path::PathBuf;

use anyhow::{anyhow, Context};
use std::io::IsTerminal;
use weft_memsim::config::MachineConfig;
use weft_memsim::dram_backend::Scheduler;
use weft_memsim::oracle::Oracle;
use weft_memsim::run::{
    config_scheduler, simulate_trace_file, simulate_trace_file_sampled, RunOptions, SampledRun,
};

/// Simulate a memory trace on a machine configuration.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  weft sim --machine table5.2 --trace app.trace --json      # full manycore
  weft sim --trace app.txt --scheduler par-bs --oracle blp-ideal --seed 7
  weft sim --trace app.trace --json --perturb 4 --seed 2    # one sample of the noise floor
  weft sim --dram-only --trace requests.txt                 # table5.2 machine, text summary
  weft sim --dram-only --machine dramsim3-ddr4-2400 --trace t.trc --json
  weft sim --dram-only --machine my.toml --trace t.txt

Trace formats: the binary weft trace (magic WEFTTRC); text, one record per line with
`#` comments: `<core> <gap> <R|W> <hex address>` for the full system (gap = non-memory
instructions before the access) and `<core> <gap> B` for a barrier (every core waits there
until all have arrived or finished), `<cycle> <R|W> <hex address>` with --dram-only.
A trace naming more cores than the machine has is an error. Machines: table5.2 (default), table4.2,
dramsim3-ddr4-2400, or a TOML file.")]
pub struct Args {
    /// Simulate only the DRAM: requests go straight to the memory controllers.
    #[arg(long)]
    pub dram_only: bool,
    /// Machine preset name or TOML file.
    #[arg(long, value_name = "PRESET|FILE", default_value = "table5.2")]
    pub machine: String,
    /// Trace file (text or binary).
    #[arg(long, value_name = "FILE")]
    pub trace: PathBuf,
    /// Print the statistics as one JSON object.
    #[arg(long)]
    pub json: bool,
    /// Memory scheduler (full system): fcfs | fr-fcfs | par-bs | tcm (default: the machine's).
    #[arg(long)]
    pub scheduler: Option<String>,
    /// Oracle mode (full system): none | mlp-ideal | blp-ideal | ideal.
    #[arg(long, default_value = "none")]
    pub oracle: String,
    /// Seed (TCM's shuffles, `--perturb`); equal inputs and seed give byte-identical output.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Perturbed run (full system): every request to a memory controller arrives
    /// 0..=N cycles late, uniformly, drawn from `--seed` (Alameldeen and Wood,
    /// HPCA 2003). Runs under different seeds then show the simulation's noise
    /// floor for this trace; 0 = off.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub perturb: u32,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
    /// Threads (full system): 1, or 2 to run the DRAM model on a thread of its own
    /// (identical results; default: 2 when the machine has two or more cores).
    #[arg(long, value_name = "1|2", value_parser = clap::value_parser!(u32).range(1..=2))]
    pub threads: Option<u32>,
    /// Sampled simulation (full system, docs/sampling.md): per core, the first
    /// DETAILED records of every PERIOD records run in detail, the rest warm the
    /// caches, prefetchers and row buffers; cycles and BLP are extrapolated with
    /// a 95% confidence interval. The DRAM then runs on the simulating thread.
    #[arg(long, value_name = "PERIOD:DETAILED")]
    pub sample: Option<String>,
}

/// Whether to run the DRAM model on its own thread: `threads` if given, else when
/// the host has at least two cores.
pub fn dram_thread(threads: Option<u32>) -> bool {
    match threads {
        Some(n) => n >= 2,
        None => std::thread::available_parallelism().is_ok_and(|n| n.get() >= 2),
    }
}

/// Runs the simulation.
pub fn run(args: Args) -> anyhow::Result<()> {
    let machine =
        MachineConfig::load(&args.machine).context("loading the machine configuration")?;
    if !args.dram_only {
        return run_full(&args, &machine);
    }
    let t0 = std::time::Instant::now();
    let stats = weft_memsim::dram::simulate_trace_file(&machine.dram, &args.trace)?;
    let secs = t0.elapsed().as_secs_f64();
    if args.json {
        println!("{}", serde_json::to_string_pretty(&stats)?);
        return Ok(());
    }
    println!("machine        {} ({})", machine.name, machine.dram.speed);
    println!("trace          {}", args.trace.display());
    println!(
        "requests       {} ({} reads, {} writes)",
        stats.requests, stats.reads, stats.writes
    );
    println!(
        "cycles         {} DRAM cycles ({:.3} us)",
        stats.cycles,
        stats.cycles as f64 * machine.dram.tck_ns / 1e3
    );
    println!("BLP            {:.3}", stats.blp);
    println!(
        "row buffer     {} hits, {} misses, {} conflicts (hit rate {:.2} %)",
        stats.row_hits,
        stats.row_misses,
        stats.row_conflicts,
        100.0 * stats.row_hit_rate
    );
    println!("read latency   {:.2} cycles (mean)", stats.avg_read_latency);
    println!(
        "write latency  {:.2} cycles (mean)",
        stats.avg_write_latency
    );
    println!(
        "bandwidth      {:.3} GB/s (peak {:.3})",
        stats.bandwidth_gbps, stats.peak_bandwidth_gbps
    );
    println!(
        "commands       {} ACT, {} PRE, {} RD, {} WR, {} REF",
        stats.commands.act,
        stats.commands.pre,
        stats.commands.rd,
        stats.commands.wr,
        stats.commands.refresh
    );
    println!(
        "simulated in   {:.3} s ({:.0} requests/s)",
        secs,
        stats.requests as f64 / secs.max(1e-9)
    );
    Ok(())
}

/// Parses the policy options shared by `weft sim` and `weft bench sim`.
pub fn options(
    cfg: &MachineConfig,
    scheduler: Option<&str>,
    oracle: &str,
    seed: u64,
    dram_thread: bool,
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
        perturb: 0,
        dram_thread,
    })
}

/// Full-system (manycore) simulation.
fn run_full(args: &Args, cfg: &MachineConfig) -> anyhow::Result<()> {
    let opts = RunOptions {
        perturb: args.perturb,
        ..options(
            cfg,
            args.scheduler.as_deref(),
            &args.oracle,
            args.seed,
            dram_thread(args.threads),
        )?
    };
    let sample = args
        .sample
        .as_deref()
        .map(weft_memsim::sample::SampleParams::parse)
        .transpose()
        .map_err(|e| anyhow!(e))?;
    let bar = (!args.quiet && std::io::stderr().is_terminal()).then(|| {
        let b = indicatif::ProgressBar::new_spinner();
        b.set_message("simulating");
        b
    });
    let tick = |n: u64| {
        if let Some(b) = &bar {
            b.set_message(format!("{n} records retired"));
            b.tick();
        }
    };
    if let Some(p) = sample {
        let r = simulate_trace_file_sampled(cfg, &args.trace, &opts, p, tick)
            .with_context(|| format!("simulating {}", args.trace.display()))?;
        if let Some(b) = bar {
            b.finish_and_clear();
        }
        return print_sampled(args, cfg, &r);
    }
    let stats = simulate_trace_file(cfg, &args.trace, &opts, tick)
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

/// Prints a sampled run: the estimate first, then the detailed part's counters.
fn print_sampled(args: &Args, cfg: &MachineConfig, r: &SampledRun) -> anyhow::Result<()> {
    if args.json {
        println!("{}", serde_json::to_string_pretty(r)?);
        return Ok(());
    }
    let e = &r.estimate;
    let d = &r.detailed;
    let ci = match (e.cycles_ci95, e.cycles_ci95_rel) {
        (Some(c), Some(rel)) => format!("+- {c:.0} ({:.2} %, 95 %)", 100.0 * rel),
        _ => "unknown (no interval with two sampled segments)".into(),
    };
    println!("machine            {}", cfg.name);
    println!(
        "sampling           {}:{} (period:detailed records per core)",
        r.params.period, r.params.detailed
    );
    println!("cycles (estimate)  {:.0} {ci}", e.cycles);
    println!("blp (estimate)     {:.3}", e.blp);
    println!(
        "inspection/region  {:.0} / {:.0} cycles (estimate)",
        e.inspection_cycles, e.region_cycles
    );
    println!(
        "records            {} detailed + {} warmed",
        d.records, r.warmed.records
    );
    println!(
        "segments           {} ({} sampled) in {} intervals; {} cycles in detail",
        e.segments, e.sampled_segments, e.intervals, e.detailed_cycles
    );
    println!("llc hit rate       {:.4} (detailed part)", d.llc_hit_rate);
    println!("row hit rate       {:.4} (detailed part)", d.row_hit_rate);
    Ok(())
}
