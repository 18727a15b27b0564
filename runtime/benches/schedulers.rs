//! Scheduler speed (issue targets: Algorithm 4 < 1 ms for 64 cores x 50 slabs x 64
//! banks; Algorithm 5 < 50 ms for 32,000 IBs on 36 cores).
//! Run: `cargo bench -p weft-runtime --bench schedulers`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use std::hint::black_box;
use weft_runtime::bankmap::{unit_maps, AddressMap};
use weft_runtime::bankset::BankSet;
use weft_runtime::blp::{schedule_blp, BlpOptions, SlabInstance};
use weft_runtime::deps::Access;
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
    g.finish();

    let machine = Machine::load("table5.2").unwrap();
    let (blocks, ds) = stencil_blocks(&machine, 32_000);
    let w = iw_size(machine.llc_lines(), ds, 36);
    let mut g = c.benchmark_group("algorithm5");
    g.sample_size(20);
    for (name, window) in [("eq5.1_window", w), ("window16", 16)] {
        let inst = IbInstance {
            cores: 36,
            window,
            mem_banks: machine.num_mem_banks(),
            llc_banks: machine.num_llc_banks(),
            blocks: blocks.clone(),
        };
        for scheme in [Scheme::MlpFirst, Scheme::Balanced] {
            let opts = MlpOptions {
                scheme,
                eta_mem: machine.eta_mem(),
                eta_llc: machine.eta_llc(),
            };
            g.bench_function(format!("32000ibs_36cores_{name}_{scheme:?}"), |b| {
                b.iter(|| schedule_ibs(black_box(&inst), &opts, None).unwrap())
            });
        }
    }
    g.finish();
    eprintln!("algorithm5 instance: D = {ds:.2} lines per IB, eq. 5.1 window = {w}");
}

criterion_group!(benches, bench);
criterion_main!(benches);
