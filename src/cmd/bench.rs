//! `weft bench`: simulator speed figures.

use anyhow::{bail, Context};
use std::time::Instant;
use weft_memsim::config::MachineConfig;
use weft_memsim::run::{bench_workload, simulate};

/// Measure simulator speed.
#[derive(clap::Args, Debug)]
#[command(after_help = "\
`sim`: simulated records per second of the full manycore model on a synthetic trace
(36 cores on table5.2; 3/4 streaming, 1/4 random accesses, gaps 0..=8, one store in 8),
generated on the fly so the trace file does not dominate.

Examples:
  weft bench sim                      # 10^7 records on table5.2
  weft bench sim --records 1000000 --json")]
pub struct Args {
    /// What to measure: sim.
    pub what: String,
    /// Machine preset or TOML file.
    #[arg(long, default_value = "table5.2")]
    pub machine: String,
    /// Records in the synthetic trace (all cores together).
    #[arg(long, default_value_t = 10_000_000)]
    pub records: u64,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    match args.what.as_str() {
        "sim" => bench_sim(&args),
        w => bail!("unknown benchmark `{w}` (expected sim)"),
    }
}

fn bench_sim(args: &Args) -> anyhow::Result<()> {
    let cfg = MachineConfig::load(&args.machine)
        .with_context(|| format!("machine `{}`", args.machine))?;
    let opts = super::sim::options(&cfg, None, "none", 1)?;
    let mut src = bench_workload(cfg.core.count, args.records, 1);
    let t = Instant::now();
    let s = simulate(&cfg, &mut src, &opts, |_| {})?;
    let secs = t.elapsed().as_secs_f64();
    let rate = s.records as f64 / secs;
    if args.json {
        let v = serde_json::json!({
            "machine": cfg.name, "cores": cfg.core.count, "records": s.records,
            "seconds": secs, "records_per_second": rate, "simulated_cycles": s.cycles,
            "cycles_per_second": s.cycles as f64 / secs,
        });
        println!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        println!(
            "sim: {} records on {} ({} cores) in {:.2} s = {:.0} records/s ({} simulated cycles)",
            s.records, cfg.name, cfg.core.count, secs, rate, s.cycles
        );
    }
    Ok(())
}
