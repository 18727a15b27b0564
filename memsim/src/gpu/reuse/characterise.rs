//! LASER's offline reuse characterisation (dissertation §3.2-3.3, digest §4.1) of
//! a tagged trace: reuse ratios at kernel, work-group (WG = TB) and wavefront
//! level, as 0.1-bin histograms; high-reuse chain lengths; aggregate reuse shares
//! of the footprint; reuse distances by reuse type; and LaPerm's shared-footprint
//! ratios ([`super::footprint`]).
//!
//! Pairs, as the thesis defines them: parent–child kernels (child's side), sibling
//! kernels (launched by the same parent WG, both directions), the parent WG
//! against each WG of its child kernels, intra-kernel WG pairs, and wavefronts of
//! one WG. To bound the pair count on large traces [I]: at most 32 siblings per
//! parent WG, intra-kernel WG pairs only between WGs at most 4 indices apart,
//! sibling-WG pairs only between WGs of equal index, and at most 16 wavefronts per
//! WG.

use super::distance::reuse_distances;
use super::footprint::{footprint, Footprint};
use super::ratios::{chains, Blocks, Histogram, HIGH_REUSE};
use super::trace::Trace;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap, HashSet};

/// Reuse-distance summary of one reuse type.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Distances {
    /// Re-references of this type.
    pub n: u64,
    /// Median distance (distinct blocks).
    pub median: u64,
    /// Share beyond the L1's reach (its lines).
    pub beyond_l1: f64,
    /// Share beyond the L2's reach.
    pub beyond_l2: f64,
}

impl Distances {
    fn of(mut d: Vec<u64>, l1: u64, l2: u64) -> Self {
        if d.is_empty() {
            return Distances::default();
        }
        d.sort_unstable();
        let n = d.len() as f64;
        Distances {
            n: d.len() as u64,
            median: d[d.len() / 2],
            beyond_l1: d.iter().filter(|&&x| x >= l1).count() as f64 / n,
            beyond_l2: d.iter().filter(|&&x| x >= l2).count() as f64 / n,
        }
    }
}

/// Aggregate reuse: shares of the footprint (distinct blocks) reused this way;
/// types overlap, so they may sum past 1.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Aggregate {
    /// Blocks accessed twice or more by one kernel.
    pub self_kernel: f64,
    /// Blocks touched by a kernel and its parent kernel.
    pub parent_child: f64,
    /// Blocks touched by two sibling kernels.
    pub sibling: f64,
}

/// The characterisation of one trace.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ReuseReport {
    /// Accesses analysed.
    pub accesses: u64,
    /// Distinct blocks.
    pub footprint_blocks: u64,
    /// Kernel records (child kernels and DTBL groups included).
    pub kernels: u64,
    /// Self reuse of each kernel.
    pub kernel_self: Histogram,
    /// Parent–child kernel pairs.
    pub kernel_parent_child: Histogram,
    /// Sibling kernel pairs.
    pub kernel_sibling: Histogram,
    /// Self reuse of each WG.
    pub wg_self: Histogram,
    /// Intra-kernel WG pairs.
    pub wg_intra_kernel: Histogram,
    /// Parent WG against its child kernels' WGs.
    pub wg_parent_child: Histogram,
    /// WGs of sibling kernels.
    pub wg_sibling: Histogram,
    /// Self reuse of each wavefront (intra-wavefront).
    pub wavefront_self: Histogram,
    /// Wavefront pairs of one WG (inter-wavefront).
    pub wavefront_inter: Histogram,
    /// Kernel reuse chains (max, mean size).
    pub kernel_chain: (usize, f64),
    /// WG reuse chains (max, mean size).
    pub wg_chain: (usize, f64),
    /// Aggregate reuse shares.
    pub aggregate: Aggregate,
    /// Reuse distances of self-kernel re-references (whole-GPU stream).
    pub distance_self: Distances,
    /// ... of parent–child re-references.
    pub distance_parent_child: Distances,
    /// ... of sibling re-references.
    pub distance_sibling: Distances,
    /// LaPerm's shared-footprint ratios.
    pub laperm: Footprint,
}

type Wg = (u32, u64);

