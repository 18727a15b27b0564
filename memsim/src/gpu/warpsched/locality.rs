//! The L1 cache access breakdown of iPAWS Fig. 4 / Fig. 20 (digest §5.6),
//! collected CCWS-style per SM and per kernel: every read lookup is an
//! intra-warp hit, an inter-warp hit, an intra-warp miss, an inter-warp miss or a
//! cold miss, counted until the first warp of the kernel on the SM finishes
//! ("ONE") and over the whole kernel ("ALL").
//!
//! Classification ([I] where CCWS's victim tags are finite): a hit is intra-warp
//! when the line's last toucher is the reading warp (the L1's owner tag); a read
//! merged into an outstanding miss counts as a hit of the warp that missed (the
//! data is on its way for it); a miss of a line this SM's L1 held before (an
//! unbounded history of the last toucher per line, standing in for CCWS's victim
//! tag arrays) is an intra- or inter-warp miss by that toucher, otherwise cold.
//! Writes are not classified. Opt-in (`L1::breakdown`): an L1 without it does no
//! extra work.

use serde::Serialize;
use std::collections::HashMap;

/// Categories, in [`Counts::n`] order.
pub const CATEGORIES: [&str; 5] = [
    "intra_warp_hit",
    "inter_warp_hit",
    "intra_warp_miss",
    "inter_warp_miss",
    "cold_miss",
];

/// Read lookups by category.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    /// Counts in [`CATEGORIES`] order.
    pub n: [u64; 5],
}

impl Counts {
    /// All lookups.
    pub fn total(&self) -> u64 {
        self.n.iter().sum()
    }

    /// Adds `o`.
    pub fn add(&mut self, o: &Counts) {
        for (a, b) in self.n.iter_mut().zip(o.n) {
            *a += b;
        }
    }

    /// Shares of the total, by category name.
    pub fn shares(&self) -> Vec<(&'static str, f64)> {
        let t = self.total().max(1) as f64;
        CATEGORIES
            .iter()
            .zip(self.n)
            .map(|(c, n)| (*c, n as f64 / t))
            .collect()
    }
}

/// What the L1 lookup found, as the breakdown needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Present; last touched by the same warp.
    HitIntra,
    /// Present; last touched by another warp.
    HitInter,
    /// Merged into an outstanding miss.
    Merged,
    /// A new miss.
    Miss,
}

/// One kernel's counts on one SM.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct KernelBreakdown {
    /// Until its first warp on the SM finished (frozen then).
    pub one: Counts,
    /// Over the whole kernel.
    pub all: Counts,
    /// `one` is frozen.
    pub frozen: bool,
}

/// The breakdown of one SM's L1.
#[derive(Clone, Debug, Default)]
pub struct Breakdown {
    last: HashMap<u64, u32>,
    /// Per kernel instance (index = id).
    pub kernels: Vec<KernelBreakdown>,
}

impl Breakdown {
    /// A read of `line` by `warp` of `kernel` with outcome `a`.
    pub fn record(&mut self, line: u64, warp: u32, kernel: u32, a: Access) {
        let prev = self.last.insert(line, warp);
        let cat = match a {
            Access::HitIntra => 0,
            Access::HitInter => 1,
            Access::Merged => {
                if prev == Some(warp) {
                    0
                } else {
                    1
                }
            }
            Access::Miss => match prev {
                Some(p) if p == warp => 2,
                Some(_) => 3,
                None => 4,
            },
        };
        let k = kernel as usize;
        if self.kernels.len() <= k {
            self.kernels.resize(k + 1, KernelBreakdown::default());
        }
        let kb = &mut self.kernels[k];
        kb.all.n[cat] += 1;
        if !kb.frozen {
            kb.one.n[cat] += 1;
        }
    }

    /// The first warp of `kernel` on this SM finished: freezes its "ONE" counts.
    pub fn first_warp_done(&mut self, kernel: u32) {
        let k = kernel as usize;
        if self.kernels.len() <= k {
            self.kernels.resize(k + 1, KernelBreakdown::default());
        }
        self.kernels[k].frozen = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn categories_and_one_window() {
        let mut b = Breakdown::default();
        b.record(1, 7, 0, Access::Miss); // cold
        b.record(1, 8, 0, Access::Merged); // warp 7's miss brings it: inter hit
        b.record(1, 8, 0, Access::HitIntra);
        b.first_warp_done(0);
        b.record(1, 7, 0, Access::Miss); // evicted, last touched by 8: inter miss
        b.record(1, 7, 0, Access::Miss); // again, last touched by 7: intra miss
        b.record(2, 7, 1, Access::HitInter);
        let k0 = b.kernels[0];
        assert_eq!(k0.one.n, [1, 1, 0, 0, 1]);
        assert_eq!(k0.all.n, [1, 1, 1, 1, 1]);
        assert_eq!(b.kernels[1].all.n, [0, 1, 0, 0, 0]);
        assert_eq!(b.kernels[1].one.n, [0, 1, 0, 0, 0]);
        let s = k0.all.shares();
        assert_eq!(s[4], ("cold_miss", 0.2));
    }
}
