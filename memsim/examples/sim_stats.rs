//! Writes the full JSON stats of the `sim_speed` workloads (mixed `bench_workload`,
//! stream, same-bank) so that model changes can be checked byte for byte.
//! `cargo run --release -p weft-memsim --example sim_stats -- OUT_DIR [records] [per_core]`

use weft_memsim::config::MachineConfig;
use weft_memsim::run::{bench_workload, pattern_workload, simulate, RunOptions};
use weft_memsim::synth::Pattern;

fn main() {
    let mut args = std::env::args().skip(1);
    let dir = std::path::PathBuf::from(
        args.next()
            .expect("usage: sim_stats OUT_DIR [records] [per_core]"),
    );
    let total: u64 = args
        .next()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000);
    let per_core: u64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(300);
    std::fs::create_dir_all(&dir).expect("out dir");
    let cfg = MachineConfig::preset("table5.2").expect("preset");
    let write = |name: &str, s: &weft_memsim::manycore::RunStats| {
        let p = dir.join(format!("{name}.json"));
        std::fs::write(&p, serde_json::to_string_pretty(s).expect("json")).expect("write");
        println!("{}", p.display());
    };
    let s = simulate(
        &cfg,
        &mut bench_workload(36, total, 1),
        &RunOptions::default(),
        |_| {},
    )
    .expect("run");
    write("mixed", &s);
    for (name, pattern) in [
        ("stream", Pattern::Stream),
        ("same-bank", Pattern::SameBank),
    ] {
        let mut src = pattern_workload(&cfg, pattern, 36, per_core).expect("workload");
        let s = simulate(&cfg, &mut src, &RunOptions::default(), |_| {}).expect("run");
        write(name, &s);
    }
}
