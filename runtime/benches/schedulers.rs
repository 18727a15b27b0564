//! Scheduler speed (issue targets: Algorithm 4 < 1 ms for 64 cores x 50 slabs x 64
//! banks; Algorithm 5 < 50 ms for 32,000 IBs on 36 cores).
//! Also the Algorithm 4 variants (q-step look-ahead, flexibility order, window,
//! DAG, 256 banks) and Algorithm 5 with CLP-first, a DAG and a 16-IB window.
//! Run: `cargo bench -p weft-runtime --bench schedulers`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use std::hint::black_box;
use weft_runtime::bankmap::AddressMap;
use weft_runtime::blp::{schedule_blp, BlpOptions, CoreOrder};
use weft_runtime::deps::UnitDag;
use weft_runtime::machine::Machine;
use weft_runtime::mlp::{iw_size, schedule_ibs, IbInstance, MlpOptions, Scheme};

#[path = "common/sched_workloads.rs"]
mod sched_workloads;
use sched_workloads::{slab_instance, stencil_blocks, Rng};

/// Random forward DAG over `n` slabs: about `n / 2` edges, each to a slab at most
/// `reach` ids later (index-array updates conflict with nearby slabs).
fn forward_dag(n: usize, reach: u64, seed: u64) -> UnitDag {
    let mut r = Rng(seed);
    let edges: Vec<(u32, u32)> = (0..n / 2)
        .map(|_| {
            let a = r.next_u64() % n as u64;
            let b = (a + 1 + r.next_u64() % reach).min(n as u64 - 1);
            (a as u32, b as u32)
        })
        .filter(|(a, b)| a < b)
        .collect();
    UnitDag::from_edges(n, &edges).unwrap()
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("algorithm4");
    for p in [36usize, 64] {
        let inst = slab_instance(p, 50, 64);
        g.bench_with_input(
            BenchmarkId::new("cores_x50slabs_64banks", p),
            &inst,
            |b, inst| {
                b.iter(|| schedule_blp(black_box(inst), &BlpOptions::default(), None).unwrap())
            },
        );
    }
    // The variants of §4.4.3/§4.4.4/§4.4.6 on the 64-core instance.
    let inst = slab_instance(64, 50, 64);
    let dag = forward_dag(inst.total_slabs(), 200, 3);
    let variants: Vec<(&str, BlpOptions, Option<&UnitDag>)> = vec![
        (
            "q2_lookahead",
            BlpOptions {
                lookahead: 2,
                ..Default::default()
            },
            None,
        ),
        (
            "q4_lookahead",
            BlpOptions {
                lookahead: 4,
                ..Default::default()
            },
            None,
        ),
        (
            "flexibility_order",
            BlpOptions {
                core_order: CoreOrder::Flexibility,
                ..Default::default()
            },
            None,
        ),
        (
            "window8",
            BlpOptions {
                window: Some(8),
                ..Default::default()
            },
            None,
        ),
        ("dag", BlpOptions::default(), Some(&dag)),
    ];
    for (name, opts, d) in &variants {
        g.bench_function(format!("64cores_x50slabs_64banks_{name}"), |b| {
            b.iter(|| schedule_blp(black_box(&inst), opts, *d).unwrap())
        });
    }
    // More than 64 banks: the multi-word bank-map path.
    let wide = slab_instance(64, 50, 256);
    g.bench_function("64cores_x50slabs_256banks", |b| {
        b.iter(|| schedule_blp(black_box(&wide), &BlpOptions::default(), None).unwrap())
    });
    g.finish();

    let machine = Machine::load("table5.2").unwrap();
    let (blocks, ds) = stencil_blocks(&machine, 32_000);
    let w = iw_size(machine.llc_lines(), ds, 36);
    let mut g = c.benchmark_group("algorithm5");
    g.sample_size(10);
    // IB i also waits for IB i - 37 (a wavefront-like dependence) in the DAG runs.
    let edges: Vec<(u32, u32)> = (37..32_000u32).map(|i| (i - 37, i)).collect();
    let ib_dag = UnitDag::from_edges(32_000, &edges).unwrap();
    for (name, window, schemes) in [
        (
            "eq5.1_window",
            w,
            &[Scheme::MlpFirst, Scheme::ClpFirst, Scheme::Balanced][..],
        ),
        ("window16", 16, &[Scheme::MlpFirst, Scheme::Balanced][..]),
    ] {
        let inst = IbInstance {
            cores: 36,
            window,
            mem_banks: machine.num_mem_banks(),
            llc_banks: machine.num_llc_banks(),
            blocks: blocks.clone(),
        };
        for &scheme in schemes {
            let opts = MlpOptions {
                scheme,
                eta_mem: machine.eta_mem(),
                eta_llc: machine.eta_llc(),
            };
            g.bench_function(format!("32000ibs_36cores_{name}_{scheme:?}"), |b| {
                b.iter(|| schedule_ibs(black_box(&inst), &opts, None).unwrap())
            });
            if name == "eq5.1_window" && scheme == Scheme::MlpFirst {
                g.bench_function(format!("32000ibs_36cores_{name}_{scheme:?}_dag"), |b| {
                    b.iter(|| schedule_ibs(black_box(&inst), &opts, Some(&ib_dag)).unwrap())
                });
            }
        }
    }
    g.finish();
    eprintln!("algorithm5 instance: D = {ds:.2} lines per IB, eq. 5.1 window = {w}");
}

criterion_group!(benches, bench);
criterion_main!(benches);
