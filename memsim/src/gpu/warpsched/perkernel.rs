//! Per-kernel warp scheduling on a shared SM (iPAWS §4.4 sCKE; digest §5.1
//! "Extensions" and §5.2 "Static oracle GTO-RR (CKE)").
//!
//! sCKE pairs the SMs: "in core0, we assume warps from K0 are 'older' and are
//! prioritized over warps from K1"; core1 the reverse. [I] SM `s` prioritises
//! the kernels of rank `s % 2`, a kernel's rank being its instance id modulo 2
//! (the two kernels of a two-app mix are instances 0 and 1); with an odd number
//! of SMs the last one prioritises rank 0. [I] Prioritised is strict: a pick
//! considers only the ready warps of the prioritised kernel when it has any,
//! else those of the kernel of the oldest ready warp; and each kernel's warps
//! are ordered by that kernel's own policy, with its own greedy / last-issued
//! warp ([`Split`], one sub-scheduler per kernel). iPAWS under sCKE
//! (`ipaws-scke`, `super::ipaws`) picks this way with each kernel's phase;
//! [`PerKernel`] is the static oracle (`gto-lrr`: GTO for rank 0, LRR for
//! rank 1; `lrr-gto` the reverse; `gto-gto` and `lrr-lrr` the priority alone),
//! the same composition with fixed policies,
//! usable under any TB dispatcher (under pCKE an SM runs one kernel and the
//! priority does not matter).

use crate::gpu::sched::{Cand, Gto, Lrr, WarpInfo, WarpScheduler};

/// Whether SM `sm` prioritises kernel `kernel` (module doc, [I]).
pub fn prioritised(sm: u32, kernel: u32) -> bool {
    kernel % 2 == sm % 2
}

/// How one kernel's ready warps are ordered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    /// Greedy then oldest.
    Gto,
    /// Loose round-robin.
    Lrr,
}

/// One kernel's sub-scheduler.
#[derive(Clone, Debug)]
struct Sub {
    kernel: u32,
    gto: Gto,
    lrr: Lrr,
}

/// The kernel-priority composition of one SM's scheduler (module doc).
#[derive(Clone, Debug)]
pub struct Split {
    sm: u32,
    subs: Vec<Sub>,
    /// The selected kernel's ready warps and their indices in `ready`.
    sub: Vec<Cand>,
    idx: Vec<usize>,
}

impl Split {
    /// The composition on SM `sm`.
    pub fn new(sm: u32) -> Self {
        Split {
            sm,
            subs: Vec::new(),
            sub: Vec::new(),
            idx: Vec::new(),
        }
    }

    /// Whether this SM prioritises `kernel`.
    pub fn prioritises(&self, kernel: u32) -> bool {
        prioritised(self.sm, kernel)
    }

    fn sub_of(&mut self, kernel: u32) -> &mut Sub {
        let i = match self.subs.iter().position(|s| s.kernel == kernel) {
            Some(i) => i,
            None => {
                self.subs.push(Sub {
                    kernel,
                    gto: Gto::default(),
                    lrr: Lrr::default(),
                });
                self.subs.len() - 1
            }
        };
        &mut self.subs[i]
    }

    /// Selects the kernel whose warps this pick considers (`ready` non-empty):
    /// the prioritised kernel of the oldest ready warp of a prioritised kernel,
    /// else the kernel of the oldest ready warp. Its ready warps are then
    /// [`Self::ready`].
    pub fn select(&mut self, ready: &[Cand], kernel_of: impl Fn(u32) -> u32) -> u32 {
        let mut best = (true, u64::MAX, 0u32);
        for c in ready {
            let k = kernel_of(c.slot);
            let key = (!self.prioritises(k), c.age, k);
            if key < best {
                best = key;
            }
        }
        let k = best.2;
        self.sub.clear();
        self.idx.clear();
        for (i, c) in ready.iter().enumerate() {
            if kernel_of(c.slot) == k {
                self.sub.push(*c);
                self.idx.push(i);
            }
        }
        k
    }

    /// The selected kernel's ready warps (slot order).
    pub fn ready(&self) -> &[Cand] {
        &self.sub
    }

    /// Index into the last `select`'s `ready` of the selected kernel's `i`-th
    /// ready warp.
    pub fn index(&self, i: usize) -> usize {
        self.idx[i]
    }

    /// Picks among the selected kernel `k`'s ready warps by `rule`; an index
    /// into the last `select`'s `ready`.
    pub fn pick(&mut self, k: u32, rule: Rule) -> usize {
        let sub = std::mem::take(&mut self.sub);
        let s = self.sub_of(k);
        let i = match rule {
            Rule::Gto => s.gto.pick(&sub),
            Rule::Lrr => s.lrr.pick(&sub),
        };
        self.sub = sub;
        self.idx[i]
    }

