//! Simulated records per second of the manycore model on `table5.2`, and BLP/CLP of
//! a streaming versus a same-bank workload.
//! `cargo run --release -p weft-memsim --example sim_speed -- [records]`

use std::time::Instant;
use weft_memsim::config::MachineConfig;
use weft_memsim::run::{bench_workload, pattern_workload, simulate, RunOptions};
use weft_memsim::synth::Pattern;

fn main() {
    let total: u64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000);
    let cfg = MachineConfig::preset("table5.2").unwrap();
    let t = Instant::now();
    let s = simulate(
        &cfg,
        &mut bench_workload(36, total, 1),
        &RunOptions::default(),
        |_| {},
    )
    .unwrap();
    let dt = t.elapsed().as_secs_f64();
    println!(
        "mixed: {} records in {:.2}s = {:.0} records/s; cycles {} mlp {:.2} clp {:.2} llc_hit {:.3} row_hit {:.3} lat {:.1}",
        s.records, dt, s.records as f64 / dt, s.cycles, s.mlp, s.clp, s.llc_hit_rate, s.row_hit_rate, s.avg_mem_latency
    );
    for (name, pattern) in [
        ("stream", Pattern::Stream),
        ("same-bank", Pattern::SameBank),
    ] {
        let per_core = std::env::args()
            .nth(2)
            .and_then(|s| s.parse().ok())
            .unwrap_or(300);
        let mut src = pattern_workload(&cfg, pattern, 36, per_core).unwrap();
        let s = simulate(&cfg, &mut src, &RunOptions::default(), |n| {
            if std::env::var_os("TRACE_PROGRESS").is_some() {
                eprintln!("{n}")
            }
        })
        .unwrap();
        println!(
            "{name}: cycles {} blp {:.2} clp {:.2} llc_hit {:.3} row_hit {:.3} lat {:.1}",
            s.cycles, s.blp, s.clp, s.llc_hit_rate, s.row_hit_rate, s.avg_mem_latency
        );
    }
}
