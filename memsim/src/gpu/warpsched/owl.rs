//! OWL-locality's warp scheduler, the CTA-aware half of the LASER baseline
//! "OWL-locality" (Jog et al., ASPLOS 2013, ref. [71] of the LASER dissertation;
//! dissertation §3.6: "a locality-aware wavefront scheduler ... enhances the
//! two-level wavefront scheduler with the knowledge of the data layout to WG
//! mapping"; digest §4.4). The other half, co-locating neighbouring WGs on one
//! SM, is the TB policy [`crate::gpu::tbsched::owl`].
//!
//! Warps are grouped by their TB (CTA). The group of the oldest TB on the
//! scheduler has priority until it completes: a warp of a younger TB issues only
//! when no warp of an older TB is ready (the two-level scheduler's GTO across
//! groups, with the priority fixed by TB age so one TB's working set owns the L1).
//! Inside a group, loose round-robin from the warp that issued last.
//! Assumed [I]: one TB per CTA group (OWL sizes its groups from the occupancy; the
//! dissertation gives no size).

use crate::gpu::sched::{Cand, WarpInfo, WarpScheduler};
use std::collections::HashMap;

/// The CTA-aware locality scheduler of one SM scheduler.
#[derive(Clone, Debug, Default)]
pub struct Owl {
    /// Warp slot → (TB, TB priority = age of the TB's oldest warp seen here).
    group: HashMap<u32, (u32, u64)>,
    /// TB → (priority, live warps here).
    tbs: HashMap<u32, (u64, u32)>,
    last: Option<u32>,
}

impl Owl {
    fn prio(&self, c: &Cand) -> u64 {
        self.group.get(&c.slot).map_or(c.age, |g| g.1)
    }
}

impl WarpScheduler for Owl {
    fn name(&self) -> &'static str {
        "owl"
    }

    fn pick(&mut self, ready: &[Cand]) -> usize {
        let top = ready
            .iter()
            .map(|c| self.prio(c))
            .min()
            .expect("ready warps");
        let in_top = |c: &Cand| self.prio(c) == top;
        if let Some(l) = self.last {
            if let Some(i) = ready.iter().position(|c| in_top(c) && c.slot > l) {
                return i;
            }
        }
        ready
            .iter()
            .position(in_top)
            .expect("a warp of the top group")
    }

    fn on_issue(&mut self, slot: u32) {
        self.last = Some(slot);
    }

    fn on_warp_start(&mut self, w: WarpInfo, _t: u64) {
        let e = self.tbs.entry(w.tb).or_insert((w.age, 0));
        e.0 = e.0.min(w.age);
        e.1 += 1;
        let prio = e.0;
        self.group.insert(w.slot, (w.tb, prio));
    }

    fn on_warp_exit(&mut self, w: WarpInfo, _t: u64) {
        if let Some((tb, _)) = self.group.remove(&w.slot) {
            if let Some(e) = self.tbs.get_mut(&tb) {
                e.1 -= 1;
                if e.1 == 0 {
                    self.tbs.remove(&tb);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn start(o: &mut Owl, slot: u32, age: u64, tb: u32) {
        let w = WarpInfo {
            slot,
            age,
            kernel: 0,
            gid: slot,
            tb,
        };
        o.on_warp_start(w, 0);
    }

    fn c(slot: u32, age: u64) -> Cand {
        Cand {
            slot,
            mem: false,
            age,
        }
    }

    #[test]
    fn oldest_tb_first_round_robin_inside() {
        let mut o = Owl::default();
        // TB 7 (ages 10, 11) and TB 3 (ages 20, 21) on slots 0..4; TB 7 is older
        for (s, a, tb) in [(0, 20, 3), (1, 21, 3), (2, 10, 7), (3, 11, 7)] {
            start(&mut o, s, a, tb);
        }
        let ready = [c(0, 20), c(1, 21), c(2, 10), c(3, 11)];
        let mut order = Vec::new();
        for _ in 0..3 {
            let i = o.pick(&ready);
            o.on_issue(ready[i].slot);
            order.push(ready[i].slot);
        }
        assert_eq!(order, vec![2, 3, 2]);
        // the older TB stalled: the younger one issues, round-robin from there
        assert_eq!(o.pick(&[c(0, 20), c(1, 21)]), 0);
        o.on_issue(0);
        assert_eq!(o.pick(&[c(0, 20), c(1, 21)]), 1);
    }

    #[test]
    fn a_finished_tb_hands_priority_on() {
        let mut o = Owl::default();
        start(&mut o, 0, 5, 1);
        start(&mut o, 1, 9, 2);
        let exit = WarpInfo {
            slot: 0,
            age: 5,
            kernel: 0,
            gid: 0,
            tb: 1,
        };
        o.on_warp_exit(exit, 1);
        assert!(!o.tbs.contains_key(&1));
        start(&mut o, 0, 30, 4);
        // slot 0 now belongs to the younger TB 4: TB 2 goes first
        assert_eq!(o.pick(&[c(0, 30), c(1, 9)]), 1);
    }
}