    /// Warp `slot` of kernel `k` issued.
    pub fn on_issue(&mut self, k: u32, slot: u32) {
        let s = self.sub_of(k);
        s.gto.on_issue(slot);
        s.lrr.on_issue(slot);
    }
}

/// The static per-kernel oracle (`gto-lrr`, `lrr-gto`): rank 0's kernels by
/// `rules[0]`, rank 1's by `rules[1]`, composed by [`Split`].
#[derive(Clone, Debug)]
pub struct PerKernel {
    rules: [Rule; 2],
    split: Split,
    /// Kernel of each warp slot.
    kernel: Vec<u32>,
}

impl PerKernel {
    /// The oracle on SM `sm`.
    pub fn new(sm: u32, rules: [Rule; 2]) -> Self {
        PerKernel {
            rules,
            split: Split::new(sm),
            kernel: Vec::new(),
        }
    }
}

impl WarpScheduler for PerKernel {
    fn name(&self) -> &'static str {
        match self.rules {
            [Rule::Gto, Rule::Lrr] => "gto-lrr",
            [Rule::Lrr, Rule::Gto] => "lrr-gto",
            [Rule::Gto, Rule::Gto] => "gto-gto",
            [Rule::Lrr, Rule::Lrr] => "lrr-lrr",
        }
    }

    fn pick(&mut self, ready: &[Cand]) -> usize {
        let kernel = &self.kernel;
        let k = self.split.select(ready, |s| kernel[s as usize]);
        self.split.pick(k, self.rules[(k % 2) as usize])
    }

    fn on_issue(&mut self, slot: u32) {
        let k = self.kernel[slot as usize];
        self.split.on_issue(k, slot);
    }

    fn on_warp_start(&mut self, w: WarpInfo, _t: u64) {
        let s = w.slot as usize;
        if self.kernel.len() <= s {
            self.kernel.resize(s + 1, 0);
        }
        self.kernel[s] = w.kernel;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(slot: u32, age: u64) -> Cand {
        Cand {
            slot,
            age,
            mem: false,
        }
    }

    fn start(s: &mut PerKernel, slot: u32, age: u64, kernel: u32) {
        s.on_warp_start(
            WarpInfo {
                slot,
                age,
                kernel,
                gid: slot,
                tb: 0,
            },
            0,
        );
    }

    /// On SM 1 kernel 1's warps go first although kernel 0's are older; kernel
    /// 1 (rank 1) round-robin, kernel 0 (rank 0) greedy; SM 0 the reverse
    /// priority with the same rules.
    #[test]
    fn prioritised_kernel_first_each_by_its_rule() {
        let mut s1 = PerKernel::new(1, [Rule::Gto, Rule::Lrr]);
        let mut s0 = PerKernel::new(0, [Rule::Gto, Rule::Lrr]);
        for s in [&mut s0, &mut s1] {
            // kernel 0: slots 0, 2 (ages 0, 1); kernel 1: slots 1, 3 (ages 2, 3)
            start(s, 0, 0, 0);
            start(s, 1, 2, 1);
            start(s, 2, 1, 0);
            start(s, 3, 3, 1);
        }
        assert_eq!(s1.name(), "gto-lrr");
        let all = [c(0, 0), c(1, 2), c(2, 1), c(3, 3)];
        let mut order = Vec::new();
        for _ in 0..3 {
            let i = s1.pick(&all);
            s1.on_issue(all[i].slot);
            order.push(all[i].slot);
        }
        assert_eq!(order, vec![1, 3, 1], "SM 1: kernel 1 only, round-robin");
        // kernel 1 not ready: kernel 0, oldest first then greedy
        let k0 = [c(0, 0), c(2, 1)];
        let i = s1.pick(&k0);
        assert_eq!(k0[i].slot, 0);
        s1.on_issue(0);
        assert_eq!(k0[s1.pick(&k0)].slot, 0);
        // kernel 1's round-robin pointer survived kernel 0's issue: after 1, 3
        assert_eq!(all[s1.pick(&all)].slot, 3);
        // SM 0: kernel 0 first, greedy on its oldest warp
        let mut order = Vec::new();
        for _ in 0..3 {
            let i = s0.pick(&all);
            s0.on_issue(all[i].slot);
            order.push(all[i].slot);
        }
        assert_eq!(order, vec![0, 0, 0]);
        assert!(prioritised(14, 0) && prioritised(13, 1) && !prioritised(2, 1));
    }
}
