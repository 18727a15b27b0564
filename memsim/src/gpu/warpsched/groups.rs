//! LASER's two-level wavefront groups (dissertation §3.4.1 "wavefront
//! scheduling" of the oracle and §3.5's CU scheduler; digest §4.2, §4.3):
//! wavefronts of WGs with mutual high reuse form one group; GTO picks among the
//! groups (stay with the group that issued last while one of its warps is ready,
//! else the group of the oldest ready warp) and round-robin runs inside a group.
//! The thesis's example: wg1 = (w11, w12), wg2 = (w21, w22), wg3 = (w3) with
//! mutual high reuse and wg4 = (w41, w42) with self reuse only give the groups
//! {w11, w12, w21, w22, w3} and {w41, w42}.
//!
//! Which TB belongs to which group is the TB policy's knowledge (the oracle's
//! WG chains, [`crate::gpu::tbsched::oracle`] at the wavefront level; LASER's
//! parent–child predictions, [`crate::gpu::tbsched::laser`]): it files
//! each TB's group in the GPU-wide [`WarpGroups`] (held by the
//! [`WarpSchedCtx`](super::WarpSchedCtx)) when it dispatches the TB, before its
//! warps start, or (LASER) when a child joins a running parent, which moves the
//! parent's warps too: a warp's group is looked up at every pick.
//!
//! An unfiled TB is, by default, a group of its own (self reuse only, the
//! thesis's wg4). LASER's practical scheduler sets [`WarpGroups::per_warp`]: its
//! groups come only from children joining their parent ("its wavefronts join the
//! group of the parent wavefront", §3.5), so an unfiled warp is a group alone and
//! the scheduler is the baseline GTO for it ([I], session 10; before, LASER's
//! unfiled TBs ran round-robin inside, which cost 1-4% on the graphs).

use crate::gpu::sched::{Cand, WarpInfo, WarpScheduler};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

/// Global TB id → wavefront group, shared by the TB policy that fills it and the
/// warp schedulers of every SM that read it.
#[derive(Clone, Debug, Default)]
pub struct WarpGroups {
    map: Rc<RefCell<HashMap<u32, u64>>>,
    per_warp: Rc<Cell<bool>>,
}

impl WarpGroups {
    /// TB `tb` (global TB id) belongs to group `g`.
    pub fn set(&self, tb: u32, g: u64) {
        self.map.borrow_mut().insert(tb, g);
    }

    /// The group filed for TB `tb`.
    pub fn get(&self, tb: u32) -> Option<u64> {
        self.map.borrow().get(&tb).copied()
    }

    /// TBs filed.
    pub fn len(&self) -> usize {
        self.map.borrow().len()
    }

    /// No TB filed.
    pub fn is_empty(&self) -> bool {
        self.map.borrow().is_empty()
    }

    /// An unfiled warp is a group alone (`true`; LASER) or with its TB's warps
    /// (`false`, the default; the oracle's chains).
    pub fn set_per_warp(&self, on: bool) {
        self.per_warp.set(on);
    }

    /// See [`Self::set_per_warp`].
    pub fn per_warp(&self) -> bool {
        self.per_warp.get()
    }

    /// The group of a warp (global warp id `gid`) of TB `tb`.
    pub fn of(&self, tb: u32, gid: u32) -> u64 {
        self.get(tb).unwrap_or(if self.per_warp() {
            own_warp_group(gid)
        } else {
            own_group(tb)
        })
    }
}

/// Group of an unfiled warp under [`WarpGroups::per_warp`]: itself alone.
pub fn own_warp_group(gid: u32) -> u64 {
    (1 << 62) | gid as u64
}

/// Group of a TB nobody filed: its own, outside the filed ids' range (the
/// oracle's chain ids are below 2^63 or carry the top bit with the key mixed in;
/// the second-highest bit set and the TB id below keep these apart in practice).
pub fn own_group(tb: u32) -> u64 {
    (3 << 62) | tb as u64
}

/// The two-level group scheduler of one SM scheduler (`--warp-sched
/// laser-groups`).
#[derive(Clone, Debug, Default)]
pub struct Groups {
    groups: WarpGroups,
    /// Warp slot → (global TB id, global warp id).
    of: HashMap<u32, (u32, u32)>,
    last: Option<u32>,
}

impl Groups {
    /// A scheduler reading the groups of `groups`.
    pub fn new(groups: WarpGroups) -> Self {
        Groups {
            groups,
            of: HashMap::new(),
            last: None,
        }
    }

    fn group(&self, slot: u32) -> u64 {
        self.of
            .get(&slot)
            .map_or(own_group(u32::MAX), |&(tb, gid)| self.groups.of(tb, gid))
    }
}