/// Characterises `trace`; `l1_lines` and `l2_lines` are the caches' reach.
pub fn characterise(trace: &Trace, l1_lines: u64, l2_lines: u64) -> ReuseReport {
    let mut kern: BTreeMap<u32, Blocks> = BTreeMap::new();
    let mut wgs: BTreeMap<Wg, Blocks> = BTreeMap::new();
    let mut wfs: BTreeMap<u32, Blocks> = BTreeMap::new();
    let mut wg_warps: BTreeMap<Wg, Vec<u32>> = BTreeMap::new();
    for a in &trace.accesses {
        kern.entry(a.kernel).or_default().add(a.line);
        wgs.entry((a.kernel, a.tb)).or_default().add(a.line);
        let w = wfs.entry(a.warp).or_default();
        if w.size() == 0 {
            wg_warps.entry((a.kernel, a.tb)).or_default().push(a.warp);
        }
        w.add(a.line);
    }
    let parent = |k: u32| trace.parents.get(k as usize).copied().flatten();
    // siblings: child kernels of one parent WG, in id order
    let mut sibs: BTreeMap<Wg, Vec<u32>> = BTreeMap::new();
    for &k in kern.keys() {
        if let Some(p) = parent(k) {
            sibs.entry((p.kernel, p.tb)).or_default().push(k);
        }
    }
    let kidx: HashMap<u32, usize> = kern.keys().enumerate().map(|(i, &k)| (k, i)).collect();
    let widx: HashMap<Wg, usize> = wgs.keys().enumerate().map(|(i, &w)| (w, i)).collect();
    let mut r = ReuseReport {
        accesses: trace.accesses.len() as u64,
        kernels: kern.len() as u64,
        ..Default::default()
    };
    let (mut k_edges, mut w_edges) = (Vec::new(), Vec::new());
    // kernel level
    let selfs: Vec<f64> = kern.values().map(|b| b.self_ratio()).collect();
    r.kernel_self = Histogram::of(&selfs);
    let mut pc = Vec::new();
    let mut wpc = Vec::new();
    for (&k, b) in &kern {
        let Some(p) = parent(k) else { continue };
        if let Some(pb) = kern.get(&p.kernel) {
            let x = b.ratio_to(pb);
            pc.push(x);
            if x > HIGH_REUSE {
                k_edges.push((kidx[&k], kidx[&p.kernel]));
            }
        }
        if let Some(pw) = wgs.get(&(p.kernel, p.tb)) {
            for (w, wb) in wgs.range((k, 0)..=(k, u64::MAX)) {
                let x = wb.ratio_to(pw);
                wpc.push(x);
                if x > HIGH_REUSE {
                    w_edges.push((widx[w], widx[&(p.kernel, p.tb)]));
                }
            }
        }
    }
    r.kernel_parent_child = Histogram::of(&pc);
    r.wg_parent_child = Histogram::of(&wpc);
    let (mut ss, mut wss) = (Vec::new(), Vec::new());
    for list in sibs.values() {
        let list = &list[..list.len().min(32)];
        for &x in list {
            for &y in list {
                if x == y {
                    continue;
                }
                let v = kern[&x].ratio_to(&kern[&y]);
                ss.push(v);
                if v > HIGH_REUSE {
                    k_edges.push((kidx[&x], kidx[&y]));
                }
                for (w, wb) in wgs.range((x, 0)..=(x, u64::MAX)) {
                    if let Some(o) = wgs.get(&(y, w.1)) {
                        wss.push(wb.ratio_to(o));
                    }
                }
            }
        }
    }
    r.kernel_sibling = Histogram::of(&ss);
    r.wg_sibling = Histogram::of(&wss);
    // WG level
    r.wg_self = Histogram::of(&wgs.values().map(|b| b.self_ratio()).collect::<Vec<_>>());
    let mut intra = Vec::new();
    for (&(k, i), b) in &wgs {
        for j in i.saturating_sub(4)..=i + 4 {
            if j == i {
                continue;
            }
            if let Some(o) = wgs.get(&(k, j)) {
                let v = b.ratio_to(o);
                intra.push(v);
                if v > HIGH_REUSE {
                    w_edges.push((widx[&(k, i)], widx[&(k, j)]));
                }
            }
        }
    }
    r.wg_intra_kernel = Histogram::of(&intra);
    // wavefront level
    r.wavefront_self = Histogram::of(&wfs.values().map(|b| b.self_ratio()).collect::<Vec<_>>());
    let mut inter = Vec::new();
    for ws in wg_warps.values() {
        let ws = &ws[..ws.len().min(16)];
        for &x in ws {
            for &y in ws {
                if x != y {
                    inter.push(wfs[&x].ratio_to(&wfs[&y]));
                }
            }
        }
    }
    r.wavefront_inter = Histogram::of(&inter);
    r.kernel_chain = chains(kern.len(), &k_edges);
    r.wg_chain = chains(wgs.len(), &w_edges);
    // aggregate shares
    let all: HashSet<u64> = trace.accesses.iter().map(|a| a.line).collect();
    r.footprint_blocks = all.len() as u64;
    let mut self_b = HashSet::new();
    for b in kern.values() {
        self_b.extend(b.lines().filter(|l| b.counts_of(*l) >= 2));
    }
    let mut pc_b = HashSet::new();
    for (&k, b) in &kern {
        if let Some(pb) = parent(k).and_then(|p| kern.get(&p.kernel)) {
            pc_b.extend(b.lines().filter(|l| pb.has(*l)));
        }
    }
    let mut sib_b = HashSet::new();
    for list in sibs.values() {
        let mut seen: HashMap<u64, u32> = HashMap::new();
        for &x in list {
            for l in kern[&x].lines() {
                *seen.entry(l).or_insert(0) += 1;
            }
        }
        sib_b.extend(seen.into_iter().filter(|&(_, c)| c >= 2).map(|(l, _)| l));
    }
    let share = |s: &HashSet<u64>| s.len() as f64 / all.len().max(1) as f64;
    r.aggregate = Aggregate {
        self_kernel: share(&self_b),
        parent_child: share(&pc_b),
        sibling: share(&sib_b),
    };
    // reuse distances, by the relation of the two referencing kernels
    let lines: Vec<u64> = trace.accesses.iter().map(|a| a.line).collect();
    let (mut ds, mut dpc, mut dsib) = (Vec::new(), Vec::new(), Vec::new());
    for (i, d) in reuse_distances(&lines).into_iter().enumerate() {
        let Some((d, j)) = d else { continue };
        let (a, b) = (trace.accesses[i].kernel, trace.accesses[j].kernel);
        let (pa, pb) = (parent(a), parent(b));
        if a == b {
            ds.push(d);
        } else if pa.map(|p| p.kernel) == Some(b) || pb.map(|p| p.kernel) == Some(a) {
            dpc.push(d);
        } else if pa.is_some() && pa.map(|p| (p.kernel, p.tb)) == pb.map(|p| (p.kernel, p.tb)) {
            dsib.push(d);
        }
    }
    r.distance_self = Distances::of(ds, l1_lines, l2_lines);
    r.distance_parent_child = Distances::of(dpc, l1_lines, l2_lines);
    r.distance_sibling = Distances::of(dsib, l1_lines, l2_lines);
    r.laperm = footprint(trace);
    r
}

