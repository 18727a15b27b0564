//! How fast the memory side (cores, L1, NoC, LLC banks, directory, prefetchers,
//! meters) runs on its own: the `weft bench sim` workload on `table5.2`'s
//! memory side, with the cycle-level DDR4 model replaced by the fixed-latency
//! [`SimpleDram`] (4 channels x 32 banks, 40 DRAM cycles), all on one thread.
//!
//! With `--threads 2` the DDR4 model runs beside the memory side
//! (`memsim/src/dram_side.rs`), so the memory side's own speed bounds the
//! two-thread rate from above. This rate also pays for the fixed-latency model
//! and its BLP meter (about 6% of the time in `perf`), so it understates that
//! bound by as much. The timing differs from the DDR4 run (other latencies,
//! so other cycle counts); only the speed is of interest here.
//!
//! `cargo run --release -p weft-memsim --example sim_memory_side -- [records]`

use std::time::Instant;
use weft_memsim::config::MachineConfig;
use weft_memsim::manycore::Manycore;
use weft_memsim::oracle::Oracle;
use weft_memsim::run::bench_workload;
use weft_memsim::simple_dram::SimpleDram;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let total: u64 = match std::env::args().nth(1) {
        Some(s) => s
            .parse()
            .map_err(|e| format!("records `{s}`: {e} (usage: sim_memory_side [records])"))?,
        None => 3_000_000,
    };
    let cfg = MachineConfig::preset("table5.2")?;
    let (cp, sp) = weft_memsim::machine::params(&cfg, Oracle::None)?;
    let dram = SimpleDram::new(4, 32, 64, 40, 64);
    let mut m = Manycore::new(cfg.core.count, cp, sp, dram)?;
    let mut src = bench_workload(cfg.core.count, total, 1);
    let t = Instant::now();
    let s = m.run(&mut src, |_| {})?;
    let dt = t.elapsed().as_secs_f64();
    println!(
        "memory side with a fixed-latency DRAM: {} records in {:.2} s = {:.0} records/s ({} simulated cycles, LLC hit rate {:.3}, {:.1} LLC MPKI)",
        s.records,
        dt,
        s.records as f64 / dt,
        s.cycles,
        s.llc_hit_rate,
        s.llc_mpki
    );
    Ok(())
}
