//! Scheduler speed (issue targets: Algorithm 4 < 1 ms for 64 cores x 50 slabs x 64
//! banks; Algorithm 5 < 50 ms for 32,000 IBs on 36 cores).
//! Also the Algorithm 4 variants (q-step look-ahead, flexibility order, window,
//! DAG, 256 banks) and Algorithm 5 with CLP-first, a DAG and a 16-IB window.
//! Run: `cargo bench -p weft-runtime --bench schedulers`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use std::hint::black_box;
use weft_runtime::bankmap::{unit_maps, AddressMap};
use weft_runtime::bankset::BankSet;
use weft_runtime::blp::{schedule_blp, BlpOptions, CoreOrder, SlabInstance};
use weft_runtime::deps::{Access, UnitDag};
use weft_runtime::machine::Machine;
use weft_runtime::mlp::{iw_size, schedule_ibs, BlockVectors, IbInstance, MlpOptions, Scheme};

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

fn slab_instance(p: usize, m: usize, q: usize) -> SlabInstance {
    let mut r = Rng(p as u64);
    let slabs = (0..p)
        .map(|_| {
            (0..m)
                .map(|_| {
                    let k = 2 + (r.next() % 10) as usize;
                    let b: Vec<usize> = (0..k).map(|_| (r.next() % q as u64) as usize).collect();
                    BankSet::from_banks(q, &b).unwrap()
                })
                .collect()
        })
        .collect();
    SlabInstance::new(q, slabs).unwrap()
}

/// 32,000 IBs of a 2-D stencil b[j][i] = a[j][i-1] + a[j][i] + a[j][i+1] (doubles,
/// 16 iterations per IB) mapped through the table5.2 machine.
fn stencil_blocks(m: &Machine, ibs: usize) -> (Vec<BlockVectors>, f64) {
    let ib = 16u64;
    let cols = 4096u64;
    let a_base = 0x1000_0000u64;
    let b_base = 0x4000_0000u64;
    let mut acc = Vec::new();
    for u in 0..ibs as u64 {
        for k in u * ib..(u + 1) * ib {
            let (j, i) = (k / cols, k % cols);
            for d in [i.saturating_sub(1), i, (i + 1).min(cols - 1)] {
                acc.push(Access {
                    unit: u as u32,
                    addr: a_base + (j * cols + d) * 8,
                    size: 8,
                    write: false,
                });
            }
            acc.push(Access {
                unit: u as u32,
                addr: b_base + k * 8,
                size: 8,
                write: true,
            });
        }
    }
    let maps = unit_maps(m as &dyn AddressMap, ibs, &acc).unwrap();
    let ds = maps.mean_ds_lines();
    let blocks = maps
        .mem_weighted
        .into_iter()
        .zip(maps.llc_weighted)
        .map(|(a, b)| BlockVectors {
            mem: a.counts,
            llc: b.counts,
        })
        .collect();
    (blocks, ds)
}

/// Random forward DAG over `n` slabs: about `n / 2` edges, each to a slab at most
/// `reach` ids later (index-array updates conflict with nearby slabs).
fn forward_dag(n: usize, reach: u64, seed: u64) -> UnitDag {
    let mut r = Rng(seed);
    let edges: Vec<(u32, u32)> = (0..n / 2)
        .map(|_| {
            let a = r.next() % n as u64;
            let b = (a + 1 + r.next() % reach).min(n as u64 - 1);
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