#[cfg(test)]
mod tests {
    use super::super::trace::Access;
    use super::*;
    use crate::gpu::dp::ParentInfo;

    fn acc(kernel: u32, tb: u64, warp: u32, line: u64) -> Access {
        Access {
            line,
            kernel,
            tb,
            warp,
            sm: 0,
            write: false,
        }
    }

    #[test]
    fn parent_child_and_siblings_on_a_small_trace() {
        let p = |tb| {
            Some(ParentInfo {
                kernel: 0,
                tb,
                warp: 0,
                lane: 0,
                sm: 0,
            })
        };
        let mut a = Vec::new();
        // parent kernel 0, WG 0: lines 0..10 twice (self 0.5)
        for l in (0..10).chain(0..10) {
            a.push(acc(0, 0, 0, l));
        }
        // children 1 and 2 of WG 0: child 1 reads 0..5 + 100..105; child 2 reads 100..110
        for l in (0..5).chain(100..105) {
            a.push(acc(1, 0, 1, l));
        }
        for l in 100..110 {
            a.push(acc(2, 0, 2, l));
        }
        let t = Trace {
            accesses: a,
            parents: vec![None, p(0), p(0)],
        };
        let r = characterise(&t, 4, 100);
        assert_eq!(r.kernels, 3);
        assert!((r.kernel_self.mean - 0.5 / 3.0).abs() < 1e-12);
        // child 1: half its accesses hit the parent's blocks; child 2 none
        assert_eq!(r.kernel_parent_child.n, 2);
        assert!((r.kernel_parent_child.mean - 0.25).abs() < 1e-12);
        // siblings: R(1-2) = 0.5, R(2-1) = 0.5
        assert_eq!(r.kernel_sibling.bins[5], 2);
        // chain: 1-2 high (0.5), 1-0 high (0.5): all three
        assert_eq!(r.kernel_chain, (3, 3.0));
        assert_eq!(r.footprint_blocks, 20);
        assert!((r.aggregate.self_kernel - 0.5).abs() < 1e-12);
        assert!((r.aggregate.parent_child - 0.25).abs() < 1e-12);
        assert!((r.aggregate.sibling - 0.25).abs() < 1e-12);
        // parent re-reads: 10 at distance 9; child 1 re-reads 0..5 after 10 others
        assert_eq!(r.distance_self.n, 10);
        assert_eq!(r.distance_self.median, 9);
        assert_eq!(r.distance_parent_child.n, 5);
        assert_eq!(r.distance_parent_child.beyond_l1, 1.0);
        assert_eq!(r.distance_sibling.n, 5);
    }
}
