//! Criterion benchmark of the full manycore simulation: simulated records per second
//! (reported as elements/s) on `table5.2` (36 cores, FR-FCFS) with the benchmark
//! workload of `weft bench sim`, [`run::bench_workload`] (3/4 streaming, 1/4 random,
//! gaps 0..=8, one store in 8). The headline figure (10^7 records) is
//! produced by `weft bench sim` and `examples/sim_speed.rs`; this bench uses 10^6
//! records to keep runs short. Two cases: on one thread, and with the DRAM model on
//! a thread of its own (`RunOptions::dram_thread`; identical results).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use weft_memsim::config::MachineConfig;
use weft_memsim::run::{self, simulate, RunOptions};

fn bench(c: &mut Criterion) {
    let cfg = MachineConfig::preset("table5.2").expect("preset");
    let cores = cfg.core.count;
    assert_eq!(cores, 36, "table5.2 is the 36-core machine");
    let total = 1_000_000u64;
    // records actually simulated (whole records per core)
    let records = total / cores as u64 * cores as u64;
    let mut g = c.benchmark_group("manycore");
    g.sample_size(10);
    g.throughput(Throughput::Elements(records));
    for (name, dram_thread) in [
        ("table5.2_mixed_1M_records", false),
        ("table5.2_mixed_1M_records_dram_thread", true),
    ] {
        let opts = RunOptions {
            dram_thread,
            ..Default::default()
        };
        g.bench_function(name, |b| {
            b.iter(|| {
                let mut src = run::bench_workload(cores, total, 1);
                let s = simulate(&cfg, &mut src, &opts, |_| {}).expect("run");
                assert_eq!(s.records, records);
                s
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
