//! LASER's reuse ratios (dissertation §3.2, digest §4.1) over multisets of block
//! accesses, their 0.1-bin histograms and high-reuse chains.
//!
//! With `M_u` the accesses of unit `u` (a kernel, a work-group or a wavefront):
//! self reuse `R_u = 1 − |uniq(M_u)| / size(M_u)`; pair reuse
//! `R_{x−y} = |{a ∈ M_x : block(a) ∈ uniq(M_x) ∩ uniq(M_y)}| / size(M_x)`, counted
//! from `x`'s side (asymmetric); parent–child ratios are the child's side. High
//! reuse is a ratio above 0.4; a reuse chain is a set of units linked by
//! high-reuse pairs (we report connected components, [I]).

use serde::Serialize;
use std::collections::HashMap;

/// A unit's accesses: count per block.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Blocks {
    counts: HashMap<u64, u32>,
    size: u64,
}

impl Blocks {
    /// Adds one access to `line`.
    pub fn add(&mut self, line: u64) {
        *self.counts.entry(line).or_insert(0) += 1;
        self.size += 1;
    }

    /// Accesses.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// Distinct blocks.
    pub fn unique(&self) -> usize {
        self.counts.len()
    }

    /// Whether `line` was accessed.
    pub fn has(&self, line: u64) -> bool {
        self.counts.contains_key(&line)
    }

    /// Accesses to `line`.
    pub fn counts_of(&self, line: u64) -> u32 {
        self.counts.get(&line).copied().unwrap_or(0)
    }

    /// The distinct blocks.
    pub fn lines(&self) -> impl Iterator<Item = u64> + '_ {
        self.counts.keys().copied()
    }

    /// Self reuse ratio `1 − |uniq| / size` (0 for no access).
    pub fn self_ratio(&self) -> f64 {
        if self.size == 0 {
            0.0
        } else {
            1.0 - self.unique() as f64 / self.size as f64
        }
    }

    /// `R_{self−other}`: the share of this unit's accesses to blocks `other` also
    /// touches.
    pub fn ratio_to(&self, other: &Blocks) -> f64 {
        if self.size == 0 {
            return 0.0;
        }
        let (small, big, mine) = if self.counts.len() <= other.counts.len() {
            (&self.counts, &other.counts, true)
        } else {
            (&other.counts, &self.counts, false)
        };
        let shared: u64 = small
            .iter()
            .filter(|(b, _)| big.contains_key(b))
            .map(|(b, &c)| if mine { c } else { self.counts[b] } as u64)
            .sum();
        shared as f64 / self.size as f64
    }
}

/// Ratios in ten 0.1-wide bins b0..b9 (b9 holds 1.0).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Histogram {
    /// Pairs (or units) per bin.
    pub bins: [u64; 10],
    /// Number of ratios.
    pub n: u64,
    /// Mean ratio.
    pub mean: f64,
    /// Share above the high-reuse threshold 0.4.
    pub high: f64,
}

impl Histogram {
    /// The histogram of `ratios`.
    pub fn of(ratios: &[f64]) -> Self {
        let mut h = Histogram::default();
        let mut sum = 0.0;
        let mut high = 0u64;
        for &r in ratios {
            let b = ((r * 10.0).floor() as usize).min(9);
            h.bins[b] += 1;
            sum += r;
            high += (r > HIGH_REUSE) as u64;
        }
        h.n = ratios.len() as u64;
        if h.n > 0 {
            h.mean = sum / h.n as f64;
            h.high = high as f64 / h.n as f64;
        }
        h
    }

    /// Cumulative share of ratios up to each bin (the thesis plots the CDF).
    pub fn cdf(&self) -> [f64; 10] {
        let mut c = [0.0; 10];
        let mut acc = 0;
        for (i, &b) in self.bins.iter().enumerate() {
            acc += b;
            c[i] = if self.n == 0 {
                0.0
            } else {
                acc as f64 / self.n as f64
            };
        }
        c
    }
}

/// High reuse: a ratio above 0.4.
pub const HIGH_REUSE: f64 = 0.4;

/// Maximum and mean size of the chains (connected components of two or more
/// units) formed by the high-reuse pairs `edges` over units `0..n`.
pub fn chains(n: usize, edges: &[(usize, usize)]) -> (usize, f64) {
    let mut parent: Vec<usize> = (0..n).collect();
    fn find(p: &mut [usize], mut x: usize) -> usize {
        while p[x] != x {
            p[x] = p[p[x]];
            x = p[x];
        }
        x
    }
    for &(a, b) in edges {
        let (ra, rb) = (find(&mut parent, a), find(&mut parent, b));
        if ra != rb {
            parent[ra.max(rb)] = ra.min(rb);
        }
    }
    let mut size: HashMap<usize, usize> = HashMap::new();
    for x in 0..n {
        let r = find(&mut parent, x);
        *size.entry(r).or_insert(0) += 1;
    }
    let comps: Vec<usize> = size.into_values().filter(|&s| s >= 2).collect();
    let max = comps.iter().copied().max().unwrap_or(0);
    let mean = if comps.is_empty() {
        0.0
    } else {
        comps.iter().sum::<usize>() as f64 / comps.len() as f64
    };
    (max, mean)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Digest §4.1: c1 has 100 accesses, c2 50; 30 of c2's accesses (and 40 of
    /// c1's) go to blocks both touch; c3 has 200, 120 of them to c1's blocks.
    #[test]
    fn laser_pair_ratio_example() {
        let (mut c1, mut c2, mut c3) = (Blocks::default(), Blocks::default(), Blocks::default());
        // shared blocks 0..10: c1 touches each 4 times (40), c2 3 times (30)
        for b in 0..10 {
            for _ in 0..4 {
                c1.add(b);
            }
            for _ in 0..3 {
                c2.add(b);
            }
        }
        for i in 0..60 {
            c1.add(1000 + i); // c1 only
        }
        for i in 0..20 {
            c2.add(2000 + i); // c2 only
        }
        for i in 0..120 {
            c3.add(i % 10); // c1's blocks
        }
        for i in 0..80 {
            c3.add(3000 + i);
        }
        assert_eq!((c1.size(), c2.size(), c3.size()), (100, 50, 200));
        assert!((c2.ratio_to(&c1) - 0.6).abs() < 1e-12);
        assert!((c1.ratio_to(&c2) - 0.4).abs() < 1e-12);
        assert!((c3.ratio_to(&c1) - 0.6).abs() < 1e-12);
        // self reuse of c2: 1 - 30 distinct / 50
        assert!((c2.self_ratio() - 0.4).abs() < 1e-12);
    }

    #[test]
    fn histogram_bins_and_cdf() {
        let h = Histogram::of(&[0.0, 0.05, 0.1, 0.45, 0.99, 1.0]);
        assert_eq!(h.bins, [2, 1, 0, 0, 1, 0, 0, 0, 0, 2]);
        assert!((h.high - 0.5).abs() < 1e-12);
        assert!((h.cdf()[1] - 0.5).abs() < 1e-12);
        assert!((h.cdf()[9] - 1.0).abs() < 1e-12);
    }

    #[test]
    fn chains_are_components_of_high_pairs() {
        // 0-1-2 chained, 3-4, 5 alone
        let (max, mean) = chains(6, &[(0, 1), (2, 1), (3, 4)]);
        assert_eq!(max, 3);
        assert!((mean - 2.5).abs() < 1e-12);
        assert_eq!(chains(3, &[]), (0, 0.0));
    }
}
