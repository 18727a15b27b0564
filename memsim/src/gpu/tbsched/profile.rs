//! The profile behind LASER's oracle limit study (dissertation §3.4.1, digest
//! §4.2): which kernels and which work-groups reuse each other's data, measured
//! on a profiling run's tagged address trace ([`Trace`]) and looked up by a
//! second run whose kernel records are numbered differently.
//!
//! - **Stable kernel keys** ([`KeyMap`]): kernel records are numbered in launch
//!   order, which changes with the policy. A host-launched kernel is keyed by its
//!   host launch ordinal; a device-launched one by (its parent's key, parent TB,
//!   warp within the TB, lane, how many earlier launches that thread made). Both
//!   runs see a thread's launches in program order, so the keys agree.
//! - **Kernel partners**: pairs with high reuse (ratio above 0.4, LASER's
//!   "high reuse"), parent–child (the child's side, `R_{c−p}`) and sibling
//!   (`R_{cx−cy}` either side, siblings = kernels launched by one parent WG, up to
//!   32 per WG as in [`crate::gpu::reuse::characterise`]); per kernel the partners
//!   ordered by ratio, largest first (Alg. 2's list).
//! - **WG chains**: connected components of high-reuse WG pairs (parent WG –
//!   child WG, sibling WGs of equal index, intra-kernel WGs up to 4 indices
//!   apart), Alg. 3's "high-reuse WG chains"; every WG gets a chain id (a WG in no
//!   pair is a chain of its own).

use crate::gpu::dp::ParentInfo;
use crate::gpu::reuse::ratios::{Blocks, HIGH_REUSE};
use crate::gpu::reuse::Trace;
use std::collections::{BTreeMap, HashMap, HashSet};

/// A stable kernel identity.
pub type Key = u64;

