//! Criterion benchmark of the full manycore simulation: simulated records per second
//! on `table5.2` (36 cores) with the synthetic mixed workload (3/4 streaming, 1/4
//! random, gaps 0..=8, one store in 8). The headline figure (10^7 records) is
//! produced by `weft bench sim`; this bench uses 10^6 records to keep runs short.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use weft_memsim::config::MachineConfig;
use weft_memsim::run::{simulate, RunOptions};
use weft_memsim::synth::{Pattern, SynthParams, SynthSource};

fn workload(cores: u32, total: u64) -> SynthSource {
    SynthSource::new(SynthParams {
        pattern: Pattern::Mixed,
        cores,
        records_per_core: total / cores as u64,
        max_gap: 8,
        write_every: 8,
        stride: 8,
        row_stride: 64 * 1024,
        seed: 1,
    })
}

fn bench(c: &mut Criterion) {
    let cfg = MachineConfig::preset("table5.2").expect("preset");
    let total = 1_000_000u64;
    let mut g = c.benchmark_group("manycore");
    g.sample_size(10);
    g.throughput(Throughput::Elements(total));
    g.bench_function("table5.2_mixed_1M_records", |b| {
        b.iter(|| {
            let mut src = workload(cfg.core.count, total);
            simulate(&cfg, &mut src, &RunOptions::default(), |_| {}).expect("run")
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
