//! `weft sim`: run a memory trace through the simulators. `--dram-only` feeds
//! the trace straight to the memory controllers (`weft_memsim::dram`).

use std::path::PathBuf;

use anyhow::{bail, Context};
use weft_memsim::config::MachineConfig;

/// Simulate a memory trace on a machine configuration.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  weft sim --dram-only --trace requests.txt                 # table5.2 machine, text summary
  weft sim --dram-only --machine dramsim3-ddr4-2400 --trace t.trc --json
  weft sim --dram-only --machine my.toml --trace t.txt

Trace formats: text `<cycle> <R|W> <hex address>` per line (`#` comments), or the
binary weft trace (magic WEFTTRC). Machines: table5.2 (default), table4.2,
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
}

/// Runs the simulation.
pub fn run(args: Args) -> anyhow::Result<()> {
    let machine =
        MachineConfig::load(&args.machine).context("loading the machine configuration")?;
    if !args.dram_only {
        bail!("full-system simulation is not available yet; use --dram-only");
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
