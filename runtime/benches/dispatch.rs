//! What a parallel region costs beyond its work: one `parallel_for` of a
//! 64-iteration loop with an empty-ish body on 2 native workers (grain
//! control off, so every call wakes the pool), against the same call that
//! grain control keeps on the calling thread. The difference is the dispatch
//! cost `RuntimeConfig::min_parallel_ns` (default 20 µs) has to exceed.
//! Run: `cargo bench -p weft-runtime --bench dispatch`.

use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};
use weft_runtime::machine::Machine;
use weft_runtime::runtime::{Runtime, RuntimeConfig};

fn runtime(min_parallel_ns: u64) -> Runtime {
    let cfg = RuntimeConfig {
        cores: 2,
        min_parallel_ns,
        ..Default::default()
    };
    Runtime::with_machine(cfg, Machine::load("table5.2").expect("preset")).expect("runtime")
}

fn dispatch(c: &mut Criterion) {
    let sum = AtomicU64::new(0);
    let body = |lo: i64, hi: i64| {
        let s: i64 = (lo..hi).map(black_box).sum();
        sum.fetch_add(s as u64, Ordering::Relaxed);
    };
    let mut g = c.benchmark_group("dispatch");
    let par = runtime(0);
    g.bench_function("parallel_for_64_iters_2_workers", |b| {
        b.iter(|| par.parallel_for_at(Some(1), 0, 64, &body).unwrap())
    });
    let grain = runtime(u64::MAX / 4);
    g.bench_function("parallel_for_64_iters_grain_control", |b| {
        b.iter(|| grain.parallel_for_at(Some(1), 0, 64, &body).unwrap())
    });
    g.finish();
    black_box(sum.load(Ordering::Relaxed));
}

criterion_group!(benches, dispatch);
criterion_main!(benches);