fn mix(mut h: u64, x: u64) -> u64 {
    // splitmix64 over the running hash and the next word
    h ^= x.wrapping_add(0x9e37_79b9_7f4a_7c15).wrapping_add(h << 6);
    h = (h ^ (h >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h = (h ^ (h >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^ (h >> 31)
}

/// Assigns stable keys to kernel records as they are first seen (in launch or
/// first-visibility order).
#[derive(Clone, Debug, Default)]
pub struct KeyMap {
    keys: HashMap<u32, Key>,
    host: u64,
    nth: HashMap<(Key, u64, u32, u32), u64>,
}

impl KeyMap {
    /// The key of `record` (launched by `parent`), assigned on first call.
    pub fn key(&mut self, record: u32, parent: Option<ParentInfo>) -> Key {
        if let Some(&k) = self.keys.get(&record) {
            return k;
        }
        let k = match parent {
            None => {
                self.host += 1;
                mix(1, self.host)
            }
            Some(p) => {
                // a parent never seen (cannot happen in launch order): its record
                let pk = self
                    .keys
                    .get(&p.kernel)
                    .copied()
                    .unwrap_or_else(|| mix(3, p.kernel as u64));
                let n = self.nth.entry((pk, p.tb, p.warp, p.lane)).or_insert(0);
                *n += 1;
                [p.tb, p.warp as u64, p.lane as u64, *n]
                    .iter()
                    .fold(mix(2, pk), |h, &x| mix(h, x))
            }
        };
        self.keys.insert(record, k);
        k
    }

    /// The key of `record` if seen.
    pub fn get(&self, record: u32) -> Option<Key> {
        self.keys.get(&record).copied()
    }
}

/// What the oracle knows from the profiling run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Profile {
    /// Per kernel, its high-reuse partners and ratios, largest first.
    pub partners: HashMap<Key, Vec<(Key, f64)>>,
    /// Chain id of each WG (kernel key, TB index) that accessed memory.
    pub chain: HashMap<(Key, u64), u64>,
    /// Every kernel of the profiling run (with or without memory accesses).
    pub keys: HashSet<Key>,
    /// Kernels of the profile with memory accesses.
    pub kernels: usize,
    /// High-reuse kernel pairs (unordered).
    pub kernel_pairs: usize,
    /// High-reuse WG pairs (ordered, as found).
    pub wg_pairs: usize,
}

type Wg = (u32, u64);

fn find(p: &mut [usize], mut x: usize) -> usize {
    while p[x] != x {
        p[x] = p[p[x]];
        x = p[x];
    }
    x
}

impl Profile {
    /// The profile of `trace` (every kernel record in it, keyed in record order).
    pub fn of(trace: &Trace) -> Profile {
        let mut km = KeyMap::default();
        let keys: Vec<Key> = (0..trace.parents.len())
            .map(|r| km.key(r as u32, trace.parents[r]))
            .collect();
        let mut kern: BTreeMap<u32, Blocks> = BTreeMap::new();
        let mut wgs: BTreeMap<Wg, Blocks> = BTreeMap::new();
        for a in &trace.accesses {
            kern.entry(a.kernel).or_default().add(a.line);
            wgs.entry((a.kernel, a.tb)).or_default().add(a.line);
        }
        let parent = |k: u32| trace.parents.get(k as usize).copied().flatten();
        let key = |k: u32| {
            keys.get(k as usize)
                .copied()
                .unwrap_or_else(|| mix(3, k as u64))
        };
        // kernel pairs: best ratio per unordered pair
        let mut pair: HashMap<(u32, u32), f64> = HashMap::new();
        let mut note = |x: u32, y: u32, v: f64| {
            if v > HIGH_REUSE {
                let e = pair.entry((x.min(y), x.max(y))).or_insert(0.0);
                *e = e.max(v);
            }
        };
        let mut sibs: BTreeMap<Wg, Vec<u32>> = BTreeMap::new();
        for (&k, b) in &kern {
            let Some(p) = parent(k) else { continue };
            sibs.entry((p.kernel, p.tb)).or_default().push(k);
            if let Some(pb) = kern.get(&p.kernel) {
                note(k, p.kernel, b.ratio_to(pb));
            }
        }
        for list in sibs.values() {
            let list = &list[..list.len().min(32)];
            for &x in list {
                for &y in list {
                    if x != y {
                        note(x, y, kern[&x].ratio_to(&kern[&y]));
                    }
                }
            }
        }
        let mut partners: HashMap<Key, Vec<(Key, f64)>> = HashMap::new();
        for (&(x, y), &v) in &pair {
            partners.entry(key(x)).or_default().push((key(y), v));
            partners.entry(key(y)).or_default().push((key(x), v));
        }
        for l in partners.values_mut() {
            l.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        }
        // WG chains
        let widx: HashMap<Wg, usize> = wgs.keys().enumerate().map(|(i, &w)| (w, i)).collect();
        let mut edges = Vec::new();
        let mut high = |a: Wg, b: Wg, v: f64| {
            if v > HIGH_REUSE {
                edges.push((widx[&a], widx[&b]));
            }
        };
        for (&(k, i), b) in &wgs {
            if let Some(p) = parent(k) {
                if let Some(pw) = wgs.get(&(p.kernel, p.tb)) {
                    high((k, i), (p.kernel, p.tb), b.ratio_to(pw));
                }
            }
            for j in i.saturating_sub(4)..=i + 4 {
                if let Some(o) = wgs.get(&(k, j)).filter(|_| j != i) {
                    high((k, i), (k, j), b.ratio_to(o));
                }
            }
        }
        for list in sibs.values() {
            let list = &list[..list.len().min(32)];
            for &x in list {
                for &y in list {
                    if x == y {
                        continue;
                    }
                    for (w, wb) in wgs.range((x, 0)..=(x, u64::MAX)) {
                        if let Some(o) = wgs.get(&(y, w.1)) {
                            high(*w, (y, w.1), wb.ratio_to(o));
                        }
                    }
                }
            }
        }
        let mut uf: Vec<usize> = (0..wgs.len()).collect();
        for &(a, b) in &edges {
            let (ra, rb) = (find(&mut uf, a), find(&mut uf, b));
            if ra != rb {
                uf[ra.max(rb)] = ra.min(rb);
            }
        }
        let chain = wgs
            .keys()
            .enumerate()
            .map(|(i, &(k, t))| ((key(k), t), find(&mut uf, i) as u64))
            .collect();
        Profile {
            keys: keys.iter().copied().collect(),
            partners,
            chain,
            kernels: kern.len(),
            kernel_pairs: pair.len(),
            wg_pairs: edges.len(),
        }
    }

    /// Whether `a` and `b` are high-reuse partners, and the ratio.
    pub fn ratio(&self, a: Key, b: Key) -> Option<f64> {
        self.partners
            .get(&a)?
            .iter()
            .find(|(k, _)| *k == b)
            .map(|&(_, v)| v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::reuse::Access;

    fn pi(kernel: u32, tb: u64, warp: u32, lane: u32) -> Option<ParentInfo> {
        Some(ParentInfo {
            kernel,
            tb,
            warp,
            lane,
            sm: 0,
        })
    }

    #[test]
    fn keys_survive_renumbering() {
        // run A: host 0, then thread (tb 1, warp 0, lane 3) launches twice,
        // thread (tb 0, warp 1, lane 0) once
        let mut a = KeyMap::default();
        let h = a.key(0, None);
        let a1 = a.key(1, pi(0, 1, 0, 3));
        let a2 = a.key(2, pi(0, 0, 1, 0));
        let a3 = a.key(3, pi(0, 1, 0, 3));
        // run B: the other thread's launch comes first, records differ
        let mut b = KeyMap::default();
        assert_eq!(b.key(7, None), h);
        assert_eq!(b.key(8, pi(7, 0, 1, 0)), a2);
        assert_eq!(b.key(9, pi(7, 1, 0, 3)), a1);
        assert_eq!(b.key(10, pi(7, 1, 0, 3)), a3);
        assert_ne!(a1, a3, "a thread's second launch is another kernel");
        // a grandchild keys on its parent's key, not its record
        assert_eq!(a.key(4, pi(3, 0, 0, 0)), b.key(11, pi(10, 0, 0, 0)));
        assert_eq!(b.get(9), Some(a1));
    }

    fn acc(kernel: u32, tb: u64, line: u64) -> Access {
        Access {
            line,
            kernel,
            tb,
            warp: 0,
            sm: 0,
            write: false,
        }
    }

    #[test]
    fn partners_and_chains_from_a_hand_trace() {
        // host kernel 0: WG 0 reads lines 0..10, WG 1 lines 100..110 (WGs 5
        // apart in index would not be compared; these are neighbours but share
        // nothing). Child 1 (of WG 0): 6 of 10 reads on WG 0's lines (0.6,
        // high). Child 2 (of WG 1): 3 of 10 on WG 1's lines (0.3, low), and 5 of
        // its 10 on child 3's lines. Child 3 (of WG 1): reads 200..210.
        let mut acc_v = Vec::new();
        for l in 0..10 {
            acc_v.push(acc(0, 0, l));
            acc_v.push(acc(0, 1, 100 + l));
        }
        for l in 0..6 {
            acc_v.push(acc(1, 0, l));
        }
        for l in 0..4 {
            acc_v.push(acc(1, 0, 50 + l));
        }
        for l in 0..3 {
            acc_v.push(acc(2, 0, 100 + l));
        }
        for l in 0..5 {
            acc_v.push(acc(2, 0, 200 + l));
        }
        for l in 0..2 {
            acc_v.push(acc(2, 0, 300 + l));
        }
        for l in 0..10 {
            acc_v.push(acc(3, 0, 200 + l));
        }
        let t = Trace {
            accesses: acc_v,
            parents: vec![None, pi(0, 0, 0, 0), pi(0, 1, 0, 0), pi(0, 1, 0, 1)],
        };
        let p = Profile::of(&t);
        let mut km = KeyMap::default();
        let k: Vec<Key> = (0..4).map(|r| km.key(r, t.parents[r as usize])).collect();
        assert_eq!(p.kernels, 4);
        assert_eq!(p.keys, k.iter().copied().collect());
        // child 1 – host: 0.6; child 2 – child 3: R_{2-3} = 0.5, R_{3-2} = 0.5;
        // child 2 – host: 0.3 (low)
        assert_eq!(p.kernel_pairs, 2);
        assert!((p.ratio(k[1], k[0]).unwrap() - 0.6).abs() < 1e-12);
        assert!((p.ratio(k[0], k[1]).unwrap() - 0.6).abs() < 1e-12);
        assert!((p.ratio(k[2], k[3]).unwrap() - 0.5).abs() < 1e-12);
        assert_eq!(p.ratio(k[2], k[0]), None);
        // WG chains: {host WG 0, child 1 WG 0}, {child 2, child 3} (siblings of
        // WG 1, equal index), {host WG 1} alone
        let c = |r: usize, tb: u64| p.chain[&(k[r], tb)];
        assert_eq!(c(0, 0), c(1, 0));
        assert_eq!(c(2, 0), c(3, 0));
        assert_ne!(c(0, 0), c(2, 0));
        assert_ne!(c(0, 1), c(2, 0));
        assert_ne!(c(0, 1), c(0, 0));
    }
}
