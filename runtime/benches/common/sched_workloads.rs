//! Scheduler instances shared by the `schedulers` bench and the
//! `sched_compare` example (included by both with `#[path]`): random slab bank
//! maps for Algorithm 4 and a 2-D stencil's iteration-block vectors for
//! Algorithm 5.

use weft_runtime::bankmap::{unit_maps, AddressMap};
use weft_runtime::bankset::BankSet;
use weft_runtime::blp::SlabInstance;
use weft_runtime::deps::Access;
use weft_runtime::machine::Machine;
use weft_runtime::mlp::BlockVectors;

/// SplitMix64.
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// `p` cores of `m` slabs, each touching 2 to 11 random banks of `q`.
pub fn slab_instance(p: usize, m: usize, q: usize) -> SlabInstance {
    let mut r = Rng(p as u64);
    let slabs = (0..p)
        .map(|_| {
            (0..m)
                .map(|_| {
                    let k = 2 + (r.next_u64() % 10) as usize;
                    let b: Vec<usize> =
                        (0..k).map(|_| (r.next_u64() % q as u64) as usize).collect();
                    BankSet::from_banks(q, &b).unwrap()
                })
                .collect()
        })
        .collect();
    SlabInstance::new(q, slabs).unwrap()
}

/// 32,000 IBs of a 2-D stencil b[j][i] = a[j][i-1] + a[j][i] + a[j][i+1] (doubles,
/// 16 iterations per IB) mapped through the table5.2 machine.
pub fn stencil_blocks(m: &Machine, ibs: usize) -> (Vec<BlockVectors>, f64) {
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