impl WarpScheduler for Groups {
    fn name(&self) -> &'static str {
        "laser-groups"
    }

    fn pick(&mut self, ready: &[Cand]) -> usize {
        let greedy = self
            .last
            .map(|l| self.group(l))
            .filter(|&g| ready.iter().any(|c| self.group(c.slot) == g));
        let g = greedy.unwrap_or_else(|| {
            let oldest = ready.iter().min_by_key(|c| c.age).expect("ready warps");
            self.group(oldest.slot)
        });
        let in_g = |c: &Cand| self.group(c.slot) == g;
        if let Some(l) = self.last.filter(|&l| self.group(l) == g) {
            if let Some(i) = ready.iter().position(|c| in_g(c) && c.slot > l) {
                return i;
            }
        }
        ready.iter().position(in_g).expect("a warp of the group")
    }

    fn on_issue(&mut self, slot: u32) {
        self.last = Some(slot);
    }

    fn on_warp_start(&mut self, w: WarpInfo, _t: u64) {
        self.of.insert(w.slot, (w.tb, w.gid));
    }

    fn on_warp_exit(&mut self, w: WarpInfo, _t: u64) {
        self.of.remove(&w.slot);
        if self.last == Some(w.slot) {
            // a later warp in the slot starts a new group history
            self.last = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn start(s: &mut Groups, slot: u32, age: u64, tb: u32) {
        s.on_warp_start(
            WarpInfo {
                slot,
                age,
                kernel: 0,
                gid: slot,
                tb,
            },
            0,
        );
    }

    fn c(slot: u32, age: u64) -> Cand {
        Cand {
            slot,
            mem: false,
            age,
        }
    }

    /// The thesis's example: wg1 (slots 0, 1), wg2 (2, 3) and wg3 (4) in one
    /// group, wg4 (5, 6) unfiled (its own group).
    fn example() -> Groups {
        let g = WarpGroups::default();
        for tb in [1, 2, 3] {
            g.set(tb, 7);
        }
        let mut s = Groups::new(g);
        for (slot, tb) in [(0, 1), (1, 1), (2, 2), (3, 2), (4, 3), (5, 4), (6, 4)] {
            start(&mut s, slot, slot as u64, tb);
        }
        s
    }

    #[test]
    fn round_robin_inside_the_group_greedy_across() {
        let mut s = example();
        let all: Vec<Cand> = (0..7).map(|i| c(i, i as u64)).collect();
        let mut order = Vec::new();
        for _ in 0..7 {
            let i = s.pick(&all);
            s.on_issue(all[i].slot);
            order.push(all[i].slot);
        }
        // the oldest warp's group {0..4} round-robin, wg4 never while it is ready
        assert_eq!(order, vec![0, 1, 2, 3, 4, 0, 1]);
        // the group has nothing ready: the oldest ready warp's group (wg4)
        let rest = [c(5, 5), c(6, 6)];
        let i = s.pick(&rest);
        assert_eq!(rest[i].slot, 5);
        s.on_issue(5);
        // greedy: wg4 keeps issuing while it has a ready warp, even with an older
        // group's warp ready again
        let mixed = [c(0, 0), c(6, 6)];
        assert_eq!(mixed[s.pick(&mixed)].slot, 6);
        s.on_issue(6);
        let only0 = [c(0, 0), c(1, 1)];
        assert_eq!(only0[s.pick(&only0)].slot, 0);
    }

    #[test]
    fn unfiled_tbs_are_groups_of_their_own() {
        let mut s = Groups::new(WarpGroups::default());
        start(&mut s, 0, 0, 10);
        start(&mut s, 1, 1, 10);
        start(&mut s, 2, 2, 11);
        let all = [c(0, 0), c(1, 1), c(2, 2)];
        let mut order = Vec::new();
        for _ in 0..4 {
            let i = s.pick(&all);
            s.on_issue(all[i].slot);
            order.push(all[i].slot);
        }
        // TB 10's warps alternate; TB 11 waits for TB 10's group to stall
        assert_eq!(order, vec![0, 1, 0, 1]);
        s.on_warp_exit(
            WarpInfo {
                slot: 0,
                age: 0,
                kernel: 0,
                gid: 0,
                tb: 10,
            },
            5,
        );
        let left = [c(2, 2)];
        assert_eq!(s.pick(&left), 0);
    }

    #[test]
    fn per_warp_mode_is_gto_until_a_join_moves_the_parent() {
        let g = WarpGroups::default();
        g.set_per_warp(true);
        let mut s = Groups::new(g.clone());
        start(&mut s, 0, 0, 10); // parent TB 10: slots 0, 1
        start(&mut s, 1, 1, 10);
        start(&mut s, 2, 2, 11); // another TB
        let all = [c(0, 0), c(1, 1), c(2, 2)];
        let mut order = Vec::new();
        for _ in 0..3 {
            let i = s.pick(&all);
            s.on_issue(all[i].slot);
            order.push(all[i].slot);
        }
        // every warp alone: GTO stays on the oldest warp
        assert_eq!(order, vec![0, 0, 0]);
        // a child TB 12 (slot 3) joins parent TB 10: slots 0, 1 and 3 are one
        // group, round-robin inside
        g.set(10, 99);
        g.set(12, 99);
        start(&mut s, 3, 3, 12);
        let all = [c(0, 0), c(1, 1), c(2, 2), c(3, 3)];
        let mut order = Vec::new();
        for _ in 0..4 {
            let i = s.pick(&all);
            s.on_issue(all[i].slot);
            order.push(all[i].slot);
        }
        assert_eq!(order, vec![1, 3, 0, 1]);
    }
}
