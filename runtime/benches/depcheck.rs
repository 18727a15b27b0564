//! The run-time dependence check of irregular inspections (§4.4.6) over
//! growing sizes, 10^3 to 10^6 recorded addresses (issue 34 part 3): one
//! streaming pass over the written granules, linear in the addresses (see
//! `runtime/src/inspect/check.rs`), so the time per address stays flat as the
//! size grows (a pairwise check would grow with the size).
//! Workloads: a histogram (`h[bin[i]] += w[i]`: a checked read and write per
//! iteration, bins = addresses / 16, pseudo-random) and a scatter through a
//! permutation (disjoint writes: no edge), each on 2 cores x 50 slabs.
//! Run: `cargo bench -p weft-runtime --bench depcheck` (add `--profile dev`
//! to reuse a dev build's dependencies).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::hint::black_box;
use weft_runtime::inspect::{BankTable, SlabLayout, SlabRecorder};
use weft_runtime::machine::Machine;

fn layout(n: i64) -> SlabLayout {
    let half = n / 2;
    let si = (half / 50).max(1);
    let slabs = |a: i64, b: i64| ((b - a + si - 1) / si) as u32;
    SlabLayout {
        chunk: vec![0, half, n],
        offset: vec![0, slabs(0, half), slabs(0, half) + slabs(half, n)],
        slab_iters: si,
    }
}

/// Records `addrs` accesses (two per iteration) and runs the check; returns
/// the DAG's edge count.
fn check(table: &BankTable, addrs: u64, scatter: bool) -> usize {
    let n = (addrs / 2) as i64;
    let bins = (addrs / 16).max(1);
    let base = 1u64 << 32;
    let mut rec = SlabRecorder::new(layout(n), 64, 6, table.clone());
    for i in 0..n {
        let x = i as u64;
        let slot = match scatter {
            true => x.wrapping_mul(0x9E37_79B9) % n as u64,
            false => x.wrapping_mul(2_654_435_761) % bins,
        };
        let a = base + 8 * slot;
        rec.record(i, a, 8, false);
        rec.record(i, a, 8, true);
    }
    rec.dependences().expect("the check").num_edges()
}

fn bench(c: &mut Criterion) {
    let machine = std::sync::Arc::new(Machine::load("table5.2").expect("the table 5.2 machine"));
    let table = BankTable::new(&machine);
    let mut g = c.benchmark_group("dependence_check");
    g.sample_size(10);
    for scatter in [false, true] {
        let name = if scatter { "scatter" } else { "histogram" };
        for addrs in [1_000u64, 10_000, 100_000, 1_000_000] {
            g.throughput(Throughput::Elements(addrs));
            g.bench_with_input(BenchmarkId::new(name, addrs), &addrs, |b, &a| {
                b.iter(|| black_box(check(&table, a, scatter)))
            });
        }
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
